import Foundation
import LibraryArchive
import SampleServer
import TestSupport
import Testing
@testable import Site

/// `--enrich openlibrary` against the sample server's Open Library double, on loopback: what it
/// fills, what it marks, what it asks (and does not ask again), and each failure the double gives.
@Suite(.serialized)
struct OpenLibraryTests {
    static let epoch = ["SOURCE_DATE_EPOCH": "1764000000"]

    static func startServer(_ double: OpenLibraryDouble.Options = .init(), library: SampleLibrary? = nil, port: Int = 0) async throws -> RunningSampleServer {
        var options = SampleServer.Options()
        options.loginDelay = .zero
        options.openLibrary = double
        return try await SampleServer(library: try library ?? SampleLibrary.bundled(), options: options).start(port: port)
    }

    static func export(_ server: RunningSampleServer, to output: URL, interval: Int = 0, extra: [String] = []) async throws -> ToolRun {
        try await EndToEndTests.export(server, to: output, extra: ["--enrich", "openlibrary", "--openlibrary-url", server.url + "/openlibrary",
                                                                    "--openlibrary-interval-ms", String(interval), "--contact", "tests@example.org"] + extra,
                                       environment: epoch)
    }

    static func books(_ output: URL) throws -> [Int: [String: Any]] {
        let data = try #require(SiteInspector(root: output).data("library.json"))
        let library = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let books = try #require(library["books"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: books.map { ($0["id"] as! Int, $0) })
    }

    static func problems(_ output: URL) throws -> [[String: Any]] {
        let data = try #require(SiteInspector(root: output).data("library.json"))
        return try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["problems"] as? [[String: Any]])
    }

    static func isbn13(_ book: SampleLibrary.Book) -> String? {
        switch book.isbn {
        case .string(let isbn): return ISBN.forms(isbn).isbn13
        case .number(let isbn): return ISBN.forms(String(isbn)).isbn13
        case .null: return nil
        }
    }

    @Test func fillsWhatTheServerLacksMarksItAndAsksNothingTheNextNight() async throws {
        let server = try await Self.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        let first = try await Self.export(server, to: output)
        #expect(first.status == 2, "\(first.output)")
        let asked = server.server.openLibraryCounters
        let sample = try SampleLibrary.bundled()
        let isbns = Set(sample.books.compactMap(Self.isbn13))
        // Batched (25 ISBNs a request), every ISBN once.
        #expect(asked.apiRequests == (isbns.count + 24) / 25)
        #expect(asked.isbnsAsked == isbns.count)

        let books = try Self.books(output)
        // Leaves of Grass (124) and Northanger Abbey (129) have no cover on the server: Open Library's,
        // marked as such, with thumbnails like any cover.
        for id in [124, 129] {
            let cover = try #require(books[id]?["cover"] as? [String: Any], "book \(id) has no cover")
            #expect(cover["source"] as? String == "openlibrary")
            #expect((cover["thumbnails"] as? [[String: Any]])?.count == ThumbnailBox.all.count)
            let path = try #require(cover["path"] as? String)
            #expect(SiteInspector(root: output).data(path).map { ImageFormat(sniffing: $0) } == .jpeg)
        }
        // A server's cover is never replaced, nor its fields; Open Library's are apart, and marked.
        let pride = try #require(books[101])
        #expect((pride["cover"] as? [String: Any])?["source"] == nil)
        let found = try #require(pride["open_library"] as? [String: Any])
        let publisher = try #require(found["publisher"] as? String)
        let year = try #require(found["year"] as? Int), pages = try #require(found["pages"] as? Int)
        let subjects = try #require(found["subjects"] as? [String])
        #expect(!subjects.isEmpty && (1850...2020).contains(year) && pages > 0)
        #expect(pride["title"] as? String == "Pride and Prejudice")

        let site = SiteInspector(root: output)
        let files = site.files()
        let page = try #require(files.first { $0.hasPrefix("books/101-") }.flatMap(site.text))
        #expect(page.contains("From Open Library"))
        #expect(page.contains(publisher.replacingOccurrences(of: "'", with: "&#39;")))
        let markdown = try #require(files.first { $0.hasPrefix("markdown/books/101-") }.flatMap(site.text))
        #expect(markdown.contains("open_library:\n  publisher: \"\(publisher)\"\n  year: \(year)\n  pages: \(pages)\n"), "\(markdown)")
        let leaves = try #require(files.first { $0.hasPrefix("markdown/books/124-") }.flatMap(site.text))
        #expect(leaves.contains("cover_source: openlibrary"))
        let csv = try #require(site.text("library.csv"))
        let row = try #require(csv.split(separator: "\r\n").first { $0.hasPrefix("101,") })
        #expect(row.contains(",\(pages),\(year),"), "\(row)")
        #expect(row.contains(publisher.contains(",") ? "\"\(publisher)\"" : publisher))
        let stats = try #require(site.text("stats.html"))
        #expect(stats.contains("Top subjects"))
        #expect(stats.contains(subjects[0].replacingOccurrences(of: "'", with: "&#39;")))
        // The subjects' words are in the search's terms.
        let shards = files.filter { $0.hasPrefix("assets/search/t-") }.compactMap(site.text)
        for term in SearchIndex.words(subjects.joined(separator: " ")) {
            #expect(shards.contains { $0.contains("\"\(term)\":") }, "\(term)")
        }

        // The next night: nothing changed, and Open Library is asked nothing.
        let second = try await Self.export(server, to: output)
        #expect(second.status == 2, "\(second.output)")
        #expect(second.output.contains("No changes"), "\(second.output)")
        #expect(server.server.openLibraryCounters == asked)
        await server.stop()

        // Off by default: a run without --enrich leaves Open Library out, and says so in no file.
        let plain = try await startPlainAndExport(to: folder.path("plain"))
        #expect(plain.status == 2)
        let plainBooks = try Self.books(folder.path("plain"))
        #expect(plainBooks.values.allSatisfy { $0["open_library"] == nil })
        #expect(plainBooks[124]?["cover"] == nil)
    }

    func startPlainAndExport(to output: URL) async throws -> ToolRun {
        let server = try await Self.startServer()
        let run = try await EndToEndTests.export(server, to: output, environment: Self.epoch)
        #expect(server.server.openLibraryCounters.requests == 0)
        await server.stop()
        return run
    }

    /// The double's failures, one book each: the rest of the library is enriched all the same.
    @Test func eachFailureCostsOnlyItsBook() async throws {
        let sample = try SampleLibrary.bundled()
        func isbn(_ id: Int) throws -> String { try #require(sample.book(id: id).flatMap(Self.isbn13)) }
        // Books without a server cover for the cover cases: give five more books no cover.
        var library = sample
        let coverless = [124, 129, 101, 102, 103]
        for id in coverless { library.updateBook(id: id) { $0.cover = nil } }
        // Dracula, coverless too, shares Frankenstein's ISBN (one edition entered twice): one cover, two books.
        let shared = try #require(sample.book(id: 103)?.isbn)
        library.updateBook(id: 104) { $0.cover = nil; $0.isbn = shared }
        var double = OpenLibraryDouble.Options()
        double.overrides = [try isbn(124): .notFound, try isbn(129): .found(cover: .missing), try isbn(101): .found(cover: .huge),
                            try isbn(102): .found(cover: .broken), try isbn(103): .found(cover: .bomb)]
        let server = try await Self.startServer(double, library: library)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        let run = try await Self.export(server, to: output, extra: ["--verbose"])
        #expect(run.status == 2, "\(run.output)")
        let books = try Self.books(output)
        // Not found: nothing added. Its answer is kept for a week.
        #expect(books[124]?["open_library"] == nil && books[124]?["cover"] == nil)
        let cache = try #require(SiteInspector(root: stateFolder(of: output)).data("openlibrary.json"))
        let kept = try #require((try JSONSerialization.jsonObject(with: cache) as? [String: Any])?["isbns"] as? [String: [String: Any]])
        let unknown = try #require(kept[try isbn(124)])
        #expect(unknown["found"] == nil)
        // The other four: the fields, no cover; each refused for its own reason.
        for id in [129, 101, 102, 103] {
            #expect(books[id]?["open_library"] != nil, "book \(id)")
            #expect(books[id]?["cover"] == nil, "book \(id)")
        }
        #expect(run.output.contains("Book 129: no cover from Open Library") && run.output.contains("HTTP 404"), "\(run.output)")
        // An image refused for what it is (too large, cut short, a decompression bomb) is a problem of the snapshot.
        for (id, reason) in [(101, "larger than"), (102, "not a readable image (it is cut short or corrupt)"), (103, "claims 60000 × 60000 pixels")] {
            #expect(run.output.contains("Book \(id): Open Library's cover refused: ") && run.output.contains(reason), "\(id): \(run.output)")
        }
        let problems = try Self.problems(output)
        for id in [101, 102, 103, 104] {
            #expect(problems.contains { $0["book_id"] as? Int == id && ($0["message"] as? String)?.hasPrefix("Open Library's cover: ") == true }, "\(id)")
        }
        #expect(server.server.openLibraryCounters.coverRequests == 4, "the shared cover asked for once")
        #expect(!problems.contains { $0["book_id"] as? Int == 129 && $0["kind"] as? String == "cover" })
        // The rest is enriched all the same.
        #expect(books[105]?["open_library"] != nil)
        // The next night asks for none of them again (a week for the unknown ISBN, a month for the covers).
        let asked = server.server.openLibraryCounters
        let again = try await Self.export(server, to: output)
        #expect(again.status == 2)
        #expect(again.output.contains("No changes"), "\(again.output)")
        #expect(server.server.openLibraryCounters == asked)
        #expect(try Self.problems(output).count == problems.count)
        await server.stop()
    }

    /// A double that wants a minute between requests refuses a run's second one: the run stops
    /// asking, says so, and publishes.
    @Test func askedTooSoonTheDoubleRefusesAndTheRunStopsAsking() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var slow = OpenLibraryDouble.Options()
        slow.minimumInterval = .seconds(60)
        let server = try await Self.startServer(slow)
        let run = try await Self.export(server, to: folder.path("out"))
        let asked = server.server.openLibraryCounters
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        #expect(asked.refused == 1 && asked.requests == 2, "\(asked)")
        #expect(run.output.contains("Open Library asked us to slow down"), "\(run.output)")
        #expect(FileManager.default.fileExists(atPath: folder.path("out/library.json").path))
    }

    /// 429 and 403 (every second request refused, whatever the clock) and slow answers: each run
    /// publishes what it has, the next goes on, and once done the snapshot is the one a double
    /// without faults gives.
    @Test func throttledAndSlowRunsEndAsACleanRunDoes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var faulty = OpenLibraryDouble.Options()
        faulty.refuseEvery = 2
        faulty.delay = .milliseconds(150)
        let server = try await Self.startServer(faulty)
        let output = folder.path("faulty")
        var runs = 0, throttled = 0
        while runs < 12 {
            let before = server.server.openLibraryCounters
            let run = try await Self.export(server, to: output)
            runs += 1
            #expect(run.status == 2, "\(run.output)")
            guard server.server.openLibraryCounters.refused > before.refused else { break }
            throttled += 1
            #expect(run.output.contains("Open Library asked us to slow down"), "\(run.output)")
        }
        let asked = server.server.openLibraryCounters
        await server.stop()
        #expect(throttled >= 2, "the double never said 429 or 403: the test tests nothing (\(asked))")
        #expect(asked.refused == throttled, "one refusal a run, then no more asking: \(asked)")
        #expect(runs < 12, "still throttled after 12 runs")

        // As many nights against a double without faults, at the same address (the server's is in
        // the pages): the Reader server's own failures are then as old in both.
        let clean = try await Self.startServer(port: server.port)
        for _ in 0..<runs {
            let run = try await Self.export(clean, to: folder.path("clean"))
            #expect(run.status == 2)
        }
        #expect(clean.server.openLibraryCounters.refused == 0)
        await clean.stop()
        let a = SiteInspector(root: folder.path("clean")), b = SiteInspector(root: output)
        // The change reports and the timelines differ (their nights did), and so do the offline
        // copy's list, which holds their versions, and its id.
        let reports: Set<String> = ["changes.json", "changes.html", "index.html", "markdown/index.md", "feed.xml", "offline.json", "offline-id.json",
                                    "timeline.json", "timeline.html", "markdown/timeline.md", "timeline.xml"]
        let files = a.files().filter { !$0.hasPrefix(".reader-snapshot/") && !reports.contains($0) }
        #expect(files == b.files().filter { !$0.hasPrefix(".reader-snapshot/") && !reports.contains($0) })
        for file in files where a.data(file) != b.data(file) {
            Issue.record("\(file) differs from the clean run's")
        }
    }

    /// A cover the server sends that claims 60,000 × 60,000 pixels is refused and listed as a problem.
    @Test func aServerCoverThatIsADecompressionBombIsAProblem() async throws {
        var library = try SampleLibrary.bundled()
        library.coverFiles["bomb.png"] = OpenLibraryDouble.bombImage
        library.updateBook(id: 101) { $0.cover = .disk(file: "bomb.png") }
        let server = try await Self.startServer(library: library)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let run = try await EndToEndTests.export(server, to: folder.path("out"), environment: Self.epoch)
        await server.stop()
        #expect(run.status == 2)
        #expect(run.output.contains("Book 101: cover not fetched") && run.output.contains("claims 60000 × 60000 pixels"), "\(run.output)")
        let data = try #require(SiteInspector(root: folder.path("out")).data("library.json"))
        let problems = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["problems"] as? [[String: Any]])
        // The snapshot says in words that the cover is missing; the run said why.
        #expect(problems.contains { $0["book_id"] as? Int == 101 && ($0["message"] as? String)?.hasPrefix("The cover could not be fetched") == true })
    }

    @Test func badOptionsAreRefusedClearly() async throws {
        for (arguments, message) in [(["--enrich", "goodreads"], "--enrich takes 'openlibrary'"),
                                     (["--contact", "me@example.org"], "go with --enrich openlibrary"),
                                     (["--enrich", "openlibrary"], "--enrich openlibrary needs --contact EMAIL"),
                                     (["--enrich", "openlibrary", "--contact", "not an address"], "--contact must be an e-mail address"),
                                     (["--enrich", "openlibrary", "--openlibrary-url", "file:///etc"], "--openlibrary-url must be an http or https URL")] {
            let run = try await ToolRunner.run(["export", "--server", "http://127.0.0.1:9", "--email", "a@b.c", "--output", "/tmp/x"] + arguments,
                                               environment: ["READER_PASSWORD": "x"])
            #expect(run.status == 64, "\(arguments): \(run.output)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
        let help = try await ToolRunner.run(["export", "--help"])
        #expect(help.stdout.contains("What leaves this machine"))
        #expect(help.stdout.contains("--no-thumbnails"))
    }

    /// `--lookup-online`: in Chromium, lookup.html asks the double about an ISBN the library lacks
    /// and lists the library's books by its author; an ISBN the library holds asks nothing.
    @Test func aLookupOnlineNamesTheAuthorAndTheLibrarysBooksByThem() async throws {
        guard BrowserCheck.isAvailable() else { return }
        let server = try await Self.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        let run = try await EndToEndTests.export(server, to: output, extra: ["--lookup-online", server.url + "/openlibrary"])
        #expect(run.status == 2, "\(run.output)")
        #expect(server.server.openLibraryCounters.apiRequests == 0, "the export itself asks Open Library nothing")
        let (status, checked) = try await BrowserCheck.run("check_lookup_online.py", [output.path, server.url + "/openlibrary"])
        let counters = server.server.openLibraryCounters
        await server.stop()
        #expect(status == 0 && checked.contains("lookup-online check: 1 passed, 0 failed"), "\(checked)")
        // The page asked once, for the ISBN the library lacks; the check's own questions aside.
        let askedHere = try #require(checked.split(separator: "\n").first { $0.hasPrefix("asked of Open Library here: ") }.flatMap { Int($0.split(separator: " ").last ?? "") })
        #expect(counters.apiRequests == askedHere + 1, "\(counters) \(checked)")
    }
}

