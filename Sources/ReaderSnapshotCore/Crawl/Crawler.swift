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
    /// Only a library read whole, with notes converted under the same limits, may stand in.
    public var previous: Library?

    public init(client: ReaderClient, concurrency: Int = 8, fetchCovers: Bool = true, logger: Logger, live: LiveProgress? = nil) {
        self.live = live
        self.client = client
        self.concurrency = max(1, concurrency)
        self.fetchCovers = fetchCovers
        self.logger = logger
    }

    /// What a crawl found: the library, and what to remember of its covers for the next run.
    public struct Result: Sendable {
        public var library: Library
        public var covers: [String: CoverRecord]
    }

    /// One request (or one cover, with its redirects) of the pipeline.
    private enum Work: Sendable {
        case shelf(ShelfSummary)
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
        case .books: return nil
        }
    }

    /// A book's details, with its notes already converted: that work overlaps the network.
    private struct Detail: Sendable {
        var fields: BookFields
        var note: Note
    }

    private enum Answer: Sendable {
        case shelf(ShelfSummary, Swift.Result<ShelfAnswer, ReaderAPIError>)
        case books(BooksAnswer)
        case detail(Int, Swift.Result<Detail, ReaderAPIError>)
        case cover(String, Swift.Result<CoverRecord, CoverProblem>)
    }

    /// Fetches the library; cover files are written through `writer` (or linked from the previous
    /// snapshot). A 401 or a server that cannot list the library throws; a book or cover that cannot
    /// be read is recorded as a problem.
    public func crawl(generatedAt: String, writer: SnapshotWriter, previousCovers: [String: CoverRecord] = [:]) async throws -> Result {
        let client = self.client
        let shelvesAnswer = try await client.shelves()
        logger.info("Shelves: \(shelvesAnswer.shelves.count)")
        let shelfIDs = Set(shelvesAnswer.shelves.map(\.id))
        let wantCovers = fetchCovers && privacy.covers
        let fetcher = CoverFetcher(client: client, writer: writer, previous: previousCovers)
        let reusable = reusableBooks()

        var shelfPages: [Int: Swift.Result<ShelfAnswer, ReaderAPIError>] = [:]
        var booksAnswer: BooksAnswer?
        var details: [Int: Swift.Result<Detail, ReaderAPIError>] = [:]
        var asked = Set<Int>()
        var reused: [Int: Book] = [:]
        var coverResults: [String: Swift.Result<CoverRecord, CoverProblem>] = [:]
        var listed: [Int: BookFields] = [:]
        var onDeletedShelf = Set<Int>()
        var coverWanted = Set<String>()

        var queue = WorkQueue<Work>()
        for shelf in shelvesAnswer.shelves { queue.append(.shelf(shelf)) }
        let progress = ProgressLog("Crawl", total: queue.count + 1, logger: logger, live: live)
        var level = AdaptiveConcurrency(ceiling: concurrency, mode: concurrencyMode)

        func wantCover(_ url: String?) {
            guard wantCovers, let url, coverWanted.insert(url).inserted else { return }
            queue.append(.cover(url))
            progress.expect(1)
        }

        try await withThrowingTaskGroup(of: Finished.self) { group in
            var inFlight = 0
            func send(_ work: Work, alone: Bool = false) {
                inFlight += 1
                let onDeletedShelf = onDeletedShelf
                group.addTask {
                    let started = ContinuousClock.now
                    let (answer, requests) = try await Self.perform(work, client: client, fetcher: fetcher, onDeletedShelf: onDeletedShelf)
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
                guard inFlight > 0, let finished = try await group.next() else {
                    // Nothing left to send alone: the probe is off.
                    if case .idle = probe { break }
                    probe = .idle
                    if queue.isEmpty { break } else { continue }
                }
                let (answer, elapsed, requested) = (finished.answer, finished.elapsed, finished.requests)
                inFlight -= 1
                progress.step()
                if finished.alone {
                    probe = .idle
                    nextProbe = ContinuousClock.now + .seconds(5)
                    if requested > 0, let kind = Self.kind(of: answer) {
                        level.recordAlone(kind, seconds: elapsed.seconds / Double(requested))
                    }
                }
                switch answer {
                case .shelf(let summary, let page):
                    shelfPages[summary.id] = page
                    level.record(.shelf, seconds: elapsed.seconds)
                    // Details need not wait for the list of every book, unless the list may say a
                    // book is unchanged (or sits on a deleted shelf, which no shelf lists).
                    if case .success(let answer) = page, booksAnswer == nil {
                        var more = 0
                        for book in answer.books where reusable[book.id] == nil && asked.insert(book.id).inserted {
                            queue.append(.detail(book.id))
                            more += 1
                        }
                        progress.expect(more)
                    }
                case .books(let answer):
                    booksAnswer = answer
                    listingPending = false
                    nextProbe = .now
                    logger.info("Books listed: \(answer.books.count)")
                    if let memory = MemoryUsage.summary() { logger.debug("After the list of books: \(memory)") }
                    var toFetch = 0
                    for book in answer.books where listed[book.id] == nil {
                        listed[book.id] = book
                        // A book that says it sits on a shelf the server does not list will crash
                        // its detail page: that 500 is the expected answer, not one to retry.
                        if let shelf = book.int("shelf_id"), !shelfIDs.contains(shelf) { onDeletedShelf.insert(book.id) }
                        if let kept = reusable[book.id], kept.updatedAt != nil, kept.updatedAt == book.text("updated_at") {
                            reused[book.id] = kept
                            wantCover(kept.imageURL)
                        } else if asked.insert(book.id).inserted {
                            queue.append(.detail(book.id))
                            toFetch += 1
                        }
                    }
                    progress.expect(toFetch)
                    if !reused.isEmpty { logger.info("Book details: \(reused.count) unchanged since the last snapshot, \(toFetch) to fetch") }
                case .detail(let id, let detail):
                    details[id] = detail
                    if case .success(let detail) = detail { wantCover(detail.fields.text("image_url")) }
                    level.record(.detail, seconds: elapsed.seconds)
                case .cover(let url, let result):
                    coverResults[url] = result
                    // Per request: a cover behind a redirect takes two.
                    if requested > 0 { level.record(.cover, seconds: elapsed.seconds / Double(requested)) }
                }
                // Books that a shelf lists but /books does not: their details once every shelf is in.
                if queue.isEmpty, inFlight == 0, booksAnswer != nil {
                    var extra = 0
                    for page in shelfPages.values {
                        guard case .success(let answer) = page else { continue }
                        for book in answer.books where asked.insert(book.id).inserted && reused[book.id] == nil {
                            queue.append(.detail(book.id))
                            extra += 1
                        }
                    }
                    progress.expect(extra)
                }
            }
        }
        guard let booksAnswer else { throw CancellationError() }
        if let memory = MemoryUsage.summary() { logger.debug("After every request: \(memory)") }
        if level.mode == .adaptive {
            logger.debug("Concurrency: \(level.limit) in flight at the end (\(level.highest) at most, \(level.changes) changes, ceiling \(level.ceiling))")
        }

        var problems: [Problem] = []
        var order = booksAnswer.books.map(\.id)
        var onShelves: [Int: BookFields] = [:]
        var shelves: [Shelf] = []
        for summary in shelvesAnswer.shelves {
            switch shelfPages[summary.id]! {
            case .success(let answer):
                for book in answer.books where onShelves[book.id] == nil { onShelves[book.id] = book }
                shelves.append(Shelf(id: summary.id, name: UntrustedText.displayable(answer.shelf.name.isEmpty ? summary.name : answer.shelf.name),
                                     bookCount: summary.bookCount ?? answer.shelf.bookCount,
                                     bookIDs: answer.books.map(\.id)))
            case .failure(let error):
                logger.warning("Shelf \(summary.id): \(error)")
                problems.append(Problem(kind: .shelfDetails, shelfID: summary.id, message: error.description))
                let ids = order.filter { listed[$0]?.int("shelf_id") == summary.id }
                shelves.append(Shelf(id: summary.id, name: UntrustedText.displayable(summary.name), bookCount: summary.bookCount, bookIDs: ids, complete: false))
            }
        }
        // A book a shelf lists but /books does not is still the user's book.
        var known = Set<Int>()
        order = order.filter { known.insert($0).inserted }
        for shelf in shelves {
            for id in shelf.bookIDs where known.insert(id).inserted { order.append(id) }
        }
        // The server promises no order: the snapshot uses the ids', so that runs compare byte for byte.
        order.sort()
        shelves.sort { $0.id < $1.id }
        for index in shelves.indices { shelves[index].bookIDs.sort() }
        // Shelf names as they are now: a renamed shelf does not touch its books' dates.
        var shelfNames: [Int: String] = [:]
        for page in shelfPages.values { if case .success(let answer) = page { shelfNames[answer.shelf.id] = answer.shelf.name } }

        var books: [Book] = []
        let detailWarnings = WarningLimiter(logger: logger, what: "books without details")
        for id in order {
            var fields = listed[id]?.fields ?? [:]
            for (key, value) in onShelves[id]?.fields ?? [:] where fields[key] == nil { fields[key] = value }
            if let kept = reused[id] {
                for (key, value) in kept.serverFields { fields[key] = value }
                if let shelf = fields["shelf_id"]?.intValue, let name = shelfNames[shelf] { fields["shelf_name"] = .string(name) }
                var book = Self.book(id: id, fields: fields, complete: true, note: kept.note)
                book.cover = nil
                books.append(book)
                continue
            }
            var complete = true
            var note: Note?
            switch details[id] {
            case .success(let detail)?:
                for (key, value) in detail.fields.fields { fields[key] = value }
                note = detail.note
            case .failure(let error)?:
                complete = false
                detailWarnings.warn("Book \(id): details could not be read: \(error)")
                problems.append(Problem(kind: .bookDetails, bookID: id, message: error.description))
            case nil:
                complete = false
            }
            books.append(Self.book(id: id, fields: fields, complete: complete, noteLimit: client.limits.noteBytes,
                                   linkBase: client.server.url(path: "/"), note: note))
        }
        detailWarnings.finish()
        if let memory = MemoryUsage.summary() { logger.debug("After assembling the books: \(memory)") }
        let failedDetails = books.filter { !$0.complete }.count
        logger.info("Book details: \(books.count - failedDetails - reused.count) read, \(reused.count) unchanged, \(failedDetails) failed")

        if privacy.isActive {
            for name in privacy.apply(shelves: &shelves, books: &books, problems: &problems) {
                logger.warning("--exclude-shelf \(name): no shelf has that name or id")
            }
        }

        var covers: [String: CoverRecord] = [:]
        if wantCovers {
            // Covers of books whose details failed are known only from the shelves: fetched last.
            let late = Array(Set(books.compactMap(\.imageURL)).subtracting(coverResults.keys)).sorted()
            if !late.isEmpty {
                let results = try await concurrentMap(late, limit: level.limit) { await fetcher.fetch($0).result }
                for (url, result) in zip(late, results) { coverResults[url] = result }
            }
            let (coverProblems, records) = assignCovers(coverResults, to: &books)
            problems += coverProblems
            covers = records
        }

        problems.sort { ($0.kind.rawValue, $0.shelfID ?? 0, $0.bookID ?? 0) < ($1.kind.rawValue, $1.shelfID ?? 0, $1.bookID ?? 0) }
        let library = Library(generatedAt: generatedAt, server: client.server.description,
                              user: (shelvesAnswer.user ?? booksAnswer.user).map(UntrustedText.displayable), userID: client.session?.userID,
                              shelves: shelves, books: books, problems: problems)
        return Result(library: library, covers: covers)
    }

    /// The previous snapshot's books that can stand for a fresh request: read whole, from a
    /// snapshot that left nothing out, with notes converted under the same limit.
    private func reusableBooks() -> [Int: Book] {
        guard let previous, previous.server == client.server.description, previous.userID == client.session?.userID
        else { return [:] }
        var books: [Int: Book] = [:]
        for book in previous.books where book.complete { books[book.id] = book }
        return books
    }

    /// The answer, and how many requests it took.
    private static func perform(_ work: Work, client: ReaderClient, fetcher: CoverFetcher,
                                onDeletedShelf: Set<Int>) async throws -> (Answer, Int) {
        do {
            switch work {
            case .shelf(let summary):
                do {
                    return (.shelf(summary, .success(try await client.shelf(id: summary.id))), 1)
                } catch let error as ReaderAPIError where !error.isUnauthorized {
                    return (.shelf(summary, .failure(error)), 1)
                }
            case .books:
                return (.books(try await client.books()), 1)
            case .detail(let id):
                do {
                    let fields = try await client.book(id: id, retryServerErrors: !onDeletedShelf.contains(id)).book
                    let note = Note(receiving: fields.fields["comments"]?.text, limit: client.limits.noteBytes,
                                    linkBase: client.server.url(path: "/"))
                    return (.detail(id, .success(Detail(fields: fields, note: note))), 1)
                } catch let error as ReaderAPIError where !error.isUnauthorized {
                    return (.detail(id, .failure(error)), 1)
                }
            case .cover(let url):
                try Task.checkCancellation()
                let (result, requests) = await fetcher.fetch(url)
                return (.cover(url, result), requests)
            }
        }
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

    private func assignCovers(_ results: [String: Swift.Result<CoverRecord, CoverProblem>],
                              to books: inout [Book]) -> ([Problem], [String: CoverRecord]) {
        var problems: [Problem] = []
        let coverWarnings = WarningLimiter(logger: logger, what: "covers not fetched")
        for index in books.indices {
            guard let url = books[index].imageURL, let result = results[url] else { continue }
            switch result {
            case .success(let record):
                books[index].cover = record.file
            case .failure(let problem):
                coverWarnings.warn("Book \(books[index].id): cover not fetched: \(problem)")
                problems.append(Problem(kind: .cover, bookID: books[index].id, message: problem.message))
            }
        }
        coverWarnings.finish()
        var records: [String: CoverRecord] = [:]
        var failed = 0
        for (url, result) in results {
            switch result {
            case .success(let record): records[url] = record
            case .failure: failed += 1
            }
        }
        client.metrics.record { $0.coversFailed += failed }
        logger.info("Covers: \(Set(records.values.map(\.file.path)).count) stored, \(failed) failed")
        return (problems, records)
    }
}

/// The first few warnings of a kind, then a count: a big library with many gaps should not bury
/// the summary (every gap is listed in the snapshot).
final class WarningLimiter {
    static let limit = 10
    private let logger: Logger
    private let what: String
    private var count = 0

    init(logger: Logger, what: String) {
        self.logger = logger
        self.what = what
    }

    func warn(_ message: String) {
        count += 1
        if count <= Self.limit { logger.warning("\(message)") }
    }

    func finish() {
        if count > Self.limit { logger.warning("… and \(count - Self.limit) more \(what), listed in the snapshot") }
    }
}
