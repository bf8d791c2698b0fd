import Foundation
import Logging

/// Walks the whole library through the API: shelves, every shelf, every book, every cover.
public struct Crawler: Sendable {
    public var client: ReaderClient
    public var concurrency: Int
    public var fetchCovers: Bool
    public var logger: Logger
    public var live: LiveProgress?
    public var privacy = Privacy()

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

    /// Fetches the library; cover files are written through `writer` (or linked from the previous
    /// snapshot). A 401 or a server that cannot list the library throws; a book or cover that cannot
    /// be read is recorded as a problem.
    public func crawl(generatedAt: String, writer: SnapshotWriter, previousCovers: [String: CoverRecord] = [:]) async throws -> Result {
        let client = self.client
        let shelvesAnswer = try await client.shelves()
        logger.info("Shelves: \(shelvesAnswer.shelves.count)")

        // The shelves and the list of every book, together.
        async let allBooks = client.books()
        let shelfProgress = ProgressLog("Shelves", total: shelvesAnswer.shelves.count, logger: logger, live: live)
        let shelfPages: [Swift.Result<ShelfAnswer, ReaderAPIError>] = try await concurrentMap(shelvesAnswer.shelves, limit: concurrency) { shelf in
            defer { shelfProgress.step() }
            do {
                return .success(try await client.shelf(id: shelf.id))
            } catch let error as ReaderAPIError where !error.isUnauthorized {
                return .failure(error)
            }
        }
        let booksAnswer = try await allBooks
        logger.info("Books listed: \(booksAnswer.books.count)")

        var problems: [Problem] = []
        var listed: [Int: BookFields] = [:]
        var order: [Int] = []
        for book in booksAnswer.books where listed[book.id] == nil {
            listed[book.id] = book
            order.append(book.id)
        }
        var onShelves: [Int: BookFields] = [:]
        var shelves: [Shelf] = []
        for (summary, page) in zip(shelvesAnswer.shelves, shelfPages) {
            switch page {
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
        var known = Set(order)
        for shelf in shelves {
            for id in shelf.bookIDs where known.insert(id).inserted { order.append(id) }
        }
        // The server promises no order: the snapshot uses the ids', so that runs compare byte for byte.
        order.sort()
        shelves.sort { $0.id < $1.id }
        for index in shelves.indices { shelves[index].bookIDs.sort() }

        let detailed = order.count
        logger.info("Book details: fetching \(detailed)")
        let detailProgress = ProgressLog("Book details", total: detailed, logger: logger, live: live)
        // A book that says it sits on a shelf the server does not list will crash its detail page:
        // that 500 is the expected answer, not one to retry.
        let shelfIDs = Set(shelvesAnswer.shelves.map(\.id))
        let onDeletedShelf = Set(order.filter { id in listed[id]?.int("shelf_id").map { !shelfIDs.contains($0) } ?? false })
        let details: [Swift.Result<BookFields, ReaderAPIError>] = try await concurrentMap(order, limit: concurrency) { id in
            defer { detailProgress.step() }
            do {
                return .success(try await client.book(id: id, retryServerErrors: !onDeletedShelf.contains(id)).book)
            } catch let error as ReaderAPIError where !error.isUnauthorized {
                return .failure(error)
            }
        }

        var books: [Book] = []
        let detailWarnings = WarningLimiter(logger: logger, what: "books without details")
        for (id, detail) in zip(order, details) {
            var fields = listed[id]?.fields ?? [:]
            for (key, value) in onShelves[id]?.fields ?? [:] where fields[key] == nil { fields[key] = value }
            var complete = true
            switch detail {
            case .success(let book):
                for (key, value) in book.fields { fields[key] = value }
            case .failure(let error):
                complete = false
                detailWarnings.warn("Book \(id): details could not be read: \(error)")
                problems.append(Problem(kind: .bookDetails, bookID: id, message: error.description))
            }
            books.append(Self.book(id: id, fields: fields, complete: complete, noteLimit: client.limits.noteBytes,
                                   linkBase: client.server.url(path: "/")))
        }
        detailWarnings.finish()
        let failedDetails = books.filter { !$0.complete }.count
        logger.info("Book details: \(detailed - failedDetails) read, \(failedDetails) failed")

        if privacy.isActive {
            for name in privacy.apply(shelves: &shelves, books: &books, problems: &problems) {
                logger.warning("--exclude-shelf \(name): no shelf has that name or id")
            }
        }

        var covers: [String: CoverRecord] = [:]
        if fetchCovers && privacy.covers {
            let (coverProblems, records) = try await self.fetchCovers(for: &books, writer: writer, previous: previousCovers)
            problems += coverProblems
            covers = records
        }

        problems.sort { ($0.kind.rawValue, $0.shelfID ?? 0, $0.bookID ?? 0) < ($1.kind.rawValue, $1.shelfID ?? 0, $1.bookID ?? 0) }
        let library = Library(generatedAt: generatedAt, server: client.server.description,
                              user: (shelvesAnswer.user ?? booksAnswer.user).map(UntrustedText.displayable), userID: client.session?.userID,
                              shelves: shelves, books: books, problems: problems)
        return Result(library: library, covers: covers)
    }

    static func book(id: Int, fields: [String: JSONValue], complete: Bool, noteLimit: Int = Note.defaultLimit,
                     linkBase: URL? = nil) -> Book {
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
                    note: Note(receiving: comments?.text, limit: noteLimit, linkBase: linkBase), complete: complete, serverFields: kept)
    }

    private func fetchCovers(for books: inout [Book], writer: SnapshotWriter,
                             previous: [String: CoverRecord]) async throws -> ([Problem], [String: CoverRecord]) {
        var urls: [String] = []
        var seen = Set<String>()
        for book in books {
            if let url = book.imageURL, seen.insert(url).inserted { urls.append(url) }
        }
        logger.info("Covers: fetching \(urls.count)")
        let fetcher = CoverFetcher(client: client, writer: writer, previous: previous)
        let progress = ProgressLog("Covers", total: urls.count, logger: logger, live: live)
        let results = try await concurrentMap(urls, limit: concurrency) { url in
            try Task.checkCancellation()
            defer { progress.step() }
            return await fetcher.fetch(url)
        }
        let byURL = Dictionary(uniqueKeysWithValues: zip(urls, results))
        var problems: [Problem] = []
        let coverWarnings = WarningLimiter(logger: logger, what: "covers not fetched")
        for index in books.indices {
            guard let url = books[index].imageURL, let result = byURL[url] else { continue }
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
        for (url, result) in byURL { if case .success(let record) = result { records[url] = record } }
        let failed = results.filter { (try? $0.get()) == nil }.count
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
