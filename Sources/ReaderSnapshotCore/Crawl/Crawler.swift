import Foundation
import Logging

/// Walks the whole library through the API: shelves, every shelf, every book, every cover.
///
/// One pipeline, not phases: the list of books starts the books' details while shelves are still
/// arriving, and each book's details start its cover, so the server always has work and the crawl
/// never waits for a phase's slowest request. How many requests are in flight is found as it goes
/// (`AdaptiveConcurrency`).
public struct Crawler: Sendable {
    public var client: ReaderClient
    public var concurrency: Int
    public var concurrencyMode: AdaptiveConcurrency.Mode = .adaptive
    public var fetchCovers: Bool
    public var logger: Logger
    public var live: LiveProgress?
    public var privacy = Privacy()
    /// The library of the last snapshot: a book whose `updated_at` in `/books` is what it was then
    /// is taken from it instead of asked for again. Rails touches a book when its notes (rich text)
    /// or its cover (an attachment) change, so the date moves with everything the details hold.
    /// Only a library with notes converted under the same limits may stand in.
    public var previous: Catalog?
    /// `previous` was written by this same build: its unchanged books' bytes are copied as they are.
    public var previousIsThisBuild = false
    /// Whether books are made while requests are in flight, or all once the requests are done
    /// (the same bytes either way; the tests compare the two).
    var makesBooksWhileCrawling = true
    /// How many books' details wait in memory for their book to be made; the others wait in the
    /// spill file. Most wait only for their cover, but before the list of every book is in, details
    /// pile up: 100,000 books' list takes seconds.
    var detailsHeldAtMost = 4096

    public init(client: ReaderClient, concurrency: Int = 8, fetchCovers: Bool = true, logger: Logger, live: LiveProgress? = nil) {
        self.live = live
        self.client = client
        self.concurrency = max(1, concurrency)
        self.fetchCovers = fetchCovers
        self.logger = logger
    }

    /// What a crawl found: the library, and what to remember of its covers for the next run.
    public struct Result: Sendable {
        public var catalog: Catalog
        public var covers: CoverRecords?
        /// How many books were made while requests were still in flight.
        public var madeWhileCrawling = 0
    }

    /// One request (or one cover, with its redirects) of the pipeline.
    private enum Work: Sendable {
        /// Boxed: a queue of 100,000 details takes 24 bytes each, not 40.
        indirect case shelf(ShelfSummary)
        case books
        case detail(Int)
        case cover(String)
    }

    /// A request that came back: its answer, how long it took, how many requests it made, and
    /// whether it was sent alone.
    private struct Finished: Sendable {
        var answer: Answer
        var elapsed: Duration
        var requests: Int
        var alone: Bool
    }

    private enum ProbeState {
        case idle
        /// Waiting for the requests in flight to come back before one goes alone.
        case draining
        case alone
    }

    private static func kind(of answer: Answer) -> AdaptiveConcurrency.RequestKind? {
        switch answer {
        case .shelf: return .shelf
        case .detail: return .detail
        case .cover: return .cover
        case .books, .assembled, .detailRead, .shelfRead: return nil
        }
    }

    private enum Answer: Sendable {
        /// A shelf's page as it came: read off the request's slot, like a book's details.
        case shelf(ShelfSummary, Swift.Result<Data, ReaderAPIError>)
        case shelfRead(ShelfSummary, Swift.Result<ShelfPage, ReaderAPIError>)
        case books(ListedBooks)
        /// A book's details as they came: read (notes converted) off the request's slot.
        case detail(Int, Swift.Result<Data, ReaderAPIError>)
        case detailRead(Int, Swift.Result<ReadDetail, ReaderAPIError>)
        /// With the last run's line for the record when it is that one unchanged.
        case cover(String, Swift.Result<CoverRecord, CoverProblem>, line: Data?)
        /// Books made while the crawl went on: no request.
        case assembled([Int], [Assembly.Made?])
    }


    /// Fetches the library; cover files are written through `writer` (or linked from the previous
    /// snapshot). A 401 or a server that cannot list the library throws; a book or cover that cannot
    /// be read is recorded as a problem.
    public func crawl(generatedAt: String, writer: SnapshotWriter, previousCovers: CoverRecords? = nil) async throws -> Result {
        let client = self.client
        let shelvesAnswer = try await client.shelves()
        logger.info("Shelves: \(shelvesAnswer.shelves.count)")
        let shelfIDs = Set(shelvesAnswer.shelves.map(\.id))
        let wantCovers = fetchCovers && privacy.covers
        let fetcher = CoverFetcher(client: client, writer: writer, previous: previousCovers)
        let reusable = reusableBooks()
        let spill = try SpillFile(in: writer.root)

        var shelfPages: [Int: Swift.Result<KeptShelf, ReaderAPIError>] = [:]
        /// The list of books, once in: its user, and its books' order (their texts are not kept).
        var listing: (user: String?, order: [Int])?
        /// Where each book's details wait, or why they could not be read.
        var details: [Int: DetailPlace] = [:]
        var detailsHeld = 0
        var detailFailures: [Int: ReaderAPIError] = [:]
        var asked = Set<Int>()
        /// Books taken from the previous snapshot, by their place in it.
        var reused: [Int: Int] = [:]
        let coverRecords = try CoverRecords(spillIn: writer.root)
        var coverFailures: [String: CoverProblem] = [:]
        /// The cover files stored, for the summary: their paths' hashes (100,000 paths took 8 MB).
        var coverFiles = Set<UInt64>()
        func coverKnown(_ url: String) -> Bool { coverFailures[url] != nil || coverRecords[url] != nil }
        func coverCame(_ url: String, _ result: Swift.Result<CoverRecord, CoverProblem>, line: Data? = nil) throws {
            switch result {
            case .success(let record):
                try coverRecords.set(record, for: url, line: line)
                coverFiles.insert(CoverRecords.hash(record.file.path))
            case .failure(let problem):
                coverFailures[url] = problem
            }
        }
        var listed: [Int: KeptBook] = [:]
        var onDeletedShelf = Set<Int>()
        /// Covers asked for and not yet in, with the books that wait for each.
        var coverWaiting: [String: [Int]] = [:]
        /// Unchanged books (their ids) whose covers are still to be asked for.
        var reusedCovers: [Int] = []
        var nextReusedCover = 0

        // Books are made as soon as all they need is in, a batch at a time beside the requests:
        // at the end only the few that waited for something remain to be made.
        var frame: Frame?
        var madeBooks = MadeBooks(pieces: try SpillFile(in: writer.root))
        var readyBooks = WorkQueue<Int>()
        var assembling = false
        var madeSinceRelease = 0
        /// Details received and being read on the worker thread.
        var processing = 0
        /// Reads the answers and makes the books, off the threads the answers resume on.
        let worker = WorkerThread(name: "reader-snapshot worker")
        defer { worker.stop() }

        var queue = WorkQueue<Work>()
        for shelf in shelvesAnswer.shelves { queue.append(.shelf(shelf)) }
        let progress = ProgressLog("Crawl", total: queue.count + 1, logger: logger, live: live)
        var level = AdaptiveConcurrency(ceiling: concurrency, mode: concurrencyMode)
        /// When an answer came, for the level to weigh what gets done: seconds since the crawl began.
        let crawlStarted = ContinuousClock.now
        func now() -> Double { (ContinuousClock.now - crawlStarted).seconds }

        /// Asks for a book's cover; false when the book need not wait for it.
        func wantCover(_ url: String?, for id: Int) -> Bool {
            guard wantCovers, let url, !coverKnown(url) else { return false }
            if coverWaiting[url] != nil {
                coverWaiting[url]!.append(id)
                return true
            }
            coverWaiting[url] = [id]
            queue.append(.cover(url))
            progress.expect(1)
            return true
        }

        /// Once the list and every shelf are in: what the whole library is, and the books that
        /// can already be made.
        func frameIfComplete() throws {
            guard frame == nil, let listing, shelfPages.count == shelvesAnswer.shelves.count else { return }
            frame = makeFrame(listing: listing)
            // The shelves' books are in the frame now: only their ids are still needed.
            for (id, page) in shelfPages {
                guard case .success(var kept) = page else { continue }
                kept.books = []
                shelfPages[id] = .success(kept)
            }
            if wantCovers {
                for id in detailFailures.keys.sorted() {
                    if let url = try coverWithoutDetails(id) { _ = wantCover(url, for: id) }
                }
            }
            let waiting = Set(coverWaiting.values.joined())
            for id in details.keys where !waiting.contains(id) { readyBooks.append(id) }
            for id in reusedCovers[..<nextReusedCover] where !waiting.contains(id) { readyBooks.append(id) }
        }


        func makeFrame(listing: (user: String?, order: [Int])) -> Frame {
            Self.frame(summaries: shelvesAnswer.shelves, pages: shelfPages, listing: listing.order,
                       shelfOfListed: { listed[$0]?.shelfID }, privacy: privacy, logger: logger) { shelfNames, plan in
                Assembly(shelfNames: shelfNames, previous: previous, spill: spill, plan: plan, privacy: privacy,
                         covers: wantCovers ? coverRecords : nil, noteLimit: client.limits.noteBytes, linkBase: client.server.url(path: "/"),
                         copiesUnchanged: previousIsThisBuild)
            }
        }

        /// The cover of a book whose details could not be read: its address waits in the book's
        /// fields, from the list or a shelf (nil when privacy leaves the book out).
        func coverWithoutDetails(_ id: Int) throws -> String? {
            guard let frame else { return nil }
            if let plan = frame.plan, plan.droppedBooks.contains(id)
                || (listed[id]?.shelfID ?? frame.onShelves[id]?.shelfID).map(plan.excludedShelves.contains) == true { return nil }
            guard let kept = listed[id] ?? frame.onShelves[id],
                  let url = try JSONDecoder().decode([String: JSONValue].self, from: try spill.read(kept.fields))["image_url"]?.text,
                  !url.isEmpty else { return nil }
            return url
        }

        /// Details that failed: the book is made at the end, its cover asked for now, among the
        /// other requests, rather than after them all.
        func detailsFailed(_ id: Int, _ error: ReaderAPIError) throws {
            detailFailures[id] = error
            if wantCovers, frame != nil, let url = try coverWithoutDetails(id) { _ = wantCover(url, for: id) }
        }

        func sources(of id: Int) -> BookSources {
            BookSources(id: id, listed: listed[id], onShelf: frame?.onShelves[id], details: details[id],
                        failure: detailFailures[id], reused: reused[id])
        }

        /// A shelf's page, read (or why not).
        func shelfCame(_ summary: ShelfSummary, _ page: Swift.Result<ShelfPage, ReaderAPIError>) throws {
            shelfPages[summary.id] = page.map { KeptShelf(shelf: $0.shelf, ids: $0.books.map(\.id), books: $0.books.map(\.kept)) }
            // Details need not wait for the list of every book, unless the list may say a
            // book is unchanged (or sits on a deleted shelf, which no shelf lists).
            if case .success(let answer) = page, listing == nil {
                var more = 0
                for book in answer.books where reusable[book.id] == nil && asked.insert(book.id).inserted {
                    queue.append(.detail(book.id))
                    more += 1
                }
                progress.expect(more)
            }
            try frameIfComplete()
        }

        func letGoOfDetails(_ id: Int) {
            guard case .held = details[id] else { return }
            details[id] = .used
            detailsHeld -= 1
        }

        /// Books made beside the requests are kept, unless a cover they name is still to come
        /// (they are then made again at the end).
        func keep(_ ids: [Int], _ made: [Assembly.Made?]) throws {
            for (id, made) in zip(ids, made) {
                guard let made else {
                    madeBooks.leaveOut(id)
                    letGoOfDetails(id)
                    continue
                }
                var coverProblem: CoverProblem?
                if let url = made.coverMissing {
                    guard let problem = coverFailures[url] else { continue }
                    coverProblem = problem
                }
                try madeBooks.add(made, id: id, coverProblem: coverProblem)
                letGoOfDetails(id)
            }
            madeSinceRelease += ids.count
            if madeSinceRelease >= 2048 {
                madeSinceRelease = 0
                MemoryUsage.release()
            }
        }

        // Each kind's answers, timed from the request: for --verbose, where the time goes.
        var answerTimes: [AdaptiveConcurrency.RequestKind: (seconds: Double, requests: Int)] = [:]
        try await withThrowingTaskGroup(of: Finished.self) { group in
            var inFlight = 0
            /// Books that a shelf lists but /books does not: their details once every shelf is in.
            func askForBooksOnlyShelvesList() {
                if queue.isEmpty, inFlight == 0, listing != nil {
                    var extra = 0
                    for page in shelfPages.values {
                        guard case .success(let answer) = page else { continue }
                        for id in answer.ids where asked.insert(id).inserted && reused[id] == nil {
                            queue.append(.detail(id))
                            extra += 1
                        }
                    }
                    progress.expect(extra)
                }
            }
            func send(_ work: Work, alone: Bool = false) {
                inFlight += 1
                let onDeletedShelf = onDeletedShelf
                group.addTask {
                    let started = ContinuousClock.now
                    let (answer, requests) = try await Self.perform(work, client: client, fetcher: fetcher, spill: spill,
                                                                    onDeletedShelf: onDeletedShelf, previous: previous, reusable: reusable)
                    return Finished(answer: answer, elapsed: ContinuousClock.now - started, requests: requests, alone: alone)
                }
            }
            // The list of every book is asked for at once, beside the level: it is one long answer
            // that the details wait on, and the level is learnt from the many short ones.
            send(.books)
            var listingPending = true
            // Now and then one request goes alone, to learn how fast the server answers with no
            // queue: first when the list of books is in (answers that waited behind it taught too
            // slow a time), then every few seconds.
            var probe: ProbeState = .idle
            var nextProbe: ContinuousClock.Instant?
            while true {
                // Unchanged books' covers join the queue a few at a time: 100,000 addresses waiting
                // at once took more memory than the rest of the run.
                while queue.count < 256, nextReusedCover < reusedCovers.count {
                    let id = reusedCovers[nextReusedCover]
                    nextReusedCover += 1
                    if let place = reused[id], !wantCover(previous?.cards[place].imageURL, for: id), frame != nil {
                        readyBooks.append(id)
                    }
                }
                if case .idle = probe, level.mode == .adaptive, level.limit > 1, let due = nextProbe, ContinuousClock.now >= due {
                    probe = .draining
                }
                if case .draining = probe, inFlight - (listingPending ? 1 : 0) == 0, let work = queue.popFirst() {
                    probe = .alone
                    send(work, alone: true)
                }
                while case .idle = probe, inFlight - (listingPending ? 1 : 0) < level.limit, let work = queue.popFirst() {
                    send(work)
                }
                // Books are made only while requests are in flight: once the network is done,
                // those left are made on every core at the end.
                if makesBooksWhileCrawling, !assembling, inFlight > 0, let frame, !readyBooks.isEmpty {
                    var batch: [BookSources] = []
                    while batch.count < 32, let id = readyBooks.popFirst() {
                        // Made once: the details of a book kept are let go.
                        if !madeBooks.isSettled(id) { batch.append(sources(of: id)) }
                    }
                    assembling = true
                    let (assembly, books) = (frame.assembly, batch)
                    group.addTask {
                        Finished(answer: .assembled(books.map(\.id), try await worker.run { try assembly.makeInTurn(books) }),
                                 elapsed: .zero, requests: 0, alone: false)
                    }
                }
                guard inFlight > 0 || assembling || processing > 0, let finished = try await group.next() else {
                    // Nothing left to send alone: the probe is off.
                    if case .idle = probe { break }
                    probe = .idle
                    if queue.isEmpty { break } else { continue }
                }
                let (answer, elapsed, requested) = (finished.answer, finished.elapsed, finished.requests)
                switch answer {
                case .assembled(let ids, let made):
                    assembling = false
                    try keep(ids, made)
                    continue
                case .detailRead(let id, let detail):
                    processing -= 1
                    switch detail {
                    case .success(let detail):
                        details[id] = detail.place
                        if case .held = detail.place { detailsHeld += 1 }
                        if !wantCover(detail.imageURL, for: id), frame != nil { readyBooks.append(id) }
                    case .failure(let error):
                        try detailsFailed(id, error)
                    }
                    continue
                case .shelfRead(let summary, let page):
                    processing -= 1
                    try shelfCame(summary, page)
                    askForBooksOnlyShelvesList()
                    continue
                default:
                    break
                }
                inFlight -= 1
                progress.step()
                if requested > 0, let kind = Self.kind(of: answer) {
                    answerTimes[kind, default: (0, 0)].seconds += elapsed.seconds
                    answerTimes[kind, default: (0, 0)].requests += requested
                }
                if finished.alone {
                    probe = .idle
                    nextProbe = ContinuousClock.now + .seconds(5)
                    if requested > 0, let kind = Self.kind(of: answer) {
                        level.recordAlone(kind, seconds: elapsed.seconds / Double(requested))
                    }
                }
                switch answer {
                case .shelf(let summary, let body):
                    level.record(.shelf, seconds: elapsed.seconds, at: now())
                    switch body {
                    case .success(let body):
                        // Read on the worker thread: 41 shelves of 250 books each held a request's
                        // place for 25–80 ms while they were read, and the details waited behind them.
                        processing += 1
                        group.addTask {
                            Finished(answer: .shelfRead(summary, try await worker.run { try Self.readShelf(body, of: summary, client: client, spill: spill) }),
                                     elapsed: .zero, requests: 0, alone: false)
                        }
                    case .failure(let error):
                        try shelfCame(summary, .failure(error))
                    }
                case .books(let answer):
                    listing = (answer.user, answer.books.map(\.id))
                    listingPending = false
                    nextProbe = .now
                    logger.info("Books listed: \(answer.books.count)")
                    MemoryUsage.release()
                    if let memory = MemoryUsage.summary() { logger.debug("After the list of books: \(memory)") }
                    var toFetch = 0
                    for book in answer.books where listed[book.id] == nil {
                        listed[book.id] = book.kept
                        // A book that says it sits on a shelf the server does not list will crash
                        // its detail page: that 500 is the expected answer, not one to retry.
                        if let shelf = book.shelfID, !shelfIDs.contains(shelf) { onDeletedShelf.insert(book.id) }
                        if let place = book.unchanged {
                            reused[book.id] = place
                            reusedCovers.append(book.id)
                        } else if asked.insert(book.id).inserted {
                            queue.append(.detail(book.id))
                            toFetch += 1
                        }
                    }
                    progress.expect(toFetch)
                    if !reused.isEmpty { logger.info("Book details: \(reused.count) unchanged since the last snapshot, \(toFetch) to fetch") }
                    try frameIfComplete()
                case .detail(let id, let body):
                    switch body {
                    case .success(let body):
                        // Read on the worker thread: the request's place goes to the next one now.
                        let hold = detailsHeld + processing < detailsHeldAtMost
                        processing += 1
                        group.addTask {
                            Finished(answer: .detailRead(id, try await worker.run { try Self.readDetail(body, of: id, client: client, spill: spill, hold: hold) }),
                                     elapsed: .zero, requests: 0, alone: false)
                        }
                    case .failure(let error):
                        try detailsFailed(id, error)
                    }
                    level.record(.detail, seconds: elapsed.seconds, at: now())
                case .cover(let url, let result, let line):
                    try coverCame(url, result, line: line)
                    // A book whose details failed waits for the end, where it is reported.
                    if let waiting = coverWaiting.removeValue(forKey: url), frame != nil {
                        for id in waiting where detailFailures[id] == nil { readyBooks.append(id) }
                    }
                    // Per request: a cover behind a redirect takes two.
                    if requested > 0 { level.record(.cover, seconds: elapsed.seconds / Double(requested), at: now()) }
                case .assembled, .detailRead, .shelfRead:
                    break
                }
                askForBooksOnlyShelvesList()
            }
        }
        guard let listing else { throw CancellationError() }
        MemoryUsage.release()
        if let memory = MemoryUsage.summary() { logger.debug("After every request: \(memory)") }
        let timed = AdaptiveConcurrency.RequestKind.allCases.compactMap { kind in
            answerTimes[kind].map { String(format: "%@ %.2f ms (%d)", "\(kind)", $0.seconds * 1000 / Double($0.requests), $0.requests) }
        }
        if !timed.isEmpty { logger.debug("Answers took, a request, on average: \(timed.joined(separator: ", "))") }
        if level.mode == .adaptive {
            logger.debug("Concurrency: \(level.limit) in flight at the end (\(level.highest) at most, \(level.changes) changes, ceiling \(level.ceiling))")
        }
        if frame == nil { frame = makeFrame(listing: listing) }
        var (shelves, problems) = (frame!.shelves, frame!.problems)
        let (order, plan) = (frame!.order, frame!.plan)

        // Covers of books whose details failed are known only from the list and the shelves: fetched
        // last, before the books are written with their covers.
        if wantCovers {
            var late = Set<String>()
            for id in order where reused[id] == nil && details[id] == nil && !madeBooks.isSettled(id) {
                if let url = try coverWithoutDetails(id), !coverKnown(url) { late.insert(url) }
            }
            let urls = late.sorted()
            if !urls.isEmpty {
                // Asked for during the crawl as the details failed: only books none could be asked for then.
                let results = try await concurrentMap(urls, limit: level.limit) { await fetcher.fetch($0) }
                for (url, result) in zip(urls, results) { try coverCame(url, result.result, line: result.line) }
            }
        }

        // The books not made yet (their details failed, or they waited for something) are made on
        // every core, and every book takes its place in id order.
        let madeWhileCrawling = madeBooks.count
        var places: [Int] = []
        var ranges: [Range<Int>] = []
        var read = 0, failed = 0
        let detailWarnings = WarningLimiter(logger: logger, what: "books without details")
        let coverWarnings = WarningLimiter(logger: logger, what: "covers not fetched")
        let batchSize = 512
        for start in stride(from: 0, to: order.count, by: batchSize) {
            let batch = order[start..<min(order.count, start + batchSize)]
            let late = try frame!.assembly.make(batch.filter { !madeBooks.isSettled($0) }.map(sources))
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
                        detailWarnings.warn("Book \(id): details could not be read: \(error)")
                        problems.append(Problem(kind: .bookDetails, bookID: id, message: error.description))
                    case .missing: failed += 1
                    }
                    try madeBooks.add(made, id: id, coverProblem: made.coverMissing.flatMap { coverFailures[$0] })
                }
                guard let book = madeBooks[id] else { continue }
                if book.read { read += 1 }
                if let problem = book.coverProblem {
                    coverWarnings.warn("Book \(id): cover not fetched: \(problem)")
                    problems.append(Problem(kind: .cover, bookID: id, message: problem.message))
                }
                ranges.append(book.piece)
                places.append(book.place)
            }
            // The workers' freed pieces, back to the system every few thousand books.
            if start / batchSize % 4 == 3 { MemoryUsage.release() }
        }
        let cards = madeBooks.cards(arrangedBy: places)
        logger.debug("Books made while crawling: \(madeWhileCrawling) of \(cards.count); \(madeBooks.copied) copied from the last snapshot as they were")
        let pieces = madeBooks.pieces
        // What the books were made from is written: let it go before the next step.
        (listed, details, detailFailures, shelfPages, frame, madeBooks, places) = ([:], [:], [:], [:], nil, MadeBooks(pieces: pieces), [])
        if let plan {
            let kept = Set(cards.indices.map { cards.id(at: $0) })
            privacy.finish(plan, dropped: Set(order).subtracting(kept), shelves: &shelves, problems: &problems)
        }
        detailWarnings.finish()
        coverWarnings.finish()
        MemoryUsage.release()
        if let memory = MemoryUsage.summary() { logger.debug("After assembling the books: \(memory)") }
        logger.info("Book details: \(read) read, \(reused.count) unchanged, \(failed) failed")

        if wantCovers {
            let failedCovers = coverFailures.count
            client.metrics.record { $0.coversFailed += failedCovers }
            logger.info("Covers: \(coverFiles.count) stored, \(failedCovers) failed")
        }

        problems.sort { ($0.kind.rawValue, $0.shelfID ?? 0, $0.bookID ?? 0) < ($1.kind.rawValue, $1.shelfID ?? 0, $1.bookID ?? 0) }
        let library = Library(generatedAt: generatedAt, server: client.server.description,
                              user: (shelvesAnswer.user ?? listing.user).map(UntrustedText.displayable), userID: client.session?.userID,
                              shelves: shelves, books: [], problems: problems)
        return Result(catalog: Catalog(frame: library, cards: cards, pieces: pieces, ranges: ranges), covers: wantCovers ? coverRecords : nil,
                      madeWhileCrawling: madeWhileCrawling)
    }

    /// The previous snapshot's books that can stand for a fresh request (by their place in it): from
    /// a snapshot of the same account, read whole, with notes converted under the same limit.
    private func reusableBooks() -> [Int: Int] {
        guard let previous, previous.frame.server == client.server.description, previous.frame.userID == client.session?.userID
        else { return [:] }
        var places: [Int: Int] = [:]
        for place in previous.cards.indices where previous.cards[place].complete { places[previous.cards.id(at: place)] = place }
        return places
    }

    /// The answer, and how many requests it took.
    private static func perform(_ work: Work, client: ReaderClient, fetcher: CoverFetcher, spill: SpillFile,
                                onDeletedShelf: Set<Int>, previous: Catalog?, reusable: [Int: Int]) async throws -> (Answer, Int) {
        do {
            switch work {
            case .shelf(let summary):
                do {
                    return (.shelf(summary, .success(try await client.shelfBody(id: summary.id))), 1)
                } catch let error as ReaderAPIError where !error.isUnauthorized {
                    return (.shelf(summary, .failure(error)), 1)
                }
            case .books:
                // A book at a time, its fields into the spill file: a big list is never held whole.
                let body = try await client.booksBody()
                // A thread of its own: 100,000 books take a second or two to read, and the
                // shelves and details must not wait behind them.
                let reader = WorkerThread(name: "reader-snapshot list")
                defer { reader.stop() }
                let listed = try await reader.run {
                    var books: [ListedBook] = []
                    // Whether a book is unchanged is decided here: its date is not carried further.
                    let user = try client.books(from: body) { book, element in
                        books.append(ListedBook(book, fields: try spill.append(element), previous: previous, reusable: reusable))
                    }
                    return ListedBooks(user: user, books: books)
                }
                return (.books(listed), 1)
            case .detail(let id):
                do {
                    return (.detail(id, .success(try await client.bookBody(id: id, retryServerErrors: !onDeletedShelf.contains(id)))), 1)
                } catch let error as ReaderAPIError where !error.isUnauthorized {
                    return (.detail(id, .failure(error)), 1)
                }
            case .cover(let url):
                try Task.checkCancellation()
                let (result, requests, line) = await fetcher.fetch(url)
                return (.cover(url, result, line: line), requests)
            }
        }
    }

    /// A shelf's page from the answer's body, its books' fields into the spill file.
    private static func readShelf(_ body: Data, of summary: ShelfSummary, client: ReaderClient, spill: SpillFile) throws -> Swift.Result<ShelfPage, ReaderAPIError> {
        do {
            let answer = try client.shelf(from: body, id: summary.id)
            let encoder = JSONEncoder()
            let books = try answer.books.map { ListedBook($0, fields: try spill.append(try encoder.encode($0.fields))) }
            return .success(ShelfPage(shelf: answer.shelf, books: books))
        } catch let error as ReaderAPIError where !error.isUnauthorized {
            return .failure(error)
        }
    }

    /// A book's details from the answer's body, its notes converted, held or into the spill file.
    private static func readDetail(_ body: Data, of id: Int, client: ReaderClient, spill: SpillFile, hold: Bool) throws -> Swift.Result<ReadDetail, ReaderAPIError> {
        let fields: BookFields
        do {
            fields = try client.book(from: body, id: id).book
        } catch let error as ReaderAPIError {
            return .failure(error)
        }
        let note = Note(receiving: fields.fields["comments"]?.text, limit: client.limits.noteBytes, linkBase: client.server.url(path: "/"))
        let detail = Detail(fields: fields.fields, note: note)
        let place: DetailPlace = hold ? .held(detail) : .spilled(try spill.append(try JSONEncoder().encode(detail)))
        return .success(ReadDetail(place: place, imageURL: fields.text("image_url")))
    }

    /// A book from every field the server gave; `note` is the already converted notes of a book
    /// taken from the previous snapshot.
    static func book(id: Int, fields: [String: JSONValue], complete: Bool, noteLimit: Int = Note.defaultLimit,
                     linkBase: URL? = nil, note: Note? = nil) -> Book {
        func text(_ key: String) -> String? {
            guard let value = fields[key]?.text, !value.isEmpty else { return nil }
            return value
        }
        /// What is shown of a name: no control characters, no direction overrides, bounded.
        func shown(_ key: String) -> String? {
            text(key).map(UntrustedText.displayable).flatMap { $0.isEmpty ? nil : $0 }
        }
        var kept = fields
        let comments = kept.removeValue(forKey: "comments")
        return Book(id: id, title: shown("title") ?? "", author: shown("author"), isbn: shown("isbn"),
                    shelfID: fields["shelf_id"]?.intValue, shelfName: shown("shelf_name"),
                    createdAt: text("created_at"), updatedAt: text("updated_at"), imageURL: text("image_url"),
                    note: note ?? Note(receiving: comments?.text, limit: noteLimit, linkBase: linkBase), complete: complete, serverFields: kept)
    }
}
