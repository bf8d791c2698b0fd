import Foundation
import SampleServer
import TestSupport
import Testing
@testable import LibraryArchive
@testable import Site
@testable import SnapshotStore
import Thumbnails

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

    static func readFeeds(_ snapshot: URL) async throws -> [String: Feed] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("opds/read_feeds.py")
        let (status, output) = try await ToolRunner.runChecker("/usr/bin/env", ["python3", script.path, snapshot.path])
        try #require(status == 0, "feedparser is missing (`make test` installs it), or the script failed:\n\(output)")
        return try JSONDecoder().decode([String: Feed].self, from: Data(output.utf8))
    }

    /// jing (Debian's) with the OPDS 1.2 schema: its status and what it said, less its start-up warnings.
    static func validate(_ files: [URL]) async throws -> (Int32, String) {
        let (status, output) = try await ToolRunner.runChecker("/usr/bin/env", ["jing", "-c", Schemas.opds12.path] + files.map(\.path))
        return (status, output.split(separator: "\n").filter { !$0.hasPrefix("[warning]") }.joined(separator: "\n"))
    }

    /// The OPDS 2.0 JSON Schemas, through `jsonschema` (Tests/opds/validate_opds2.py).
    static func validateJSON(_ files: [URL]) async throws -> (Int32, String) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("opds/validate_opds2.py")
        return try await ToolRunner.runChecker("/usr/bin/env", ["python3", script.path, Schemas.opds20.path] + files.map(\.path))
    }

    /// An OPDS 2.0 feed, as a client reads it.
    struct JSONFeed: Decodable {
        struct Link: Decodable {
            var href: String
            var type: String?
            var rel: [String]
            var title: String?
            var width: Int?
            var height: Int?
            private enum Keys: String, CodingKey { case href, type, rel, title, width, height }
            init(from decoder: Decoder) throws {
                let container = try decoder.container(keyedBy: Keys.self)
                href = try container.decode(String.self, forKey: .href)
                type = try container.decodeIfPresent(String.self, forKey: .type)
                title = try container.decodeIfPresent(String.self, forKey: .title)
                width = try container.decodeIfPresent(Int.self, forKey: .width)
                height = try container.decodeIfPresent(Int.self, forKey: .height)
                if let one = try? container.decodeIfPresent(String.self, forKey: .rel) { rel = [one] } else {
                    rel = try container.decodeIfPresent([String].self, forKey: .rel) ?? []
                }
            }
        }
        struct Metadata: Decodable {
            var title: String
            var identifier: String?
            var author: String?
            var description: String?
            var numberOfItems: Int?
            var subject: [Subject]?
        }
        struct Subject: Decodable { var name: String }
        struct Publication: Decodable { var metadata: Metadata; var links: [Link]; var images: [Link]? }
        struct Facet: Decodable { var metadata: Metadata; var links: [Link] }
        var metadata: Metadata
        var links: [Link]
        var navigation: [Link]?
        var publications: [Publication]?
        var facets: [Facet]?

        func link(_ rel: String) -> Link? { links.first { $0.rel.contains(rel) } }
    }

    static func readJSONFeed(_ path: String, in snapshot: URL) throws -> JSONFeed {
        try JSONDecoder().decode(JSONFeed.self, from: Data(contentsOf: snapshot.appendingPathComponent(path)))
    }

    /// A link from the feed at `feed` (relative to the snapshot), resolved as a client would.
    static func resolve(_ href: String, from feed: String, in snapshot: URL) -> URL? {
        URL(string: href, relativeTo: snapshot.appendingPathComponent(feed))?.absoluteURL.standardizedFileURL
    }

    /// The sample server's library exported with every default output, into `folder`/out.
    static func exportSample(into folder: TemporaryFolder) async throws -> URL {
        let server = try await EndToEndTests.startServer()
        let output = folder.path("out")
        #expect(try await EndToEndTests.export(server, to: output).status == 2)
        await server.stop()
        return output
    }

    @Test(.enabled(if: Schemas.present, Comment(rawValue: Schemas.absent)))
    func everyFeedValidatesAgainstThePublishedSchemas() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = try await Self.exportSample(into: folder)
        let site = SiteInspector(root: output)
        let atom = site.files().filter { $0.hasPrefix("opds/") && $0.hasSuffix(".xml") }
        let json = site.files().filter { $0.hasPrefix("opds/") && $0.hasSuffix(".json") }
        #expect(atom.count > 10 && atom.count == json.count, "\(atom.count) and \(json.count)")

        let (status, said) = try await Self.validate(atom.map { output.appendingPathComponent($0) })
        #expect(status == 0, "\(said)")
        let (jsonStatus, jsonSaid) = try await Self.validateJSON(json.map { output.appendingPathComponent($0) })
        #expect(jsonStatus == 0, "\(jsonSaid)")
        // The validators do fail a feed that breaks the schema: an entry without its id, a
        // publication without a link, a date that is none.
        let broken = folder.path("broken.xml")
        try #require(site.text("opds/books.xml")).replacingOccurrences(of: "<id>tag:reader-snapshot,2024:127.0.0.1", with: "<rights>x</rights><!--")
            .replacingOccurrences(of: ":opds:book:101</id>", with: "-->").write(to: broken, atomically: true, encoding: .utf8)
        #expect(try await Self.validate([broken]).0 != 0)
        let books = try #require(site.text("opds/books.json"))
        for (from, to) in [(#""links":[{"href":"../books/"#, #""linkz":[{"href":"../books/"#), (#""modified":"20"#, #""modified":"x20"#)] {
            let brokenJSON = folder.path("broken.json")
            #expect(books.contains(from))
            try books.replacingOccurrences(of: from, with: to).write(to: brokenJSON, atomically: true, encoding: .utf8)
            #expect(try await Self.validateJSON([brokenJSON]).0 != 0, "\(to)")
        }
    }

    @Test func everyFeedReadsBackWithEveryLinkInPlace() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = try await Self.exportSample(into: folder)
        let site = SiteInspector(root: output)
        let feedFiles = site.files().filter { $0.hasPrefix("opds/") && $0.hasSuffix(".xml") }
        #expect(feedFiles.contains("opds/index.xml") && feedFiles.contains("opds/books.xml") && feedFiles.contains("opds/new.xml"))

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
        // The crawlable feed: the list of all books.
        #expect(feeds["opds/index.xml"]?.links.contains { $0.rel == "http://opds-spec.org/crawlable" && $0.href == "books.xml" } == true)

        // OPDS 2.0: each feed is the twin of a 1.2 feed, and they link each other.
        let jsonFiles = site.files().filter { $0.hasPrefix("opds/") && $0.hasSuffix(".json") }
        #expect(Set(jsonFiles.map { String($0.dropLast(5)) }) == Set(feedFiles.map { String($0.dropLast(4)) }))
        for path in jsonFiles {
            let feed = try Self.readJSONFeed(path, in: output)
            let here = output.appendingPathComponent(path).standardizedFileURL
            #expect(feed.link("self").flatMap { Self.resolve($0.href, from: path, in: output) } == here, "\(path)")
            let twin = try #require(feed.links.first { $0.rel == ["alternate"] && $0.type?.hasPrefix("application/atom+xml") == true }, "\(path)")
            let twinPath = String(path.dropLast(5)) + ".xml"
            #expect(Self.resolve(twin.href, from: path, in: output) == output.appendingPathComponent(twinPath).standardizedFileURL)
            #expect(feeds[twinPath]?.links.contains { $0.rel == "alternate" && $0.type == "application/opds+json"
                && Self.resolve($0.href, from: twinPath, in: output) == here } == true, "\(twinPath)")
            let every = feed.links + (feed.navigation ?? []) + (feed.facets ?? []).flatMap(\.links)
                + (feed.publications ?? []).flatMap { $0.links + ($0.images ?? []) }
            for link in every {
                let target = try #require(Self.resolve(link.href, from: path, in: output))
                #expect(FileManager.default.fileExists(atPath: target.path), "\(path): \(link.rel) \(link.href)")
            }
        }
        let allJSON = try Self.readJSONFeed("opds/books.json", in: output)
        let publications = try #require(allJSON.publications)
        #expect(publications.count == library.books.count && allJSON.metadata.numberOfItems == library.books.count)
        #expect(allJSON.facets?.first?.links.count == library.shelves.count)
        let draculaJSON = try #require(publications.first { $0.metadata.title == "Dracula" })
        #expect(draculaJSON.metadata.author == "Bram Stoker" && draculaJSON.metadata.identifier == "urn:isbn:9780486411095")
        #expect(draculaJSON.metadata.subject?.isEmpty == false && draculaJSON.metadata.description == dracula.summary)
        #expect(draculaJSON.links.contains { $0.type == "text/html" && $0.href == "../books/104-dracula.html" && $0.rel.contains("preview") })
        // The images' sizes are the files': the cover and its thumbnails.
        let images = try #require(draculaJSON.images)
        #expect(images.count == 3, "\(images.map(\.href))")
        for image in images {
            let file = try #require(Self.resolve(image.href, from: "opds/books.json", in: output))
            let size = try Thumbnailer.size(of: file).get()
            #expect(image.width == size.width && image.height == size.height, "\(image.href): \(size)")
        }
        for publication in publications {
            for image in publication.images ?? [] where image.width != nil {
                let size = try Thumbnailer.size(of: try #require(Self.resolve(image.href, from: "opds/books.json", in: output))).get()
                #expect(image.width == size.width && image.height == size.height, "\(image.href): \(size)")
            }
        }

        // The pages link the catalog and the shelves' feeds.
        #expect(try #require(site.text("index.html")).contains(#"href="opds/index.xml""#))
        #expect(try #require(site.text("index.html")).contains(#"type="application/opds+json" title="The catalog, for e-reader apps (OPDS 2.0)" href="opds/index.json""#))
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

        // OPDS 2.0, as a client walks it: from the root to all books, then page after page.
        let root = try Self.readJSONFeed("opds/index.json", in: output)
        let allBooks = try #require(root.navigation?.first { $0.title == "All books" })
        var jsonPath = try #require(Self.resolve(allBooks.href, from: "opds/index.json", in: output)).path
            .replacingOccurrences(of: output.standardizedFileURL.path + "/", with: "")
        var identifiers: [String] = [], jsonPages = 0
        while true {
            let feed = try Self.readJSONFeed(jsonPath, in: output)
            jsonPages += 1
            let publications = try #require(feed.publications, "\(jsonPath)")
            #expect(publications.count <= OPDSCatalog.entriesPerPage && feed.metadata.numberOfItems == 2_345)
            identifiers += publications.compactMap(\.metadata.identifier)
            #expect(feed.link("last")?.href == "books-24.json" && feed.link("first")?.href == "books.json")
            if jsonPages > 1 { #expect(feed.link("previous") != nil) }
            guard let next = feed.link("next") else { break }
            jsonPath = "opds/" + next.href
            try #require(jsonPages < 100)
        }
        #expect(jsonPages == 24)
        // Every book once: by its ISBN where it has one, else by its tag.
        #expect(identifiers.count == 2_345 && Set(identifiers).count == 2_345, "\(identifiers.count), \(Set(identifiers).count) distinct")
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
        if Schemas.present {
            let (status, said) = try await Self.validate(feeds)
            #expect(status == 0, "\(said)")
            let json = files.filter { $0.hasPrefix("opds/") && $0.hasSuffix(".json") }.map { folder.url.appendingPathComponent($0) }
            #expect(json.count == files.filter { $0.hasPrefix("opds/") && $0.hasSuffix(".xml") }.count)
            let (jsonStatus, jsonSaid) = try await Self.validateJSON(json)
            #expect(jsonStatus == 0, "\(jsonSaid)")
        }
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
