import Foundation
import SampleServer
import Testing
@testable import LibraryArchive
@testable import Site
@testable import SnapshotStore

/// The OPDS catalog (`opds/`), the authors' and the years' pages.
@Suite(.serialized) struct OPDSTests {
    /// What feedparser read of every feed (Tests/opds/read_feeds.py).
    struct Feed: Decodable {
        struct Link: Decodable { var rel: String; var href: String; var type: String }
        struct Entry: Decodable { var title: String; var id: String; var author: String; var summary: String; var links: [Link] }
        var bozo: Bool
        var problem: String
        var title: String
        var links: [Link]
        var entries: [Entry]
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/opds")

    static func readFeeds(_ snapshot: URL) async throws -> [String: Feed] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("opds/read_feeds.py")
        let (status, output) = try await ToolRunner.runChecker("/usr/bin/env", ["python3", script.path, snapshot.path])
        try #require(status == 0, "feedparser is missing (`make test` installs it), or the script failed:\n\(output)")
        return try JSONDecoder().decode([String: Feed].self, from: Data(output.utf8))
    }

    /// jing (Debian's) with the OPDS 1.2 schema: its status and what it said, less its start-up warnings.
    static func validate(_ files: [URL]) async throws -> (Int32, String) {
        let (status, output) = try await ToolRunner.runChecker("/usr/bin/env", ["jing", "-c", fixtures.appendingPathComponent("opds.rnc").path] + files.map(\.path))
        return (status, output.split(separator: "\n").filter { !$0.hasPrefix("[warning]") }.joined(separator: "\n"))
    }

    /// A link from the feed at `feed` (relative to the snapshot), resolved as a client would.
    static func resolve(_ href: String, from feed: String, in snapshot: URL) -> URL? {
        URL(string: href, relativeTo: snapshot.appendingPathComponent(feed))?.absoluteURL.standardizedFileURL
    }

    @Test func everyFeedValidatesAgainstTheSchemaAndReadsBackWithEveryLinkInPlace() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("out")
        #expect(try await EndToEndTests.export(server, to: output).status == 2)
        await server.stop()
        let site = SiteInspector(root: output)
        let feedFiles = site.files().filter { $0.hasPrefix("opds/") }
        #expect(feedFiles.contains("opds/index.xml") && feedFiles.contains("opds/books.xml") && feedFiles.contains("opds/new.xml"))

        let (status, said) = try await Self.validate(feedFiles.map { output.appendingPathComponent($0) })
        #expect(status == 0, "\(said)")
        // The validator does fail a feed that breaks the schema: an entry without its id.
        let broken = folder.path("broken.xml")
        try #require(site.text("opds/books.xml")).replacingOccurrences(of: "<id>tag:reader-snapshot,2024:127.0.0.1", with: "<rights>x</rights><!--")
            .replacingOccurrences(of: ":opds:book:101</id>", with: "-->").write(to: broken, atomically: true, encoding: .utf8)
        #expect(try await Self.validate([broken]).0 != 0)

        let feeds = try await Self.readFeeds(output)
        #expect(Set(feeds.keys) == Set(feedFiles))
        let library = try JSONDecoder().decode(LibrarySummary.self, from: try #require(site.data("library.json")))
        for (path, feed) in feeds {
            #expect(!feed.bozo, "\(path): \(feed.problem)")
            #expect(feed.links.contains { $0.rel == "self" && Self.resolve($0.href, from: path, in: output) == output.appendingPathComponent(path).standardizedFileURL })
            #expect(feed.links.contains { $0.rel == "start" && $0.type == OPDSCatalog.navigation })
            for link in feed.links + feed.entries.flatMap(\.links) {
                let target = try #require(Self.resolve(link.href, from: path, in: output))
                #expect(FileManager.default.fileExists(atPath: target.path), "\(path): \(link.rel) \(link.href)")
                if link.type.hasPrefix("application/atom+xml") {
                    #expect(link.type == OPDSCatalog.navigation || link.type == OPDSCatalog.acquisition, "\(path): \(link.type)")
                }
            }
        }
        // All books, by title, once each; their entries carry what a reader app shows.
        let all = try #require(feeds["opds/books.xml"])
        #expect(all.entries.count == library.books.count)
        #expect(Set(all.entries.map(\.id)).count == library.books.count)
        let dracula = try #require(all.entries.first { $0.title == "Dracula" })
        #expect(dracula.author == "Bram Stoker")
        #expect(dracula.links.contains { $0.rel == "http://opds-spec.org/image" && $0.href.hasPrefix("../covers/") })
        #expect(dracula.links.contains { $0.rel == "http://opds-spec.org/image/thumbnail" })
        #expect(dracula.links.contains { $0.rel == "alternate" && $0.type == "text/html" && $0.href == "../books/104-dracula.html" })
        #expect(!dracula.summary.isEmpty && !dracula.summary.contains("<") && !dracula.summary.contains("**"), "\(dracula.summary)")
        #expect(try #require(site.text("opds/books.xml")).contains("<dc:identifier>urn:isbn:9780486411095</dc:identifier>"))
        // Each shelf's feed holds its books.
        for shelf in library.shelves {
            let feed = try #require(feeds.first { $0.value.links.contains { $0.rel == "self" } && $0.key.hasPrefix("opds/shelves/\(shelf.id)") }?.value)
            #expect(feed.entries.count == shelf.book_ids.count, "\(shelf.id)")
        }
        // The pages link the catalog and the shelves' feeds.
        #expect(try #require(site.text("index.html")).contains(#"href="opds/index.xml""#))
        let shelfPage = try #require(site.files().first { $0.hasPrefix("shelves/1-") && $0.hasSuffix(".html") })
        let shelfFeed = shelfPage.dropLast(".html".count) + ".xml"
        #expect(try #require(site.text(shelfPage)).contains(#"<link rel="alternate" type="application/atom+xml""#))
        #expect(site.files().contains(String(shelfFeed)))
    }

    @Test func aLibraryOfThousandsIsPagedAndEveryBookIsOnOnePage() async throws {
        let server = try await HistoryTests.startServer(books: 2_345, seed: 20)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("out")
        let run = try await EndToEndTests.export(server, to: output, extra: ["--format", "opds,json"])
        await server.stop()
        #expect(run.status == 0, "\(run.output)")
        let feeds = try await Self.readFeeds(output)
        var path = "opds/books.xml", seen: [String] = [], pages = 0
        while true {
            let feed = try #require(feeds[path], "\(path)")
            pages += 1
            #expect(feed.entries.count <= OPDSCatalog.entriesPerPage)
            seen += feed.entries.map(\.id)
            let last = try #require(feed.links.first { $0.rel == "last" })
            #expect(last.href == "books-24.xml")
            #expect(feed.links.contains { $0.rel == "first" && $0.href == "books.xml" })
            if pages > 1 { #expect(feed.links.contains { $0.rel == "previous" }) }
            guard let next = feed.links.first(where: { $0.rel == "next" }) else { break }
            path = "opds/" + next.href
        }
        #expect(pages == 24)
        #expect(seen.count == 2_345 && Set(seen).count == 2_345)
        // No feed is huge, whatever the library: a page of entries and its links.
        let biggest = try FileManager.default.subpathsOfDirectory(atPath: output.appendingPathComponent("opds").path)
            .compactMap { try? FileManager.default.attributesOfItem(atPath: output.appendingPathComponent("opds/\($0)").path)[.size] as? Int }.max() ?? 0
        #expect(biggest < 200_000, "\(biggest) bytes")
    }

    /// Names as they come: none, blank, emoji only, and one author on two shelves.
    @Test func authorsWithOddNamesEachGetAPageAndEveryBookLinksItsAuthor() async throws {
        let library = Library(
            generatedAt: "2024-05-06T07:08:09Z", server: "https://reader.example.com", user: "me", userID: 1,
            shelves: [Shelf(id: 1, name: "Read", bookCount: 3, bookIDs: [1, 2, 3]), Shelf(id: 2, name: "To read", bookCount: 3, bookIDs: [4, 5, 6])],
            books: [
                Book(id: 1, title: "The Dispossessed", author: "Ursula K. Le Guin", shelfID: 1, createdAt: "2023-04-01T10:00:00Z"),
                Book(id: 4, title: "The Lathe of Heaven", author: "Ursula K. Le Guin ", shelfID: 2, createdAt: "2024-01-02T10:00:00Z"),
                Book(id: 2, title: "No author", author: nil, shelfID: 1),
                Book(id: 3, title: "Blank author", author: "  ", shelfID: 1, createdAt: "2024-03-02T10:00:00Z"),
                Book(id: 5, title: "Emoji", author: "📚🦄", shelfID: 2),
                Book(id: 6, title: "Empty", author: "", shelfID: 2),
                // What a server could send: digits of another script, dates that are none.
                Book(id: 10, title: "Odd ISBN", author: "ıșık", isbn: "٩٧٨٠٤٤١٠١٣٥٩٣", shelfID: 2, createdAt: "2024\n# x"),
                Book(id: 11, title: "Odd date", author: "Zed", shelfID: 2, createdAt: "2024-13-45T99:99:99Z"),
            ], problems: [])
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try SiteRenderer(templates: try await TemplateSet.bundled()).render(library, into: SnapshotWriter(root: folder.url))
        let site = SiteInspector(root: folder.url)
        let files = Set(site.files())
        let authorPages = files.filter { $0.hasPrefix("authors/") }.sorted()
        #expect(authorPages.count == 5, "\(authorPages)")
        // Every feed is valid all the same, the site's and the shelves' too.
        let feeds = files.filter { $0.hasSuffix(".xml") && $0 != "sitemap.xml" }.map { folder.url.appendingPathComponent($0) }
        let (status, said) = try await Self.validate(feeds)
        #expect(status == 0, "\(said)")
        #expect(!(site.text("markdown/years/2024.md") ?? "").contains("\n# x"))
        #expect(!(site.text("opds/books.xml") ?? "").contains("urn:isbn:"))
        let leGuin = try #require(site.text("authors/le-guin-ursula-k.html"))
        #expect(leGuin.contains("The Dispossessed") && leGuin.contains("The Lathe of Heaven") && leGuin.contains("2 books"))
        let unknown = try #require(site.text("authors/unknown-author.html"))
        #expect(unknown.contains("No author") && unknown.contains("Blank author") && unknown.contains("Empty") && unknown.contains("3 books"))
        let emoji = try #require(authorPages.first { $0.hasPrefix("authors/author-") })
        #expect(try #require(site.text(emoji)).contains("📚🦄"))
        #expect(files.contains(emoji.replacingOccurrences(of: "authors/", with: "markdown/authors/").replacingOccurrences(of: ".html", with: ".md")))
        #expect(files.contains("opds/" + emoji.replacingOccurrences(of: ".html", with: ".xml")))
        // The index by surname: L before # (emoji), the unknown author last.
        let index = try #require(site.text("authors.html"))
        let order = ["le-guin-ursula-k.html", "zed.html", emoji.dropFirst("authors/".count), "unknown-author.html"].map { index.range(of: String($0))?.lowerBound }
        #expect(order.allSatisfy { $0 != nil } && order[0]! < order[1]! && order[1]! < order[2]! && order[2]! < order[3]!, "\(index)")
        #expect(index.components(separatedBy: #"id="letter-"#).count == 4, "L, Z and # once each: \(index)")
        #expect(try #require(site.text("markdown/authors.md")).contains("\n## \\#\n"))
        #expect(index.contains(##"href="#letter-L""##) && index.contains(#"id="letter-L""#))
        // Book pages link their author; years have pages, linked from the stats chart.
        #expect(try #require(site.text("books/4-the-lathe-of-heaven.html")).contains(#"<a href="../authors/le-guin-ursula-k.html">"#))
        #expect(try #require(site.text("markdown/books/1-the-dispossessed.md")).contains("(../authors/le-guin-ursula-k.md)"))
        #expect(files.contains("years/2023.html") && files.contains("years/2024.html") && files.contains("markdown/years/2024.md"))
        let year = try #require(site.text("years/2024.html"))
        #expect(year.contains("2 books") && year.contains("The Lathe of Heaven") && year.contains("Blank author") && !year.contains("The Dispossessed"))
        #expect(try #require(site.text("stats.html")).contains(#"href="years/2023.html""#))
    }
}

/// The parts of `library.json` these tests compare with.
struct LibrarySummary: Decodable {
    struct Shelf: Decodable { var id: Int; var book_ids: [Int] }
    struct Book: Decodable { var id: Int }
    var shelves: [Shelf]
    var books: [Book]
}
