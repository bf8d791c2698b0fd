import Crypto
import Foundation
import TestSupport
import Testing
import SampleServer
import Thumbnails
@testable import LibraryArchive
@testable import Notes
@testable import Site
@testable import SnapshotStore

/// Link previews (Open Graph and Twitter's tags) on every kind of page, and the share cards they show.
@Suite struct PreviewTests {
    static let base = "https://example.org/books/"

    /// A small library with what is hard for a card: no cover, a long title, a right-to-left title,
    /// a one-book shelf, markup characters, and a cover that is no image. Its covers are written
    /// into `folder`, where the crawl would have put them.
    static func library(coversIn folder: URL) throws -> Library {
        func cover(_ data: Data) throws -> CoverFile {
            let hash = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
            let path = "covers/\(hash.prefix(32)).jpg"
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("covers"), withIntermediateDirectories: true)
            try data.write(to: folder.appendingPathComponent(path))
            return CoverFile(path: path, format: .jpeg, bytes: data.count, sha256: hash, width: 400, height: 600)
        }
        let first = try cover(try #require(SampleCovers.jpeg(width: 400, height: 600, seed: 1)))
        let second = try cover(try #require(SampleCovers.jpeg(width: 400, height: 600, seed: 2)))
        let broken = try cover(Data("not an image at all".utf8))
        return Library(
            generatedAt: "2024-05-06T07:08:09Z", title: "Shared books",
            shelves: [Shelf(id: 1, name: "Gothic", bookCount: 2, bookIDs: [1, 2]), Shelf(id: 2, name: "عربي", bookCount: 1, bookIDs: [3]),
                      Shelf(id: 3, name: "Odd <shelf>", bookCount: 1, bookIDs: [4])],
            books: [
                Book(id: 1, title: "Dracula", author: "Bram Stoker", shelfID: 1, createdAt: "2023-04-01T10:00:00Z", cover: first,
                     note: Note(receiving: "A gothic novel told in letters. Then a second sentence.")),
                Book(id: 2, title: "The Extraordinarily Long Title of a Book That Goes On and On", author: "A. N. Author", shelfID: 1,
                     createdAt: "2024-01-02T10:00:00Z"),
                Book(id: 3, title: "مرتفعات وذرينغ", author: "إميلي برونتي", shelfID: 2, createdAt: "2024-02-02T10:00:00Z", cover: second),
                Book(id: 4, title: #""<Quotes> & 'Ampersands'"#, author: #"O'Brien & "Co""#, shelfID: 3, createdAt: "2024-03-02T10:00:00Z",
                     cover: broken),
            ], problems: [])
    }

    /// Renders the library into a new folder; returns it (to be removed by the caller's folder).
    static func render(in folder: TemporaryFolder, _ name: String, siteURL: String? = base, shareCards: Bool = true,
                       language: String = "en") async throws -> SiteInspector {
        let root = folder.path(name)
        let library = try library(coversIn: root)
        var renderer = SiteRenderer(templates: try await TemplateSet.bundled(language: language), siteURL: siteURL.flatMap(URL.init(string:)))
        renderer.shareCards = shareCards
        try renderer.render(library, into: SnapshotWriter(root: root))
        return SiteInspector(root: root)
    }

    /// What the HTML's escaping stands for, as a browser reads an attribute.
    static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test func everyKindOfPageHasItsPreviewWithACardOfItsOwn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let site = try await Self.render(in: folder, "site")
        let pages = site.files().filter { $0.hasSuffix(".html") }
        for kind in ["index.html", "books.html", "authors.html", "stats.html", "shelves/", "authors/", "years/", "books/"] {
            #expect(pages.contains { $0 == kind || ($0.hasPrefix(kind) && kind.hasSuffix("/")) }, "\(kind)")
        }
        var cards = Set<String>()
        for page in pages {
            let html = try #require(site.text(page))
            let tags = SiteInspector.metaTags(html)
            #expect(tags["og:url"] == Self.base + page, "\(page)")
            #expect(!(tags["og:title"] ?? "").isEmpty && !(tags["og:description"] ?? "").isEmpty, "\(page)")
            #expect(tags["twitter:card"] == "summary_large_image", "\(page)")
            #expect(tags["og:type"] == (page.hasPrefix("books/") ? "book" : "website"), "\(page)")
            #expect(tags["og:image:width"] == "1200" && tags["og:image:height"] == "630" && !(tags["og:image:alt"] ?? "").isEmpty, "\(page)")
            let image = try #require(tags["og:image"], "\(page)")
            #expect(image.hasPrefix(Self.base + "cards/") && image.hasSuffix(".jpg"), "\(page): \(image)")
            cards.insert(String(image.dropFirst(Self.base.count)))
            #expect(html.contains(#"<link rel="canonical" href="\#(Self.base + page)">"#), "\(page)")
        }
        // Each book, shelf, author and year has a card of its own; the lists share the index's.
        let books = pages.filter { $0.hasPrefix("books/") }.count, shelves = pages.filter { $0.hasPrefix("shelves/") }.count
        let authors = pages.filter { $0.hasPrefix("authors/") }.count, years = pages.filter { $0.hasPrefix("years/") }.count
        #expect(books == 4 && shelves == 3 && years == 2)
        #expect(cards.count == books + shelves + authors + years + 1, "\(cards.count) cards")
        #expect(Set(site.files().filter { $0.hasPrefix("cards/") }) == cards)
        for card in cards {
            let size = try Thumbnailer.size(of: site.root.appendingPathComponent(card)).get()
            #expect(size.width == 1200 && size.height == 630, "\(card): \(size)")
            #expect(site.data(card)?.starts(with: [0xFF, 0xD8, 0xFF]) == true, "\(card) is a JPEG")
        }

        // What a book's preview says: its author and shelf, then its note's first sentence.
        let dracula = SiteInspector.metaTags(try #require(site.text("books/1-dracula.html")))
        #expect(dracula["og:title"] == "Dracula")
        #expect(dracula["og:description"] == "By Bram Stoker, on the shelf Gothic. A gothic novel told in letters.")
        #expect(dracula["og:image:alt"] == "Dracula, by Bram Stoker")
        // A shelf's: how many books and a few titles.
        let gothicPage = try #require(pages.first { $0.hasPrefix("shelves/1-") })
        let gothic = SiteInspector.metaTags(try #require(site.text(gothicPage)))
        #expect(gothic["og:title"] == "Gothic")
        #expect(gothic["og:description"] == "2 books: Dracula and The Extraordinarily Long Title of a Book That Goes On and On.")
        let index = SiteInspector.metaTags(try #require(site.text("index.html")))
        #expect(index["og:title"] == "Shared books" && index["og:url"] == Self.base + "index.html")
        #expect(index["og:description"]?.hasPrefix("4 books on 3 shelves") == true)

        // Text from the server is escaped in the tags, and reads back as it was.
        let odd = try #require(pages.first { $0.hasPrefix("books/4-") })
        let oddHTML = try #require(site.text(odd))
        #expect(!oddHTML.contains("<Quotes>") && !oddHTML.contains("<shelf>"))
        let oddTags = SiteInspector.metaTags(oddHTML)
        #expect(Self.unescaped(try #require(oddTags["og:title"])) == #""<Quotes> & 'Ampersands'"#)
        #expect(Self.unescaped(try #require(oddTags["og:description"])) == #"By O'Brien & "Co", on the shelf Odd <shelf>."#)
    }

    @Test func withoutASiteAddressNoPageHasPreviewsAndNoCardIsDrawn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let site = try await Self.render(in: folder, "site", siteURL: nil)
        for page in site.files().filter({ $0.hasSuffix(".html") }) {
            let html = try #require(site.text(page))
            #expect(!html.contains("og:") && !html.contains("twitter:card") && !html.contains(#"rel="canonical""#), "\(page)")
        }
        #expect(!site.files().contains { $0.hasPrefix("cards/") })
    }

    @Test func cardsAreTheSameBytesForTheSameLibraryAndSurviveBadCovers() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let one = try await Self.render(in: folder, "one"), two = try await Self.render(in: folder, "two")
        let cards = one.files().filter { $0.hasPrefix("cards/") }
        #expect(!cards.isEmpty && cards == two.files().filter { $0.hasPrefix("cards/") })
        for card in cards { #expect(one.data(card) == two.data(card), "\(card)") }
        // The book whose cover is no image has a card all the same (the stand-in), as do the
        // book with no cover, the long title and the right-to-left one.
        for id in 1...4 {
            let page = try #require(one.files().first { $0.hasPrefix("books/\(id)-") })
            let html = try #require(one.text(page))
            let image = try #require(SiteInspector.metaTags(html)["og:image"])
            #expect(cards.contains(String(image.dropFirst(Self.base.count))), "\(page)")
        }
        // Cards of different books differ.
        let bookCards = Set((1...4).compactMap { id in
            one.files().first { $0.hasPrefix("books/\(id)-") }.flatMap { SiteInspector.metaTags(one.text($0) ?? "")["og:image"] }
        })
        #expect(bookCards.count == 4)
    }

    @Test func withoutShareCardsABookShowsItsCoverAndOtherPagesNoImage() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let site = try await Self.render(in: folder, "site", shareCards: false)
        #expect(!site.files().contains { $0.hasPrefix("cards/") })
        let dracula = SiteInspector.metaTags(try #require(site.text("books/1-dracula.html")))
        #expect(dracula["og:image"]?.hasPrefix(Self.base + "covers/") == true && dracula["og:image:width"] == "400")
        #expect(dracula["twitter:card"] == "summary_large_image")
        let index = SiteInspector.metaTags(try #require(site.text("index.html")))
        #expect(index["og:title"] == "Shared books" && index["og:image"] == nil && index["twitter:card"] == "summary")
        let noCoverPage = try #require(site.files().first { $0.hasPrefix("books/2-") })
        let noCover = SiteInspector.metaTags(try #require(site.text(noCoverPage)))
        #expect(noCover["og:image"] == nil && noCover["twitter:card"] == "summary")
    }

    @Test func aNightWithNothingChangedLinksLastNightsCards() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let first = try await Self.render(in: folder, "first")
        let root = folder.path("second")
        let library = try Self.library(coversIn: root)
        try SiteRenderer(templates: try await TemplateSet.bundled(), siteURL: URL(string: Self.base))
            .render(library, into: SnapshotWriter(root: root, previous: first.root))
        let second = SiteInspector(root: root)
        let cards = first.files().filter { $0.hasPrefix("cards/") }
        #expect(!cards.isEmpty && cards == second.files().filter { $0.hasPrefix("cards/") })
        for card in cards {
            let inode = { (site: SiteInspector) in
                (try? FileManager.default.attributesOfItem(atPath: site.root.appendingPathComponent(card).path)[.systemFileNumber]) as? UInt64
            }
            #expect(inode(first) != nil && inode(first) == inode(second), "\(card) is linked, not drawn again")
        }
    }

    @Test func aCardNoPageNamesIsTakenOutOfTheSnapshot() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // A card the crawl drew for a book whose cover changed after it (Open Library's), say.
        for (name, siteURL) in [("with", Optional(Self.base)), ("without", nil)] {
            let root = folder.path(name)
            try FileManager.default.createDirectory(at: root.appendingPathComponent("cards"), withIntermediateDirectories: true)
            try Data("stale".utf8).write(to: root.appendingPathComponent("cards/0123456789abcdef0123456789abcdef.jpg"))
            let library = try Self.library(coversIn: root)
            var renderer = SiteRenderer(templates: try await TemplateSet.bundled(), siteURL: siteURL.flatMap(URL.init(string:)))
            renderer.shareCards = true
            try renderer.render(library, into: SnapshotWriter(root: root))
            let site = SiteInspector(root: root)
            let cards = site.files().filter { $0.hasPrefix("cards/") }
            #expect(!cards.contains("cards/0123456789abcdef0123456789abcdef.jpg"), "\(name)")
            if siteURL == nil {
                #expect(cards.isEmpty && !FileManager.default.fileExists(atPath: root.appendingPathComponent("cards").path))
            } else {
                // Every card left is one a page names.
                let named = Set(site.files().filter { $0.hasSuffix(".html") }.compactMap { page in
                    SiteInspector.metaTags(site.text(page) ?? "")["og:image"].map { String($0.dropFirst(Self.base.count)) }
                })
                #expect(!cards.isEmpty && Set(cards) == named)
            }
        }
    }

    /// `--language de`: the previews' titles, descriptions and cards' words are German too.
    @Test func previewsAreInThePagesLanguage() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let site = try await Self.render(in: folder, "de", language: "de")
        let index = SiteInspector.metaTags(try #require(site.text("index.html")))
        #expect(index["og:description"]?.hasPrefix("4 Bücher auf 3 Regalen, darunter ") == true, "\(index)")
        let book = SiteInspector.metaTags(try #require(site.text("books/1-dracula.html")))
        #expect(book["og:description"] == "Von Bram Stoker, im Regal Gothic. A gothic novel told in letters.", "\(book)")
        #expect(book["og:image:alt"] == "Dracula, von Bram Stoker")
        let year = SiteInspector.metaTags(try #require(site.text("years/2024.html")))
        #expect(year["og:title"] == "Hinzugefügt 2024" && year["og:description"]?.hasPrefix("3 Bücher, hinzugefügt 2024: ") == true, "\(year)")
        let stats = SiteInspector.metaTags(try #require(site.text("stats.html")))
        #expect(stats["og:title"] == "Statistik · Shared books" && stats["og:description"] == "4 Bücher nach Regal, Autor und Jahr.", "\(stats)")
    }

}
