import Covers
import Foundation
import LibraryArchive
import Logging
import ReaderAPI
import SnapshotStore
import Support
import Thumbnails

/// One crawl's I/O: sends what the scheduler lets go, reads answers on a worker thread, makes
/// books beside the requests, and tells the ledger what came back. The decisions are the ledger's
/// and the scheduler's; this only carries them out.
final class CrawlRun {
    typealias Work = CrawlLedger.Work
    typealias Group = ThrowingTaskGroup<Finished, Error>

    /// What a task of the crawl gives back.
    enum Event: Sendable {
        /// A shelf's page as it came: read off the request's slot, like a book's details.
        case shelf(ShelfSummary, Result<Data, ReaderAPIError>)
        case shelfRead(ShelfSummary, Result<Crawler.ShelfPage, ReaderAPIError>)
        case books(Crawler.ListedBooks)
        case detail(Int, Result<Data, ReaderAPIError>)
        case detailRead(Int, Result<Crawler.ReadDetail, ReaderAPIError>)
        /// With the last run's line for the record when it is that one unchanged.
        case cover(String, Result<CoverRecord, CoverProblem>, line: Data?)
        /// A cover's thumbnails made, off the request's place.
        case thumbnailed(String, Result<CoverRecord, CoverProblem>, line: Data?)
        /// Books made while the crawl went on.
        case made([Int], [Crawler.Assembly.Made?])
        /// A book's share card drawn (or linked from the last snapshot), off the request's place.
        case cardDrawn
    }

    /// A task that came back: what happened, how long its request took, how many requests it
    /// made, and whether it was sent alone.
    struct Finished: Sendable {
        var event: Event
        var elapsed: Duration = .zero
        var requests = 0
        var alone = false
    }

    let crawler: Crawler
    /// The list of books, asked for beside the shelves (`Crawler.crawl`).
    let listing: Task<Handover<Data>, any Error>?
    let client: ReaderClient
    let fetcher: CoverFetcher
    let spill: SpillFile
    let coverRecords: CoverRecords
    /// Reads the answers and makes the books, off the threads the answers resume on.
    let worker = WorkerThread(name: "crawl worker")
    private var progress: ProgressLog
    /// How far the crawl got, for the message if the server stops answering: books whose details
    /// were read tonight, and how many the list named.
    private var detailsRead = 0
    private var booksListed: Int?
    private let started = ContinuousClock.now

    var ledger: CrawlLedger
    var scheduler: RequestScheduler
    var madeBooks: Crawler.MadeBooks
    private(set) var assembly: Crawler.Assembly?
    /// Answers being read on the worker thread.
    private var reading = 0
    /// Covers being thumbnailed; past `thumbnailBacklog`, no cover is asked for until some are done.
    private var thumbnailing = 0
    private let thumbnailBacklog = 16
    private var assembling = false
    private var madeSinceRelease = 0
    /// Books' share cards waiting to be drawn, and being drawn; nil when pages get none.
    private var shareCards: BookShareCards?
    /// Share cards drawn during the crawl, for --verbose.
    private var cardsDrawn = 0
    /// The cover files stored, for the summary: their paths' hashes (100,000 paths took 8 MB).
    var coverFiles = Set<UInt64>()
    /// Covers tried in this run that failed (the address was not at fault).
    var coversFailedAsked = Set<String>()
    /// Each kind's answers, timed from the request: for --verbose, where the time goes.
    private var answerTimes: [AdaptiveConcurrency.RequestKind: (seconds: Double, requests: Int)] = [:]

    var logger: Logger { crawler.logger }
    /// Seconds since the crawl began.
    var now: Double { (ContinuousClock.now - started).seconds }

    init(crawler: Crawler, shelves: [ShelfSummary], writer: SnapshotWriter, previousCovers: CoverRecords?, listing: Task<Handover<Data>, any Error>? = nil) throws {
        self.crawler = crawler
        self.listing = listing
        client = crawler.client
        var fetcher = CoverFetcher(client: client, writer: writer, previous: previousCovers, thumbnails: crawler.thumbnails)
        fetcher.defersThumbnails = true
        self.fetcher = fetcher
        spill = try SpillFile(in: writer.root)
        coverRecords = try CoverRecords(spillIn: writer.root)
        madeBooks = Crawler.MadeBooks(pieces: try SpillFile(in: writer.root), previousEntries: crawler.last.previous?.entries)
        let coverRecords = self.coverRecords
        ledger = CrawlLedger(shelves: shelves, privacy: crawler.privacy, wantCovers: crawler.wantsCovers,
                             reusable: crawler.reusableBooks(), retry: crawler.last.retry, coverStored: { coverRecords[$0] != nil })
        ledger.lastAddresses = crawler.last.addresses
        scheduler = RequestScheduler(level: AdaptiveConcurrency(ceiling: crawler.concurrency, mode: crawler.concurrencyMode))
        progress = ProgressLog("Crawl", logger: crawler.logger, live: crawler.live)
        shareCards = crawler.shareCardTitle.map(BookShareCards.init)
    }

    func stop() { worker.stop() }

    /// Asks for the list of books, every shelf, and every book's details and cover, until nothing
    /// is left to ask for.
    func requestEverything() async throws {
        try await withThrowingTaskGroup(of: Finished.self) { group in
            send(.books, alone: false, in: &group)
            while true {
                let (previous, addresses) = (crawler.last.previous, crawler.last.addresses)
                ledger.queueReusedCovers { place in
                    previous.flatMap { addresses[$0.entries.id(at: place)] ?? $0.entries[place].imageURL }
                }
                sendWhatMayGo(in: &group)
                makeReadyBooks(in: &group)
                drawCards(in: &group)
                guard scheduler.inFlight > 0 || assembling || reading > 0 || thumbnailing > 0 || (shareCards?.drawing ?? 0) > 0,
                      let finished = try await group.next() else {
                    if scheduler.isOverWhenIdle(queued: ledger.queue.count) { break }
                    continue
                }
                try handle(finished, in: &group)
                // An outage ends the crawl at once: what is still in flight is cancelled, nothing is
                // written, and the run says how far it got.
                if let stopped = crawler.client.serverStopped { throw outage(stopped) }
                if scheduler.inFlight == 0 { ledger.askForBooksOnlyShelvesList() }
                noteFrame()
                progress.update(done: ledger.booksFetched, total: ledger.booksToFetch)
            }
        }
        // The last requests all unanswered: the server stopped near the end, and its last books
        // are not an ordinary night's gaps.
        if let stopped = crawler.client.serverStoppedAtTheEnd() { throw outage(stopped) }
    }

    private func outage(_ stopped: ServerWatch.Stopped) -> ServerStoppedAnswering {
        ServerStoppedAnswering(stopped, booksRead: detailsRead + ledger.reused.count, booksListed: booksListed)
    }

    /// Reads a cover's address from a book's fields in the spill file.
    func coverAddress(_ fields: Range<Int>) throws -> String? {
        try JSONDecoder().decode([String: JSONValue].self, from: try spill.read(fields))["image_url"]?.text
    }

    private func handle(_ finished: Finished, in group: inout Group) throws {
        switch finished.event {
        case .made(let ids, let made):
            assembling = false
            try keep(ids, made)
        case .cardDrawn:
            shareCards?.drawn()
            cardsDrawn += 1
        case .detailRead(let id, let detail):
            reading -= 1
            detailsRead += 1
            try ledger.detailCame(id, detail, coverAddress: coverAddress)
        case .shelfRead(let summary, let page):
            reading -= 1
            try ledger.shelfCame(summary, page, coverAddress: coverAddress)
        case .shelf(let summary, let body):
            answered(.shelf, finished)
            switch body {
            // Read on the worker thread: 41 shelves of 250 books each held a request's place for
            // 25–80 ms while they were read, and the details waited behind them.
            case .success(let body): read(in: &group) { [client, spill] in .shelfRead(summary, try Crawler.readShelf(body, of: summary, client: client, spill: spill)) }
            case .failure(let error): try ledger.shelfCame(summary, .failure(error), coverAddress: coverAddress)
            }
        case .books(let answer):
            try listCame(answer)
        case .detail(let id, let body):
            answered(.detail, finished)
            switch body {
            case .success(let body):
                let hold = ledger.detailsHeld + reading < crawler.detailsHeldAtMost
                let noteLimit = crawler.noteLimit
                read(in: &group) { [client, spill] in .detailRead(id, try Crawler.readDetail(body, of: id, client: client, spill: spill, noteLimit: noteLimit, hold: hold)) }
            case .failure(let error):
                try ledger.detailsFailed(id, error, coverAddress: coverAddress)
            }
        case .cover(let url, let result, let line):
            answered(.cover, finished)
            if case .success(let record) = result, fetcher.needsThumbnails(record) {
                // Thumbnailed beside the requests: the request's place goes to the next one meanwhile.
                thumbnailing += 1
                let fetcher = self.fetcher
                group.addTask {
                    let done = await fetcher.addThumbnails(record, place: fetcher.describe(url))
                    return Finished(event: .thumbnailed(url, done, line: nil))
                }
            } else {
                try coverCame(url, result, line: line)
            }
        case .thumbnailed(let url, let result, let line):
            thumbnailing -= 1
            try coverCame(url, result, line: line)
        }
    }

    private func listCame(_ answer: Crawler.ListedBooks) throws {
        scheduler.listingAnswered(now: now)
        logger.info("Books listed: \(answer.books.count)")
        MemoryUsage.release()
        if let memory = MemoryUsage.summary() { logger.debug("After the list of books: \(memory)") }
        madeBooks.expect(answer.books.count)
        booksListed = answer.books.count
        let toFetch = try ledger.listCame(answer, coverAddress: coverAddress)
        if !ledger.reused.isEmpty { logger.info("Book details: \(ledger.reused.count) unchanged since the last snapshot, \(toFetch) to fetch") }
    }

    /// A request came back: the level learns from it.
    private func answered(_ kind: AdaptiveConcurrency.RequestKind, _ finished: Finished) {
        scheduler.answered(kind, seconds: finished.elapsed.seconds, requests: finished.requests, alone: finished.alone, now: now)
        if finished.requests > 0 {
            answerTimes[kind, default: (0, 0)].seconds += finished.elapsed.seconds
            answerTimes[kind, default: (0, 0)].requests += finished.requests
        }
    }

    func coverCame(_ url: String, _ result: Result<CoverRecord, CoverProblem>, line: Data?) throws {
        switch result {
        case .success(let record):
            try coverRecords.set(record, for: url, line: line)
            coverFiles.insert(CoverRecords.hash(record.file.path))
            ledger.coverCame(url, problem: nil)
        case .failure(let problem):
            // A cover that failed waits its turn next time; one whose address is unusable is
            // refused again at no cost.
            if !problem.inTheAddress { coversFailedAsked.insert(url) }
            ledger.coverCame(url, problem: problem)
        }
    }

    /// Work done on the worker thread: the request's place goes to the next request meanwhile.
    private func read(in group: inout Group, _ body: @escaping @Sendable () throws -> Event) {
        reading += 1
        let worker = self.worker
        group.addTask { Finished(event: try await worker.run(body)) }
    }

    private func sendWhatMayGo(in group: inout Group) {
        // Covers wait while thumbnails are behind and details can go instead: they would only pile
        // up, their books with them. The last covers go all the same (the server would sit idle).
        let covers = thumbnailing < thumbnailBacklog
        switch scheduler.release(queued: ledger.queue.count, now: now) {
        case .alone:
            if let work = ledger.nextRequest(coversToo: covers) { send(work, alone: true, in: &group) }
        case .upTo(let count):
            for _ in 0..<count {
                guard let work = ledger.nextRequest(coversToo: covers) else { break }
                send(work, alone: false, in: &group)
            }
        }
    }

    private func send(_ work: Work, alone: Bool, in group: inout Group) {
        if case .books = work { scheduler.listingSent() } else { scheduler.sent() }
        var retryServerErrors = true
        if case .detail(let id) = work { retryServerErrors = !ledger.onDeletedShelf.contains(id) }
        let request = Crawler.Request(work: work, client: client, fetcher: fetcher, spill: spill, retryServerErrors: retryServerErrors,
                                      previous: crawler.last.previous, reusable: ledger.reusable, retry: crawler.last.retry, listing: listing)
        group.addTask {
            let started = ContinuousClock.now
            let (event, requests) = try await request.perform()
            return Finished(event: event, elapsed: ContinuousClock.now - started, requests: requests, alone: alone)
        }
    }

    /// Books are made only while requests are in flight: once the network is done, those left are
    /// made on every core at the end.
    private func makeReadyBooks(in group: inout Group) {
        guard crawler.makesBooksWhileCrawling, !assembling, scheduler.inFlight > 0, ledger.hasBooksReady, let assembly else { return }
        let batch = ledger.booksReady(atMost: 32, isMade: madeBooks.isSettled)
        assembling = true
        let worker = self.worker
        group.addTask { Finished(event: .made(batch.map(\.id), try await worker.run { try assembly.makeInTurn(batch) })) }
    }

    /// Books' share cards are drawn only while requests are in flight, like books made: once the
    /// network is done, the render draws those left, on every core.
    private func drawCards(in group: inout Group) {
        guard scheduler.inFlight > 0 else { return }
        let writer = fetcher.writer
        while let card = shareCards?.next() {
            group.addTask {
                // A card that cannot be drawn now is drawn by the render, which says why.
                await Thumbnailer.run { try? card.write(into: writer) }
                return Finished(event: .cardDrawn)
            }
        }
    }

    /// Books made beside the requests are kept, unless a cover they name is still to come (they
    /// are then made again at the end).
    private func keep(_ ids: [Int], _ made: [Crawler.Assembly.Made?]) throws {
        for (id, made) in zip(ids, made) {
            guard let made else {
                madeBooks.leaveOut(id)
                ledger.letGoOfDetails(id)
                continue
            }
            var coverProblem: CoverProblem?
            if let url = made.coverMissing {
                guard let problem = ledger.coverFailures[url] else { continue }
                coverProblem = problem
            }
            try madeBooks.add(made, id: id, coverProblem: coverProblem)
            shareCards?.add(made.bookEntry)
            ledger.letGoOfDetails(id)
        }
        madeSinceRelease += ids.count
        if madeSinceRelease >= 2048 {
            madeSinceRelease = 0
            MemoryUsage.release()
        }
    }

    /// Once the ledger has the frame: its warnings, and the assembly that makes books from it.
    func noteFrame() {
        guard assembly == nil, let frame = ledger.frame else { return }
        // A shelf whose page failed the night before too is not news: a warning all the same, at
        // the notice level, which `--quiet` leaves out.
        let knownShelves = Set(frame.problems.filter { $0.kind == .shelfDetails && crawler.last.knownGaps.contains($0.gapKey) }.compactMap(\.shelfID))
        for warning in frame.warnings {
            logger.log(level: knownShelves.contains(where: { warning.hasPrefix("Shelf \($0): ") }) ? .notice : .warning, "\(warning)")
        }
        assembly = crawler.assembly(shelfNames: frame.shelfNames, plan: frame.plan, spill: spill,
                                    covers: ledger.wantCovers ? coverRecords : nil)
    }

    /// For --verbose: how long each kind of answer took, and the level the crawl ended at.
    func logTimings() {
        let timed = AdaptiveConcurrency.RequestKind.allCases.compactMap { kind in
            answerTimes[kind].map { String(format: "%@ %.2f ms (%d)", "\(kind)", $0.seconds * 1000 / Double($0.requests), $0.requests) }
        }
        if !timed.isEmpty { logger.debug("Answers took, a request, on average: \(timed.joined(separator: ", "))") }
        if shareCards != nil { logger.debug("Share cards drawn during the crawl: \(cardsDrawn) (the render draws the others)") }
        let level = scheduler.level
        if level.mode == .adaptive {
            logger.debug("Concurrency: \(level.limit) in flight at the end (\(level.highest) at most, \(level.changes) changes, ceiling \(level.ceiling))")
        }
    }
}
