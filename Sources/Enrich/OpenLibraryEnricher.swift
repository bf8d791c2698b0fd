import AsyncHTTPClient
import Covers
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

    /// Adds what Open Library knows to the library's books, and keeps its answers in `cache`.
    package func enrich(_ library: inout LibraryFile, cache: inout OpenLibraryCache, http: HTTPClient, redactor: Redactor,
                        covers: CoverFetcher?, records: CoverRecords?, pace: Pace, addresses: CoverAddresses = CoverAddresses()) async throws -> Report {
        var report = Report()
        // Each book with an ISBN, or with Open Library's data from the last snapshot (kept by the crawl).
        var candidates: [(place: Int, isbn: String?)] = []
        for place in library.entries.indices {
            let card = library.entries[place]
            let isbn = ISBN.forms(card.isbn).isbn13
            if isbn != nil || card.openLibrary != nil || card.cover?.fromOpenLibrary == true { candidates.append((place, isbn)) }
        }
        let isbns = Set(candidates.compactMap(\.isbn)).sorted()
        report.isbns = isbns.count
        // What the library no longer holds is not kept (a shelf left out, a book deleted).
        cache.isbns = cache.isbns.filter { isbns.contains($0.key) }
        try await ask(isbns.filter { !cache.isFresh($0, now: now) }, cache: &cache, client: OpenLibraryClient(http: http, options: options, pace: pace, redactor: redactor), report: &report)
        for isbn in isbns {
            if cache.isbns[isbn]?.found != nil { report.found += 1 } else if cache.isbns[isbn] != nil { report.notFound += 1 }
        }

        // What each of them should hold now, in the library's order.
        var fetched: [String: Result<CoverRecord, CoverProblem>] = [:]
        for (place, isbn) in candidates {
            let entry = isbn.flatMap { cache.isbns[$0] }
            let card = library.entries[place]
            guard entry?.found != nil || card.openLibrary != nil || card.cover?.fromOpenLibrary == true else { continue }
            let old = try library.book(at: place)
            var book = old
            // The server's cover addresses are the crawl's (library.json does not hold them).
            let noServerCover = (addresses[book.id] ?? book.imageURL ?? "").trimmingCharacters(in: .whitespaces).isEmpty
            guard let entry else {
                if isbn == nil {
                    // The book has no ISBN now: nothing of Open Library's stays.
                    book.openLibrary = nil
                    if book.cover?.source == .openLibrary { book.cover = nil }
                } else if let kept = book.cover, kept.source == .openLibrary, !(wantsCovers && noServerCover && covers?.keep(kept) == true) {
                    // No answer kept for its ISBN (a lost cache, Open Library unasked this run): what
                    // the last snapshot had stands, its cover too where its files are there to link.
                    book.cover = nil
                }
                if book != old { try library.replace(at: place, with: book) }
                continue
            }
            book.openLibrary = entry.found.flatMap { Self.fieldsTheServerLacks($0.fields, server: book.serverFields) }
            if noServerCover {
                // The server has no cover: Open Library's, if it has one and it could be had this run.
                book.cover = nil
                if wantsCovers, let covers, let records, let isbn, let id = entry.found?.coverID {
                    book.cover = try await openLibraryCover(id, isbn: isbn, book: book.id, entry: entry, covers: covers, records: records,
                                                            fetched: &fetched, cache: &cache, problems: &library.frame.problems, report: &report)
                }
            }
            if book != old {
                report.booksEnriched += 1
                try library.replace(at: place, with: book)
            }
        }
        library.frame.problems.sort { ($0.kind.rawValue, $0.shelfID ?? 0, $0.bookID ?? 0) < ($1.kind.rawValue, $1.shelfID ?? 0, $1.bookID ?? 0) }
        if let stopped = report.stopped {
            logger.warning("\(stopped): nothing more is asked of it this run; the next run goes on")
        }
        logger.info("Open Library: \(report.found) of \(report.isbns) ISBNs known (\(report.asked) asked in \(report.requests) requests), \(report.booksEnriched) books enriched, covers: \(report.coversFetched) fetched, \(report.coversReused) kept, \(report.coversMissing) not found")
        return report
    }

    /// Open Library's cover `id` for a book the server has no cover for, fetched once a run for every
    /// book that names it; nil when it could not be had this run (and why is told once).
    private func openLibraryCover(_ id: Int, isbn: String, book: Int, entry: OpenLibraryCache.Entry, covers: CoverFetcher, records: CoverRecords,
                                  fetched: inout [String: Result<CoverRecord, CoverProblem>], cache: inout OpenLibraryCache,
                                  problems: inout [Problem], report: inout Report) async throws -> CoverFile? {
        let url = Self.coverURL(id, base: options.covers)
        // A cover that could not be had is not asked for again while its answer is kept, for any
        // book that names it.
        if fetched[url] == nil, let failed = entry.coverFailed {
            fetched[url] = .failure(CoverProblem(message: failed, lasting: true, refusedImage: entry.coverRefused == true))
        }
        var fetchedNow = false
        if fetched[url] == nil, report.stopped == nil || covers.hasKept(url) {
            let result = await covers.fetch(url)
            fetched[url] = result.result
            fetchedNow = true
            if case .success(let record) = result.result {
                try records.set(record, for: url, line: result.line)
                if result.requests == 0 { report.coversReused += 1 } else { report.coversFetched += 1 }
            }
        }
        switch fetched[url] {
        case .success(let record)?:
            var cover = record.file
            cover.source = .openLibrary
            return cover
        case .failure(let problem)? where problem.throttled:
            report.stopped = "Open Library asked us to slow down (\(problem.message))"
        case .failure(let problem)? where problem.lasting:
            // A 404, or an image refused: asked for again with its ISBN, in a month.
            report.coversMissing += 1
            cache.isbns[isbn]?.coverFailed = problem.message
            cache.isbns[isbn]?.coverRefused = problem.refusedImage
            if problem.refusedImage {
                if fetchedNow { logger.warning("Book \(book): Open Library's cover refused: \(problem.message)") }
                problems.append(Problem(kind: .cover, bookID: book, message: "Open Library's cover: \(problem.message)"))
            } else if fetchedNow {
                logger.info("Book \(book): no cover from Open Library: \(problem.message)")
            }
        case .failure(let problem)?:
            report.coversMissing += 1
            if fetchedNow { logger.info("Book \(book): no cover from Open Library this time: \(problem.message)") }
        case nil:
            break
        }
        return nil
    }

    /// Asks the Books API for `isbns`, 25 a request, until Open Library says no more.
    private func ask(_ isbns: [String], cache: inout OpenLibraryCache, client: OpenLibraryClient, report: inout Report) async throws {
        for start in stride(from: 0, to: isbns.count, by: options.batchSize) {
            guard report.stopped == nil else { return }
            let batch = Array(isbns[start..<min(isbns.count, start + options.batchSize)])
            try await askBatch(batch, cache: &cache, client: client, report: &report)
        }
    }

    private func askBatch(_ batch: [String], cache: inout OpenLibraryCache, client: OpenLibraryClient, report: inout Report) async throws {
        report.requests += 1
        switch await client.editions(batch) {
        case .success(let editions):
            if editions.isEmpty && batch.count > 1 && !batch.allSatisfy({ cache.isbns[$0].map { $0.found == nil } ?? false }) {
                // Open Library answers `{}` to a batch that failed inside as to one it knows none
                // of: each is asked alone (ISBNs it did not know last time are taken at their word).
                for isbn in batch {
                    guard report.stopped == nil else { return }
                    try await askBatch([isbn], cache: &cache, client: client, report: &report)
                }
                return
            }
            report.asked += batch.count
            for isbn in batch {
                cache.isbns[isbn] = .init(checked: now, found: editions[isbn]?.found)
            }
        case .failure(let problem):
            report.stopped = problem.description
        }
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
