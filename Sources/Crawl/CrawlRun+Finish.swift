import Foundation
import LibraryArchive
import ReaderAPI
import SnapshotStore
import Support

extension CrawlRun {
    /// Once every request is answered: the covers only the end can ask for, the books not made yet,
    /// and the library in id order.
    func finish(generatedAt: String) async throws -> Crawler.Result {
        guard ledger.listing != nil else { throw CancellationError() }
        MemoryUsage.release()
        if let memory = MemoryUsage.summary() { logger.debug("After every request: \(memory)") }
        logTimings()
        ledger.finishFrame()
        noteFrame()
        // The parts of the frame the end needs: the rest (every book's shelf entry) goes with the ledger.
        let parts: (shelves: [Shelf], problems: [Problem], order: [Int], plan: Privacy.Plan?)
        if let frame = ledger.frame { parts = (frame.shelves, frame.problems, frame.order, frame.plan) } else { throw CancellationError() }
        guard let assembly else { throw CancellationError() }
        var (shelves, problems) = (parts.shelves, parts.problems)
        let (order, plan) = (parts.order, parts.plan)
        if ledger.wantCovers { try await fetchLateCovers(order: order) }

        let madeWhileCrawling = madeBooks.count
        let made = try await makeRemainingBooks(order: order, assembly: assembly, problems: &problems)
        let sharedEntries = madeBooks.sharedEntries
        let entries = madeBooks.entries(arrangedBy: made.places)
        logger.debug("Books made while crawling: \(madeWhileCrawling) of \(entries.count); \(madeBooks.copied) copied from the last snapshot as they were; \(sharedEntries) with its card")
        let pieces = madeBooks.pieces
        var addresses = madeBooks.addresses
        let retry = try retrySchedule()
        // What the books were made from is written: let it go before the next step.
        let reusedCount = ledger.reused.count
        let coversNotFetched = madeBooks.coversNotFetched.count
        ledger.letGoOfBooks()
        madeBooks = Crawler.MadeBooks(pieces: pieces)
        // Sorted once the ledger is let go, not beside it: the two were a night's peak (20 MB at 100,000 books).
        addresses = addresses.sorted()
        if let plan {
            let kept = Set(entries.indices.map { entries.id(at: $0) })
            crawler.privacy.finish(plan, dropped: Set(order).subtracting(kept), shelves: &shelves, problems: &problems)
        }
        MemoryUsage.release()
        if let memory = MemoryUsage.summary() { logger.debug("After assembling the books: \(memory)") }
        logger.info("Book details: \(made.read) read, \(reusedCount) unchanged, \(made.failed) failed")
        if ledger.wantCovers {
            // The covers the snapshot's books lack, each address once (two books may share one),
            // as the summary's "Covers:" line and its gaps count them.
            client.metrics.record { $0.coversFailed += coversNotFetched }
            // The run's summary says what the covers came to, in its words: one line, not two.
            logger.debug("Covers: \(coverFiles.count) files stored, \(coversNotFetched) failed")
        }
        problems.sort { ($0.kind.rawValue, $0.shelfID ?? 0, $0.bookID ?? 0) < ($1.kind.rawValue, $1.shelfID ?? 0, $1.bookID ?? 0) }
        sayHealed(last: crawler.last.problems, now: problems, books: Set(entries.indices.map { entries.id(at: $0) }))
        // Which server and account this is stays private (the state's `origin`); the catalog is
        // named by a digest of them, which says neither.
        let frame = Library(generatedAt: generatedAt, catalogID: SnapshotOrigin(server: client.server.description, userID: client.session?.userID).catalogID,
                              shelves: shelves, books: [], problems: Self.dated(problems, last: crawler.last.problems, today: RetrySchedule.day(crawler.last.retry.now)))
        return Crawler.Result(library: LibraryFile(frame: frame, entries: entries, pieces: pieces, ranges: made.ranges),
                              covers: ledger.wantCovers ? coverRecords : nil, madeWhileCrawling: madeWhileCrawling, sharedEntries: sharedEntries, retry: retry,
                              addresses: addresses)
    }

    /// A gap the last snapshot listed that is closed tonight is news, as a new one is.
    private func sayHealed(last: [Problem], now: [Problem], books: Set<Int>) {
        let open = Set(now.map(\.gapKey))
        var healed: [(what: String, line: String, since: String?)] = []
        for problem in last where !open.contains(problem.gapKey) {
            let since = problem.since.map { " (missing since \($0))" } ?? ""
            switch problem.kind {
            case .bookDetails:
                if let id = problem.bookID, books.contains(id) { healed.append(("books' details", "Book \(id): details fetched again\(since)", problem.since)) }
            case .cover:
                if let id = problem.bookID, books.contains(id) { healed.append(("covers", "Book \(id): cover fetched again\(since)", problem.since)) }
            case .shelfDetails:
                if let id = problem.shelfID { healed.append(("shelves' pages", "Shelf \(id): its page was fetched again\(since)", problem.since)) }
            }
        }
        for what in ["books' details", "covers", "shelves' pages"] {
            let lines = healed.filter { $0.what == what }
            for line in Self.healedLines(lines.map { ($0.line, $0.since) }, what: what) {
                if line.summary { logger.warning("\(line.text)") } else { logger.debug("\(line.text)") }
            }
        }
    }

    /// What healed gaps of one kind are told as: each in a line of its own when they are a few, and
    /// one line for many (an outage healed is one event; its books under `--verbose`).
    static func healedLines(_ healed: [(line: String, since: String?)], what: String) -> [(text: String, summary: Bool)] {
        guard healed.count > 3 else { return healed.map { ($0.line, true) } }
        let days = Set(healed.compactMap(\.since)).sorted()
        let since = switch days.count {
        case 0: ""
        case 1: "; they had been missing since \(days[0])"
        default: "; they had been missing since \(days[0]) at the earliest"
        }
        return [("\(healed.count) \(what) fetched again\(since)", true)] + healed.map { ($0.line, false) }
    }

    /// Each gap with the day it first happened, from the last snapshot's same gap (or today), and
    /// the words a visitor reads: a night that changes nothing on the server changes no text.
    static func dated(_ problems: [Problem], last: [Problem], today: String) -> [Problem] {
        var firstDays: [String: String] = [:]
        for problem in last { if let since = problem.since { firstDays[problem.gapKey] = since } }
        return problems.map { problem in
            var dated = problem
            dated.since = firstDays[problem.gapKey] ?? today
            dated.message = Problem.words(problem.kind, since: dated.since, kept: problem.kept == true)
            return dated
        }
    }

    /// This run's failures, counted on from the last runs'; what waited its turn keeps its entry,
    /// and what came this time is dropped.
    private func retrySchedule() throws -> RetrySchedule {
        let (earlier, now) = (crawler.last.retry.schedule, crawler.last.retry.now)
        var schedule = RetrySchedule()
        for (id, error) in ledger.detailFailures {
            if ledger.detailsWaiting.contains(id) {
                schedule.details[String(id)] = earlier.details[String(id)]
                continue
            }
            let updatedAt = try ledger.listed[id].flatMap { try JSONDecoder().decode([String: JSONValue].self, from: spill.read($0.fields))["updated_at"]?.text }
            schedule.detailsFailed(id, message: error.what, updatedAt: updatedAt, now: now, earlier: earlier)
        }
        for (url, problem) in ledger.coverFailures {
            if ledger.coversWaiting.contains(url) {
                schedule.covers[url] = earlier.covers[url]
            } else if coversFailedAsked.contains(url) {
                schedule.coverFailed(url, message: problem.message, now: now, earlier: earlier)
            }
        }
        if !ledger.detailsWaiting.isEmpty || !ledger.coversWaiting.isEmpty {
            logger.info("Not asked again yet (they failed in the last runs; --full asks for them): \(ledger.detailsWaiting.count) books' details, \(ledger.coversWaiting.count) covers")
        }
        return schedule
    }

    /// Covers of books whose details failed are known only from the list and the shelves: those
    /// none could be asked for during the crawl are fetched last, before the books are made.
    private func fetchLateCovers(order: [Int]) async throws {
        var late = Set<String>()
        for id in order where !ledger.hasDetails(id) && !madeBooks.isSettled(id) {
            if let url = try ledger.coverWithoutDetails(id, coverAddress: coverAddress), !ledger.coverKnown(url) { late.insert(url) }
        }
        let urls = late.sorted()
        guard !urls.isEmpty else { return }
        let fetcher = self.fetcher
        let results = try await concurrentMap(urls, limit: scheduler.level.limit) { url in
            let fetched = await fetcher.fetch(url)
            guard case .success(let record) = fetched.result, fetcher.needsThumbnails(record) else { return (fetched.result, fetched.line) }
            return (await fetcher.addThumbnails(record, place: fetcher.describe(url)), Data?.none)
        }
        for (url, result) in zip(urls, results) { try coverCame(url, result.0, line: result.1) }
    }

    /// The books not made yet (their details failed, or they waited for something) are made on
    /// every core (from the worker thread: the threads answers resume on are the network's), and
    /// every book takes its place in id order.
    private func makeRemainingBooks(order: [Int], assembly: Crawler.Assembly, problems: inout [Problem]) async throws
        -> (places: [Int], ranges: [Range<Int>], read: Int, failed: Int) {
        var places: [Int] = [], ranges: [Range<Int>] = []
        var read = 0, failed = 0
        let detailWarnings = WarningLimiter(logger: logger, what: "books without details")
        let coverWarnings = WarningLimiter(logger: logger, what: "books whose cover was not fetched")
        let known = crawler.last.knownGaps
        let batchSize = 512
        // The network is done: its rate would only fall from here.
        crawler.live?.unwatch()
        crawler.live?.begin("Making books", total: order.count)
        for start in stride(from: 0, to: order.count, by: batchSize) {
            let batch = order[start..<min(order.count, start + batchSize)]
            defer { crawler.live?.step(by: batch.count) }
            let sources = batch.filter { !madeBooks.isSettled($0) }.map(ledger.sources)
            let late = try await worker.run { try assembly.make(sources) }
            var nextLate = 0
            for id in batch {
                if !madeBooks.isSettled(id) {
                    defer { nextLate += 1 }
                    guard let made = late[nextLate] else {
                        madeBooks.leaveOut(id)
                        continue
                    }
                    switch made.details {
                    case .read, .reused: break
                    case .failed(let error):
                        failed += 1
                        detailWarnings.warn("Book \(id): details could not be read: \(error)\(made.keptFromLast ? " (kept as the last snapshot had it)" : "")",
                                            news: !known.contains(Problem.gapKey(.bookDetails, bookID: id)))
                        problems.append(Problem(kind: .bookDetails, bookID: id, message: error.description, kept: made.keptFromLast ? true : nil))
                    case .missing: failed += 1
                    }
                    try madeBooks.add(made, id: id, coverProblem: made.coverMissing.flatMap { ledger.coverFailures[$0] })
                }
                guard let book = madeBooks[id] else { continue }
                if book.read { read += 1 }
                if let problem = book.coverProblem {
                    coverWarnings.warn("Book \(id): cover not fetched: \(problem)",
                                       news: !known.contains(Problem.gapKey(.cover, bookID: id)))
                    problems.append(Problem(kind: .cover, bookID: id, message: problem.message))
                }
                ranges.append(book.entry)
                places.append(book.place)
            }
            // The workers' freed pieces, back to the system every few thousand books.
            if start / batchSize % 4 == 3 { MemoryUsage.release() }
        }
        detailWarnings.finish()
        coverWarnings.finish()
        return (places, ranges, read, failed)
    }
}
