import AsyncHTTPClient
import Foundation
import Hummingbird
import LibraryArchive
import Logging
import NIOCore
import Support
import Synchronization
import Testing
@testable import Enrich

/// `--enrich openlibrary` against a Books API on loopback that records what it is asked: which
/// books' ISBNs are asked, and when; what of the answer goes into a book, and what never does.
@Suite struct OpenLibraryEnricherTests {
    static let now = 1_760_000_000
    static let day = 86_400
    static let known = "9780000000002", unknown = "9780000000003", mobyDick = "9780142437247"

    /// What the Books API was asked: each request's ISBNs, in the order it got them, and its headers.
    final class Requests: Sendable {
        struct Request: Sendable {
            var isbns: [String]
            var query: [String: String]
            var userAgent: String?
            var accept: String?
        }
        private let all = Mutex<[Request]>([])
        func record(_ request: Request) { all.withLock { $0.append(request) } }
        var list: [Request] { all.withLock { $0 } }
        var isbns: [[String]] { list.map(\.isbns) }
    }

    /// An edition in the `jscmd=data` shape, made from its ISBN: a test can tell whose it is.
    static func edition(_ isbn: String) -> String {
        #"{"key": "/books/OL\#(isbn.suffix(4))M", "publishers": [{"name": "Press \#(isbn.suffix(4))"}], "publish_date": "May 1851", "# +
        #""number_of_pages": 635, "subjects": [{"name": "Whaling"}, {"name": "Sea stories"}]}"#
    }

    /// The Books API: `answer` gives the status and body for the ISBNs of one request; by default,
    /// an edition for each ISBN but `unknown`.
    static func withBooksAPI<T: Sendable>(answer: (@Sendable ([String]) -> (HTTPResponse.Status, String))? = nil,
                                          _ body: @Sendable (URL, Requests) async throws -> T) async throws -> T {
        let answer = answer ?? { knownEditions($0) }
        let requests = Requests()
        let router = Router()
        router.get("/api/books") { request, _ -> Response in
            let query = Dictionary(request.uri.queryParameters.map { (String($0.key), String($0.value)) }) { $1 }
            let isbns = (query["bibkeys"] ?? "").split(separator: ",").map { String($0.dropFirst("ISBN:".count)) }
            requests.record(.init(isbns: isbns, query: query, userAgent: request.headers[.userAgent], accept: request.headers[.accept]))
            let (status, text) = answer(isbns)
            return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in
                                  continuation.yield(channel.localAddress?.port ?? 0)
                                  continuation.finish()
                              },
                              // Its starts and stops are not the test's output.
                              logger: Logger(label: "books-api") { _ in SwiftLogNoOpLogHandler() })
        let task = Task { try await app.run() }
        defer { task.cancel() }
        var port = 0
        for await value in ports { port = value }
        return try await body(URL(string: "http://127.0.0.1:\(port)")!, requests)
    }

    static func knownEditions(_ isbns: [String]) -> (HTTPResponse.Status, String) {
        (.ok, "{" + isbns.filter { $0 != unknown }.map { "\"ISBN:\($0)\": \(edition($0))" }.joined(separator: ", ") + "}")
    }

    static func enricher(_ api: URL, now: Int = now, batchSize: Int = 25) -> OpenLibraryEnricher {
        var options = OpenLibraryOptions()
        options.api = api
        options.batchSize = batchSize
        return OpenLibraryEnricher(options: options, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, now: now, wantsCovers: false)
    }

    /// One night's enrichment of `library`, without covers; the pace lets every request go at once.
    static func enrich(_ library: inout LibraryFile, cache: inout OpenLibraryCache, with enricher: OpenLibraryEnricher) async throws -> OpenLibraryEnricher.Report {
        try await enricher.enrich(&library, cache: &cache, http: HTTPClient.shared, redactor: Redactor(), covers: nil, records: nil,
                                  pace: Pace(interval: .zero))
    }

    static func library(_ books: [Book]) -> LibraryFile {
        LibraryFile(Library(generatedAt: "2025-10-09T03:00:00Z", shelves: [], books: books, problems: []))
    }

    @Test func eachISBNOfTheLibraryIsAskedOnceInBatchesAndOnlyThose() async throws {
        try await Self.withBooksAPI { api, requests in
            var library = Self.library([
                Book(id: 1, title: "Known", isbn: Self.known),
                Book(id: 2, title: "Unknown", isbn: "978-0-00-000000-3"),
                // An ISBN-10 is asked for as its ISBN-13, once for both books that have it.
                Book(id: 3, title: "Moby-Dick", isbn: "0-14-243724-7"),
                Book(id: 4, title: "Moby-Dick, again", isbn: Self.mobyDick),
                Book(id: 5, title: "No ISBN"),
                Book(id: 6, title: "Not an ISBN", isbn: "n/a"),
            ])
            var cache = OpenLibraryCache()
            // An answer kept for a book the library no longer holds goes.
            cache.isbns["9780000000099"] = .init(checked: Self.now, found: nil)
            let report = try await Self.enrich(&library, cache: &cache, with: Self.enricher(api, batchSize: 2))
            #expect(requests.isbns == [[Self.known, Self.unknown], [Self.mobyDick]])
            #expect(Set(cache.isbns.keys) == [Self.known, Self.unknown, Self.mobyDick])
            #expect(cache.isbns.values.allSatisfy { $0.checked == Self.now })
            #expect(cache.isbns[Self.unknown]?.found == nil && cache.isbns[Self.known]?.found != nil)
            #expect(report.isbns == 3 && report.asked == 3 && report.requests == 2 && report.found == 2 && report.notFound == 1, "\(report)")
            // Books 3 and 4 both have Moby-Dick's edition, the unknown ISBN's book nothing.
            #expect(try library.book(at: 2).openLibrary?.key == "/books/OL7247M" && library.book(at: 3).openLibrary?.key == "/books/OL7247M")
            #expect(try library.book(at: 1).openLibrary == nil && library.book(at: 4).openLibrary == nil)
            #expect(report.booksEnriched == 3)
        }
    }

    /// The kept answers decide the next nights: nothing is asked while they are fresh, an ISBN
    /// Open Library did not know is asked again after a week, one it knew after thirty days.
    @Test func anUnknownISBNIsNotAskedAgainForAWeekAndIsAfter() async throws {
        try await Self.withBooksAPI { api, requests in
            let books = [Book(id: 1, title: "Known", isbn: Self.known), Book(id: 2, title: "Unknown", isbn: Self.unknown)]
            var cache = OpenLibraryCache()
            func night(_ now: Int) async throws -> [String] {
                var library = Self.library(books)
                let before = requests.list.count
                _ = try await Self.enrich(&library, cache: &cache, with: Self.enricher(api, now: now))
                return requests.list.dropFirst(before).flatMap(\.isbns)
            }
            var asked: [[String]] = []
            for at in [0, 1, 7 * Self.day - 1, 7 * Self.day, 14 * Self.day - 1, 30 * Self.day - 1, 30 * Self.day] {
                asked.append(try await night(Self.now + at))
            }
            // The unknown ISBN is asked each week, the known one once its thirty days are up.
            #expect(asked == [[Self.known, Self.unknown], [], [], [Self.unknown], [], [Self.unknown], [Self.known]])
        }
    }

    @Test func openLibrarysFieldsGoWhereTheServerSaidNothingAndNeverOverTheServersOwn() async throws {
        try await Self.withBooksAPI { api, _ in
            let serverCover = CoverFile(path: "covers/" + String(repeating: "ab", count: 16) + ".jpg", format: .jpeg, bytes: 10,
                                        sha256: String(repeating: "ab", count: 32))
            let books = [
                Book(id: 1, title: "Nothing but an ISBN", isbn: Self.known),
                // The server's publisher, page count and genres are believed; an empty date is no date.
                Book(id: 2, title: "Typee", author: "Herman Melville", isbn: Self.mobyDick, imageURL: "https://reader.example/covers/2.jpg",
                     cover: serverCover, serverFields: ["publisher": .string("Wiley & Putnam"), "pages": .int(297),
                                                        "genres": .array([.string("Travel")]), "publish_date": .string("")]),
                // All four given: nothing of Open Library's is left to add.
                Book(id: 3, title: "Given all", isbn: "9780000000004",
                     serverFields: ["publishers": .string("Harper"), "year": .int(1851), "page_count": .int(635), "subjects": .array([])]),
                // An ISBN gone since the last snapshot: what Open Library said of it goes too.
                Book(id: 4, title: "ISBN removed", serverFields: ["publisher": .null],
                     openLibrary: OpenLibraryFields(key: "/books/OL9M", publisher: "Old Press")),
            ]
            var library = Self.library(books)
            var cache = OpenLibraryCache()
            let report = try await Self.enrich(&library, cache: &cache, with: Self.enricher(api))

            let all = try library.book(at: 0).openLibrary
            #expect(all == OpenLibraryFields(key: "/books/OL0002M", publisher: "Press 0002", year: 1851, pages: 635, subjects: ["Whaling", "Sea stories"]))
            let some = try library.book(at: 1).openLibrary
            #expect(some == OpenLibraryFields(key: "/books/OL7247M", publisher: nil, year: 1851, pages: nil, subjects: []))
            #expect(try library.book(at: 2).openLibrary == nil)
            #expect(try library.book(at: 3).openLibrary == nil)
            // The server's own fields and its cover are as they were, in every book.
            for (place, before) in books.enumerated() {
                var after = try library.book(at: place)
                after.openLibrary = before.openLibrary
                #expect(after == before.withoutPrivateFields || after == before, "book \(before.id) changed: \(after)")
            }
            #expect(try library.book(at: 1).cover == serverCover)
            #expect(report.booksEnriched == 2, "\(report)")
        }
    }

    /// Open Library answers `{}` to a batch that failed inside as to one of ISBNs it knows none of:
    /// each is then asked alone, unless all of them were unknown the last time too.
    @Test func anEmptyAnswerToABatchIsAskedAgainOneISBNAtATime() async throws {
        let isbns = [Self.known, "9780000000004", Self.mobyDick]
        try await Self.withBooksAPI(answer: { asked in asked.count > 1 ? (.ok, "{}") : Self.knownEditions(asked) }) { api, requests in
            var library = Self.library(isbns.enumerated().map { Book(id: $0.offset + 1, title: "Book", isbn: $0.element) })
            var cache = OpenLibraryCache()
            let report = try await Self.enrich(&library, cache: &cache, with: Self.enricher(api))
            #expect(requests.isbns == [isbns, [isbns[0]], [isbns[1]], [isbns[2]]])
            #expect(report.requests == 4 && report.asked == 3 && report.found == 3, "\(report)")

            // All three unknown when last asked, and stale: the empty answer is taken at its word.
            for isbn in isbns { cache.isbns[isbn] = .init(checked: Self.now - 8 * Self.day, found: nil) }
            let before = requests.list.count
            let again = try await Self.enrich(&library, cache: &cache, with: Self.enricher(api))
            #expect(requests.isbns.dropFirst(before).elementsEqual([isbns]))
            #expect(again.requests == 1 && again.notFound == 3, "\(again)")
        }
    }

    @Test(arguments: [HTTPResponse.Status.tooManyRequests, .forbidden])
    func openLibrarySayingSlowDownStopsTheAskingForTheRun(_ status: HTTPResponse.Status) async throws {
        try await Self.withBooksAPI(answer: { _ in (status, "{}") }) { api, requests in
            var library = Self.library([Self.known, Self.unknown, Self.mobyDick].enumerated().map { Book(id: $0.offset + 1, title: "Book", isbn: $0.element) })
            var cache = OpenLibraryCache()
            let report = try await Self.enrich(&library, cache: &cache, with: Self.enricher(api, batchSize: 1))
            #expect(requests.list.count == 1)
            #expect(report.stopped?.contains("slow down (HTTP \(status.code))") == true, "\(report)")
            // Nothing is kept of them: the next run asks again.
            #expect(cache.isbns.isEmpty)
        }
    }
}
