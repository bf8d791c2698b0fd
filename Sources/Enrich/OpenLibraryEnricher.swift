import AsyncHTTPClient
import Crawl
import Foundation
import LibraryArchive
import Logging
import ReaderAPI
import SnapshotStore
import Support
import Thumbnails

/// `--enrich openlibrary`: for books with an ISBN, what the server does not have — a cover, the
/// publisher, the year, the pages, the subjects — from Open Library, marked as its. Never replaces
/// what the server gave. Asked in batches, at most one request a second, and not at all for the
/// rest of the run once Open Library says 403 or 429: what is there is published, the next run
/// goes on. Answers are kept (`OpenLibraryCache`), so a night with nothing new asks nothing.
package struct OpenLibraryEnricher: Sendable {
    package var options: OpenLibraryOptions
    package var logger: Logger
    /// This run's date (seconds since 1970), against which the kept answers' age is weighed.
    package var now: Int
    /// Fetch covers for books the server has none for (not with `--no-covers`).
    package var wantsCovers: Bool

    package init(options: OpenLibraryOptions, logger: Logger, now: Int, wantsCovers: Bool) {
        self.options = options
        self.logger = logger
        self.now = now
        self.wantsCovers = wantsCovers
    }

    /// What a run of it did, for the summary and the tests.
    package struct Report: Sendable, Equatable {
        package var isbns = 0
        package var asked = 0
        package var requests = 0
        package var found = 0
        package var notFound = 0
        package var booksEnriched = 0
        package var coversFetched = 0
        package var coversReused = 0
        package var coversMissing = 0
        /// Open Library said 403 or 429, or could not be reached: the rest waits for the next run.
        package var stopped: String?
    }

    /// The Open Library covers' fetcher: the crawl's checks and thumbnails, Open Library's pace.
    package func coverFetcher(client: ReaderClient, writer: SnapshotWriter, previous: CoverRecords?, thumbnails: Thumbnailer?, pace: Pace) -> CoverFetcher {
        CoverFetcher(client: client, writer: writer, previous: previous, thumbnails: thumbnails,
                     origin: CoverOrigin(base: options.covers, userAgent: options.userAgent, pace: pace))
    }

    /// Adds what Open Library knows to the catalog's books, and keeps its answers in `cache`.
    package func enrich(_ catalog: Catalog, cache: inout OpenLibraryCache, http: HTTPClient, redactor: Redactor,
                        covers: CoverFetcher?, records: CoverRecords?, pace: Pace) async throws -> Report {
        var report = Report()
        var isbnAt: [(place: Int, isbn: String)] = []
        for place in catalog.cards.indices {
            if let isbn = ISBN.forms(catalog.cards[place].isbn).isbn13 { isbnAt.append((place, isbn)) }
        }
        let isbns = Set(isbnAt.map(\.isbn)).sorted()
        report.isbns = isbns.count
        let toAsk = isbns.filter { !cache.isFresh($0, now: now) }
        let client = OpenLibraryClient(http: http, options: options, pace: pace, redactor: redactor)
        for start in stride(from: 0, to: toAsk.count, by: options.batchSize) {
            let batch = Array(toAsk[start..<min(toAsk.count, start + options.batchSize)])
            report.requests += 1
            switch await client.editions(batch) {
            case .success(let editions):
                report.asked += batch.count
                for isbn in batch {
                    if let edition = editions[isbn] {
                        cache.isbns[isbn] = .init(checked: now, found: edition.found)
                    } else if !editions.isEmpty || batch.count == 1 {
                        // A batch answered `{}` may have failed inside: its ISBNs are asked again next time.
                        cache.isbns[isbn] = .init(checked: now, found: nil)
                    }
                }
            case .failure(let problem):
                report.stopped = problem.description
            }
            if report.stopped != nil { break }
        }
        for isbn in isbns {
            if cache.isbns[isbn]?.found != nil { report.found += 1 } else if cache.isbns[isbn] != nil { report.notFound += 1 }
        }

        // Each book whose ISBN Open Library knows, in the library's order.
        var fetched: [String: Result<CoverRecord, CoverProblem>] = [:]
        for (place, isbn) in isbnAt {
            guard let found = cache.isbns[isbn]?.found else { continue }
            let old = try catalog.book(at: place)
            var book = old
            book.openLibrary = Self.fieldsTheServerLacks(found.fields, server: book.serverFields)
            if wantsCovers, let covers, let records, let id = found.coverID, (book.imageURL ?? "").trimmingCharacters(in: .whitespaces).isEmpty {
                let url = Self.coverURL(id, base: options.covers)
                // A cover that could not be had is asked for again with its ISBN, in a month.
                if cache.isbns[isbn]?.coverFailed != nil { report.coversMissing += 1 }
                if fetched[url] == nil, cache.isbns[isbn]?.coverFailed == nil, report.stopped == nil || covers.hasKept(url) {
                    let result = await covers.fetch(url)
                    fetched[url] = result.result
                    switch result.result {
                    case .success(let record):
                        try records.set(record, for: url, line: result.line)
                        if result.requests == 0 { report.coversReused += 1 } else { report.coversFetched += 1 }
                    case .failure(let problem):
                        report.coversMissing += 1
                        if problem.throttled {
                            report.stopped = "Open Library asked us to slow down (\(problem.message))"
                        } else {
                            cache.isbns[isbn]?.coverFailed = problem.message
                            logger.info("Book \(book.id): no cover from Open Library: \(problem.message)")
                        }
                    }
                }
                if case .success(let record) = fetched[url] {
                    book.cover = record.file
                    book.cover?.source = .openLibrary
                }
            }
            if book != old {
                report.booksEnriched += 1
                try catalog.replace(at: place, with: book)
            }
        }
        if let stopped = report.stopped {
            logger.warning("\(stopped): nothing more is asked of it this run; the next run goes on")
        }
        logger.info("Open Library: \(report.found) of \(report.isbns) ISBNs known (\(report.asked) asked in \(report.requests) requests), \(report.booksEnriched) books enriched, covers: \(report.coversFetched) fetched, \(report.coversReused) kept, \(report.coversMissing) not found")
        return report
    }

    /// Open Library's covers by id are not rate-limited; `default=false` makes a missing one a 404
    /// rather than a blank image.
    static func coverURL(_ id: Int, base: URL) -> String {
        base.appendingPathComponent("b/id/\(id)-L.jpg").absoluteString + "?default=false"
    }

    /// Open Library's fields, less those the server gave itself (a server that keeps a publisher
    /// or a page count is believed); nil when nothing is left.
    static func fieldsTheServerLacks(_ fields: OpenLibraryFields, server: [String: JSONValue]) -> OpenLibraryFields? {
        func given(_ names: String...) -> Bool {
            names.contains { name in server[name].map { $0 != .null && $0 != .string("") } ?? false }
        }
        var kept = fields
        if given("publisher", "publishers") { kept.publisher = nil }
        if given("publish_date", "published_year", "year", "publication_year") { kept.year = nil }
        if given("number_of_pages", "pages", "page_count") { kept.pages = nil }
        if given("subjects", "genres") { kept.subjects = [] }
        return kept.isEmpty ? nil : kept
    }
}
