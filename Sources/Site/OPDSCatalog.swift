import Foundation
import LibraryArchive
import NIOConcurrencyHelpers
import SnapshotStore
import Support

/// `opds/`: the library as an OPDS 1.2 catalog, for e-reader apps, and its OPDS 2.0 twin
/// (`OPDSCatalog+JSON.swift`). A root navigation feed (the
/// shelves, all books, the authors, the recently added), an acquisition feed for each shelf and
/// author and for all books, each paged so that no feed grows with the library. There are no book
/// files to acquire: each entry links its cover, its thumbnail and its page.
///
/// Links are relative to the feed's own address (the folder works from any path of any web
/// server, or from disk); with --site-url they are absolute.
final class OPDSCatalog: Sendable {
    static let entriesPerPage = 100
    static let navigation = "application/atom+xml;profile=opds-catalog;kind=navigation"
    static let acquisition = "application/atom+xml;profile=opds-catalog;kind=acquisition"

    /// The media type a host serves a file of the catalog with (below `opds/`): the root and its
    /// lists of shelves and authors lead to other feeds, the rest list books; the JSON twins are OPDS 2.0.
    @Sendable static func mediaType(_ path: String) -> String? {
        let parts = path.split(separator: "/")
        if path.hasSuffix(".json") { return json }
        guard path.hasSuffix(".xml") else { return nil }
        return parts.count == 2 && ["index.xml", "shelves.xml", "authors.xml"].contains(parts[1]) ? navigation : acquisition
    }
    static let summaryLength = 400

    // A class, not a struct: each of a big catalog's thousands of feeds keeps its maker until it
    // is written, and a closure that captured the catalog by value copied the site's model into
    // each (a kilobyte a feed, 8 MB at 100,000 books).
    let model: SiteModel
    /// Each book's note as plain text, read as its entry is written.
    let notes: NoteTexts
    let host: String
    /// The catalog's date: the newest book's, so that it stays the same while the library does.
    let updated: String
    /// The first note that could not be read back, said by `check()` once a feed is made.
    private let failure = NIOLockedValueBox<Error?>(nil)

    init(_ model: SiteModel, notes: NoteTexts) {
        self.model = model
        self.notes = notes
        host = SiteModel.feedHost(of: model.frame)
        // The dates the list of books gives (the same in a crawl and in library.json): when each book was added.
        let entries = model.library.entries
        let dates = entries.indices.compactMap { Self.atomDate(entries[$0].createdAt) }
        updated = dates.max() ?? Self.atomDate(model.frame.generatedAt) ?? "1970-01-01T00:00:00Z"
    }

    /// The summary of the book's note; nil without one.
    func summary(of place: Int) -> String? {
        do {
            let summary = Self.summary(try notes.plainText(of: place))
            return summary.isEmpty ? nil : summary
        } catch {
            failure.withLockedValue { $0 = $0 ?? error }
            return nil
        }
    }

    /// A job for each feed: made when the job runs, checked, written.
    @Sendable static func jobs(_ model: SiteModel, notes: NoteTexts, into writer: SnapshotWriter) -> [SiteRenderer.Job] {
        let opds = OPDSCatalog(model, notes: notes)
        return opds.feeds().map { feed in
            {
                let text = feed.text()
                try opds.check()
                try writer.write(text, to: feed.path)
            }
        }
    }

    /// Throws when a note could not be read back: a feed without it is not written.
    func check() throws {
        if let failure = failure.withLockedValue({ $0 }) { throw failure }
    }

    /// A feed: its path in the snapshot, and what makes its text (when it is written: a big
    /// library's feeds are never all in memory at once).
    typealias Feed = (path: String, text: () -> String)

    /// Every feed, OPDS 1.2 and OPDS 2.0.
    func feeds() -> [Feed] {
        atomFeeds() + jsonFeeds()
    }

    /// Every OPDS 1.2 feed.
    func atomFeeds() -> [Feed] {
        var feeds: [Feed] = []
        let root = "opds/index.xml"
        var entries = [
            navigationEntry(title: model.language.text("allBooks"), detail: model.language.text("catalogAllBooksDetail"), id: "books", href: "opds/books.xml",
                            type: Self.acquisition, rel: "subsection", from: root),
            navigationEntry(title: model.language.text("recentlyAdded"), detail: model.language.text("catalogRecentDetail", ["count": model.language.number(SiteModel.recentCount)]), id: "new",
                            href: "opds/new.xml", type: Self.acquisition, rel: "http://opds-spec.org/sort/new", from: root),
            navigationEntry(title: model.language.text("shelves"), detail: model.language.count("catalogShelvesDetail", model.shelves.count), id: "shelves", href: "opds/shelves.xml",
                            type: Self.navigation, rel: "subsection", from: root),
            navigationEntry(title: model.language.text("authors"), detail: model.language.text("catalogAuthorsDetail", ["count": model.language.number(model.authors.authors.count)]), id: "authors",
                            href: "opds/authors.xml", type: Self.navigation, rel: "subsection", from: root),
        ]
        if model.shelves.isEmpty { entries.remove(at: 2) }
        // The list of all books is every book once, paged: what a crawler walks.
        feeds.append((root, { [self] in
            feed(path: root, kind: Self.navigation, id: "root", title: model.site.title, up: nil, entries: entries,
                 paging: [("http://opds-spec.org/crawlable", "opds/books.xml", Self.acquisition)])
        }))

        feeds += paged(base: "opds/books", kind: Self.acquisition, id: "books", title: model.language.text("allBooks"), up: root, count: model.books.count) { [self] range, path in
            model.books[range].map { bookEntry($0, from: path) }
        }
        feeds.append(("opds/new.xml", { [self] in
            feed(path: "opds/new.xml", kind: Self.acquisition, id: "new", title: model.language.text("recentlyAdded"), up: root,
                 entries: model.recent.map { bookEntry($0, from: "opds/new.xml") })
        }))
        if !model.shelves.isEmpty {
            feeds += paged(base: "opds/shelves", kind: Self.navigation, id: "shelves", title: model.language.text("shelves"), up: root, count: model.shelves.count) { [self] range, path in
                model.shelves[range].map { shelf in
                    navigationEntry(title: shelf.shelf.name, detail: shelf.view.countLabel, id: "shelf:\(shelf.shelf.id)",
                                    href: "opds/shelves/\(shelf.fileName).xml", type: Self.acquisition, rel: "subsection", from: path)
                }
            }
        }
        feeds += paged(base: "opds/authors", kind: Self.navigation, id: "authors", title: model.language.text("authors"), up: root,
                       count: model.authors.authors.count) { [self] range, path in
            model.authors.authors[range].map { author in
                navigationEntry(title: author.displayName, detail: model.language.count("books", author.books.count),
                                id: "author:\(author.fileName)", href: "opds/authors/\(author.fileName).xml", type: Self.acquisition,
                                rel: "subsection", from: path)
            }
        }
        for shelf in model.shelves {
            feeds += paged(base: "opds/shelves/\(shelf.fileName)", kind: Self.acquisition, id: "shelf:\(shelf.shelf.id)", title: shelf.shelf.name,
                           up: "opds/shelves.xml", count: shelf.books.count) { [self] range, path in
                shelf.books[range].map { bookEntry($0, from: path) }
            }
        }
        for author in model.authors.authors {
            // Pages after the first as "NAME--2.xml": "-2" could be another author's own name.
            feeds += paged(base: "opds/authors/\(author.fileName)", separator: "--", kind: Self.acquisition, id: "author:\(author.fileName)",
                           title: author.displayName, up: "opds/authors.xml", count: author.books.count) { [self] range, path in
                author.books[range].map { bookEntry($0, from: path) }
            }
        }
        return feeds
    }

    /// `base.xml`, `base-2.xml`, …: each a page of the list, linked first/previous/next/last.
    private func paged(base: String, separator: String = "-", kind: String, id: String, title: String, up: String?, count: Int,
                       entries: @escaping (Range<Int>, String) -> [String]) -> [Feed] {
        let pages = max(1, (count + Self.entriesPerPage - 1) / Self.entriesPerPage)
        func path(_ number: Int) -> String { number == 1 ? base + ".xml" : "\(base)\(separator)\(number).xml" }
        return (1...pages).map { number in
            let start = (number - 1) * Self.entriesPerPage
            let here = path(number)
            var links: [(String, String)] = []
            if pages > 1 {
                links.append(("first", path(1)))
                if number > 1 { links.append(("previous", path(number - 1))) }
                if number < pages { links.append(("next", path(number + 1))) }
                links.append(("last", path(pages)))
            }
            let pageTitle = pages > 1 ? model.language.text("feedPage", ["title": title, "number": model.language.number(number), "count": model.language.number(pages)]) : title
            return (here, { [self] in
                feed(path: here, kind: kind, id: number == 1 ? id : "\(id):page:\(number)", title: pageTitle, up: up,
                     entries: entries(start..<min(start + Self.entriesPerPage, count), here), paging: links.map { ($0.0, $0.1, kind) })
            })
        }
    }

    private func feed(path: String, kind: String, id: String, title: String, up: String?, entries: [String],
                      paging: [(rel: String, path: String, type: String)] = []) -> String {
        var links = [("self", path, kind), ("start", "opds/index.xml", Self.navigation)]
        if let up { links.append(("up", up, Self.navigation)) }
        links += paging
        // The same feed as OPDS 2.0.
        links.append(("alternate", Self.twin(of: path), Self.json))
        if model.formats.contains(.html) {
            links.append(("alternate", "index.html", "text/html"))
        }
        var xml = """
        <?xml version="1.0" encoding="utf-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/terms/" xmlns:opds="http://opds-spec.org/2010/catalog" xml:lang="\(AtomFeed.escape(model.language.tag))">
          <id>\(tag(id))</id>
          <title>\(AtomFeed.escape(title))</title>
          <updated>\(updated)</updated>
          <author><name>\(AtomFeed.escape(model.site.title))</name></author>
          <generator>reader-snapshot</generator>

        """
        for link in links {
            xml += "  <link rel=\"\(link.0)\" href=\"\(AtomFeed.escape(href(link.1, from: path)))\" type=\"\(link.2)\"/>\n"
        }
        for entry in entries { xml += entry }
        return xml + "</feed>\n"
    }

    private func navigationEntry(title: String, detail: String, id: String, href target: String, type: String, rel: String,
                                 from path: String) -> String {
        """
          <entry>
            <title>\(AtomFeed.escape(title))</title>
            <id>\(tag(id))</id>
            <updated>\(updated)</updated>
            <link rel="\(rel)" href="\(AtomFeed.escape(href(target, from: path)))" type="\(type)"/>
            <content type="text">\(AtomFeed.escape(detail))</content>
          </entry>

        """
    }

    private func bookEntry(_ place: Int, from path: String) -> String {
        let card = model.library.entries[place]
        let view = EntryBook(card, fileName: model.fileNames[place])
        var xml = """
          <entry>
            <title>\(AtomFeed.escape(view.title))</title>
            <id>\(tag("book:\(card.id)"))</id>
            <updated>\(Self.atomDate(card.createdAt) ?? updated)</updated>

        """
        if let author = view.author?.trimmingSpaces(), !author.isEmpty {
            xml += "    <author><name>\(AtomFeed.escape(author))</name></author>\n"
        }
        let isbns = ISBN.forms(view.isbn)
        if let isbn = isbns.1 ?? isbns.0 {
            xml += "    <dc:identifier>urn:isbn:\(isbn)</dc:identifier>\n"
        }
        if let added = Self.atomDate(card.createdAt) { xml += "    <published>\(added)</published>\n" }
        if let shelf = model.shelfName(of: place) {
            xml += "    <category term=\"\(AtomFeed.escape(shelf))\" label=\"\(AtomFeed.escape(shelf))\"/>\n"
        }
        let summary = self.summary(of: place)
        if let summary { xml += "    <summary type=\"text\">\(AtomFeed.escape(summary))</summary>\n" }
        if let cover = view.cover {
            let type = Self.imageType(cover.src)
            xml += "    <link rel=\"http://opds-spec.org/image\" href=\"\(AtomFeed.escape(href(cover.src, from: path)))\" type=\"\(type)\"/>\n"
            // A list's 2× thumbnail (128 × 192 at most): what e-reader apps show in their lists.
            xml += "    <link rel=\"http://opds-spec.org/image/thumbnail\" href=\"\(AtomFeed.escape(href(cover.list2x, from: path)))\" type=\"\(Self.imageType(cover.list2x))\"/>\n"
        }
        if model.formats.contains(.html) {
            xml += "    <link rel=\"alternate\" href=\"\(AtomFeed.escape(href(view.href, from: path)))\" type=\"text/html\" title=\"\(AtomFeed.escape(model.language.text("booksPage")))\"/>\n"
        } else if model.formats.contains(.markdown) {
            xml += "    <link rel=\"alternate\" href=\"\(AtomFeed.escape(href("markdown/" + view.markdownHref, from: path)))\" type=\"text/markdown\"/>\n"
        } else {
            xml += "    <content type=\"text\">\(AtomFeed.escape(summary ?? view.title))</content>\n"
        }
        return xml + "  </entry>\n"
    }

    /// What an entry shows of a book, straight from its card: a book's whole view (its shelf, its
    /// cover's four thumbnails, its day in the pages' language) was made for each of the six entries
    /// each book has, and was a fifth of the catalog's time.
    struct EntryBook {
        let title: String
        let author: String?
        let isbn: String?
        let href: String
        let markdownHref: String
        /// The cover, and the thumbnail of a list at 2× (the cover itself without thumbnails).
        let cover: (src: String, list2x: String)?
        let openLibrary: OpenLibraryFields?

        init(_ card: BookEntry, fileName: String) {
            title = card.shownTitle
            author = card.author
            isbn = card.isbn
            href = "books/\(fileName).html"
            markdownHref = "books/\(fileName).md"
            cover = card.cover.map { ($0.path, $0.thumbnail(.list2x) ?? $0.path) }
            openLibrary = card.openLibrary
        }
    }

    private func tag(_ id: String) -> String {
        AtomFeed.escape(tagURI(id))
    }

    /// The catalog's tag URI for `id` (RFC 4151), as raw text.
    func tagURI(_ id: String) -> String {
        "tag:reader-snapshot,2024:\(host):opds:\(id)"
    }

    /// `target` (a path from the site's root) as the feed at `path` links it.
    func href(_ target: String, from path: String) -> String {
        if let base = model.site.url { return base + target }
        // The folders both paths begin with are left out; each other folder of `path` is a "../".
        // (Byte by byte: a catalog makes this for every link of every entry.)
        var common = path.utf8.startIndex, targetCommon = target.utf8.startIndex
        var here = path.utf8.startIndex, there = target.utf8.startIndex
        while here != path.utf8.endIndex, there != target.utf8.endIndex, path.utf8[here] == target.utf8[there] {
            if path.utf8[here] == UInt8(ascii: "/") {
                common = path.utf8.index(after: here)
                targetCommon = target.utf8.index(after: there)
            }
            here = path.utf8.index(after: here)
            there = target.utf8.index(after: there)
        }
        let ups = path.utf8[common...].lazy.filter { $0 == UInt8(ascii: "/") }.count
        return String(repeating: "../", count: ups) + String(target.utf8[targetCommon...])!
    }

    /// The server's date if it is one Atom takes (RFC 3339), else nil: it is untrusted text.
    static func atomDate(_ text: String?) -> String? {
        guard let text else { return nil }
        let bytes = Array(text.utf8)
        func digits(_ range: Range<Int>) -> Bool { range.upperBound <= bytes.count && bytes[range].allSatisfy { (0x30...0x39).contains($0) } }
        guard bytes.count >= 20, bytes.count <= 35, digits(0..<4), bytes[4] == 0x2D, digits(5..<7), bytes[7] == 0x2D, digits(8..<10),
              bytes[10] == 0x54 || bytes[10] == 0x74, digits(11..<13), bytes[13] == 0x3A, digits(14..<16), bytes[16] == 0x3A, digits(17..<19)
        else { return nil }
        var rest = bytes[19...]
        if rest.first == 0x2E {
            rest = rest.dropFirst()
            let fraction = rest.prefix { (0x30...0x39).contains($0) }
            guard !fraction.isEmpty else { return nil }
            rest = rest.dropFirst(fraction.count)
        }
        let zone = Array(rest)
        let valid = zone == [0x5A] || zone == [0x7A]
            || (zone.count == 6 && (zone[0] == 0x2B || zone[0] == 0x2D) && zone[3] == 0x3A
                && [1, 2, 4, 5].allSatisfy { (0x30...0x39).contains(zone[$0]) })
        // What xsd:dateTime takes: a real day of the month, 00:00:00 to 23:59:59, a zone within 14 hours.
        func number(_ range: Range<Int>, _ from: [UInt8] = bytes) -> Int { from[range].reduce(0) { $0 * 10 + Int($1 - 0x30) } }
        let (year, month, day) = (number(0..<4), number(5..<7), number(8..<10))
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard valid, (1...12).contains(month), (1...days[month - 1]).contains(day), number(11..<13) < 24, number(14..<16) < 60,
              number(17..<19) < 60, zone.count != 6 || (number(1..<3, zone) <= 14 && number(4..<6, zone) < 60)
        else { return nil }
        return text
    }

    static func imageType(_ path: String) -> String {
        // The last five characters are enough to tell (".webp").
        let lowered = path.suffix(5).lowercased()
        if lowered.hasSuffix(".png") { return "image/png" }
        if lowered.hasSuffix(".gif") { return "image/gif" }
        if lowered.hasSuffix(".webp") { return "image/webp" }
        return "image/jpeg"
    }

    /// Plain text, spaces collapsed, cut at a word near `summaryLength` characters.
    static func summary(_ text: String) -> String {
        let words = text.split(whereSeparator: \.isWhitespace)
        var result = ""
        for word in words {
            if result.count + word.count + 1 > summaryLength { return result + "…" }
            result += result.isEmpty ? String(word) : " " + word
        }
        return result
    }
}
