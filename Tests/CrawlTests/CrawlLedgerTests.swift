import Foundation
import TestSupport
import Testing
@testable import Covers
@testable import Crawl
@testable import LibraryArchive
@testable import Notes
@testable import SnapshotStore
@testable import ReaderAPI
@testable import Support

/// The crawl's decisions, with no server and no disk: what it asks for, in what order, and when a
/// book has all it needs to be made.
@Suite struct CrawlLedgerTests {
    typealias Work = CrawlLedger.Work

    static let shelves = [ShelfSummary(id: 1, name: "Fiction"), ShelfSummary(id: 2, name: "Poetry")]

    /// A listed book; its fields "lie" at a range named by its id, which `address` reads back.
    static func listed(_ id: Int, shelf: Int?) -> Crawler.ListedBook {
        var fields: [String: JSONValue] = ["id": .int(id)]
        if let shelf { fields["shelf_id"] = .int(shelf) }
        return Crawler.ListedBook(BookFields(id: id, fields: fields), fields: id..<(id + 1))
    }

    static func page(_ shelf: ShelfSummary, _ ids: [Int]) -> Result<Crawler.ShelfPage, ReaderAPIError> {
        .success(Crawler.ShelfPage(shelf: shelf, books: ids.map { listed($0, shelf: shelf.id) }))
    }

    static func detail(cover: String?) -> Result<Crawler.ReadDetail, ReaderAPIError> {
        .success(Crawler.ReadDetail(place: .held(Crawler.Detail(fields: [:], note: Note(receiving: nil))), imageURL: cover))
    }

    /// The cover addresses of books whose details failed, by the book's id (its fields' range).
    static func address(_ covers: [Int: String]) -> CrawlLedger.CoverAddress {
        { covers[$0.lowerBound] }
    }

    static let failure = ReaderAPIError(.serverError(status: 500), request: "GET /api/v1/books/3")

    /// The covers stored, as the crawl's records would tell.
    final class Stored {
        var urls = Set<String>()
    }

    static func ledger(_ shelves: [ShelfSummary], privacy: Privacy = Privacy(), wantCovers: Bool = true,
                       reusable: [Int: Int] = [:], stored: Stored = Stored()) -> CrawlLedger {
        CrawlLedger(shelves: shelves, privacy: privacy, wantCovers: wantCovers, reusable: reusable, coverStored: { stored.urls.contains($0) })
    }

    static func drain(_ ledger: inout CrawlLedger) -> [Work] {
        var sent: [Work] = []
        while let work = ledger.nextRequest() { sent.append(work) }
        return sent
    }

    @Test func theListSaysWhereEveryBookIsAndNoShelfPageIsAskedFor() throws {
        let shelves = [ShelfSummary(id: 1, name: "Fiction", bookCount: 2), ShelfSummary(id: 2, name: "Poetry", bookCount: 1)]
        var ledger = Self.ledger(shelves)
        #expect(Self.drain(&ledger).isEmpty, "nothing before the list")
        try ledger.listCame(Crawler.ListedBooks(user: "me", books: [Self.listed(12, shelf: 2), Self.listed(10, shelf: 1), Self.listed(11, shelf: 1)]),
                            coverAddress: Self.address([:]))
        let sent = Self.drain(&ledger)
        #expect(sent == [.detail(12), .detail(10), .detail(11)])
        let frame = try #require(ledger.frame, "the list alone makes the frame")
        #expect(frame.order == [10, 11, 12])
        #expect(frame.shelves.map(\.bookIDs) == [[10, 11], [12]])
        #expect(frame.shelves.map(\.name) == ["Fiction", "Poetry"])
        #expect(frame.shelfNames == [1: "Fiction", 2: "Poetry"])
        #expect(ledger.booksToFetch == 3)
        #expect(ledger.booksFetched == 0)
    }

    /// The progress counts the books it fetches, each once, of a total the list fixes: a book whose
    /// cover is still to come is not done, one whose details failed is, an unchanged one is not
    /// counted at all, and one only a shelf lists adds itself to the total when it is asked for.
    @Test func progressCountsEachFetchedBookOnceWhenItsDetailsAndCoverAreIn() throws {
        let shelves = [ShelfSummary(id: 1, name: "Fiction", bookCount: 5)]
        var ledger = Self.ledger(shelves)
        #expect(ledger.booksToFetch == nil, "no total before the list")
        var unchanged = Self.listed(5, shelf: 1)
        unchanged.unchanged = 0
        try ledger.listCame(Crawler.ListedBooks(books: [Self.listed(1, shelf: 1), Self.listed(2, shelf: 1), Self.listed(3, shelf: 1), unchanged]),
                            coverAddress: Self.address([:]))
        #expect(ledger.booksToFetch == 3)
        try ledger.detailCame(1, Self.detail(cover: nil), coverAddress: Self.address([:]))
        #expect(ledger.booksFetched == 1)
        try ledger.detailCame(2, Self.detail(cover: "https://covers.example/2.jpg"), coverAddress: Self.address([:]))
        #expect(ledger.booksFetched == 1, "book 2 waits for its cover")
        try ledger.detailsFailed(3, Self.failure, coverAddress: Self.address([:]))
        #expect(ledger.booksFetched == 2)
        ledger.queueReusedCovers { _ in "https://covers.example/5.jpg" }
        ledger.coverCame("https://covers.example/2.jpg", problem: nil)
        ledger.coverCame("https://covers.example/5.jpg", problem: CoverProblem(message: "HTTP 404"))
        #expect(ledger.booksFetched == 3, "the unchanged book is not counted")
        // The shelf names a sixth book the list left out.
        try ledger.shelfCame(shelves[0], Self.page(shelves[0], [1, 2, 3, 5, 6]), coverAddress: Self.address([:]))
        _ = Self.drain(&ledger)
        ledger.askForBooksOnlyShelvesList()
        #expect(Self.drain(&ledger) == [.detail(6)])
        #expect(ledger.booksToFetch == 4)
        try ledger.detailCame(6, Self.detail(cover: nil), coverAddress: Self.address([:]))
        #expect(ledger.booksFetched == 4)
    }

    @Test func aShelfWhoseCountTheListDoesNotMakeUpIsAskedForAndItsExtraBookToo() throws {
        let shelves = [ShelfSummary(id: 1, name: "Fiction", bookCount: 2), ShelfSummary(id: 2, name: "Poetry", bookCount: 2)]
        var ledger = Self.ledger(shelves, wantCovers: false)
        try ledger.listCame(Crawler.ListedBooks(books: [Self.listed(10, shelf: 1), Self.listed(11, shelf: 1), Self.listed(12, shelf: 2)]),
                            coverAddress: Self.address([:]))
        let sent = Self.drain(&ledger)
        #expect(sent == [.shelf(shelves[1]), .detail(10), .detail(11), .detail(12)])
        #expect(ledger.frame == nil, "shelf 2 is still out")
        try ledger.shelfCame(shelves[1], Self.page(shelves[1], [12, 13]), coverAddress: Self.address([:]))
        let frame = try #require(ledger.frame)
        #expect(frame.shelves.map(\.bookIDs) == [[10, 11], [12, 13]])
        ledger.askForBooksOnlyShelvesList()
        #expect(Self.drain(&ledger) == [.detail(13)])
    }

    @Test func aListWithoutShelvesAsksForEveryShelfAsReadersOlderDocumentsSay() throws {
        let shelves = [ShelfSummary(id: 1, name: "Fiction", bookCount: 1), ShelfSummary(id: 2, name: "Poetry", bookCount: 0)]
        var ledger = Self.ledger(shelves, wantCovers: false)
        try ledger.listCame(Crawler.ListedBooks(books: [Self.listed(10, shelf: nil)]), coverAddress: Self.address([:]))
        #expect(Self.drain(&ledger) == [.shelf(shelves[0]), .shelf(shelves[1]), .detail(10)])
        try ledger.shelfCame(shelves[0], Self.page(shelves[0], [10]), coverAddress: Self.address([:]))
        #expect(ledger.frame == nil)
        try ledger.shelfCame(shelves[1], Self.page(shelves[1], []), coverAddress: Self.address([:]))
        #expect(ledger.frame?.shelves.map(\.bookIDs) == [[10], []])
    }

    @Test func failedDetailsAskForTheirShelfsPageForTheCoverItGives() throws {
        let shelves = [ShelfSummary(id: 1, name: "Fiction", bookCount: 2)]
        var ledger = Self.ledger(shelves)
        try ledger.listCame(Crawler.ListedBooks(books: [Self.listed(1, shelf: 1), Self.listed(2, shelf: 1)]), coverAddress: Self.address([:]))
        #expect(Self.drain(&ledger) == [.detail(1), .detail(2)])
        #expect(ledger.frame != nil)
        // The list has no cover address; the shelf's page has (the book's fields "lie" at 100).
        try ledger.detailsFailed(2, Self.failure, coverAddress: Self.address([100: "https://covers.example/2.jpg"]))
        #expect(Self.drain(&ledger) == [.shelf(shelves[0])])
        let onShelf = Crawler.ShelfPage(shelf: shelves[0], books: [Self.listed(1, shelf: 1),
                                                                   Crawler.ListedBook(BookFields(id: 2, fields: ["id": .int(2)]), fields: 100..<101)])
        try ledger.shelfCame(shelves[0], .success(onShelf), coverAddress: Self.address([100: "https://covers.example/2.jpg"]))
        #expect(Self.drain(&ledger) == [.cover("https://covers.example/2.jpg")])
        #expect(ledger.sources(of: 2).onShelf?.fields == 100..<101)
        #expect(ledger.frame?.shelves.map(\.bookIDs) == [[1, 2]], "the frame stands as the list made it")
        // A page asked for only for that, which fails, is no problem of the shelf's.
        var other = Self.ledger(shelves)
        try other.listCame(Crawler.ListedBooks(books: [Self.listed(1, shelf: 1), Self.listed(2, shelf: 1)]), coverAddress: Self.address([:]))
        try other.detailsFailed(2, Self.failure, coverAddress: Self.address([:]))
        try other.shelfCame(shelves[0], .failure(Self.failure), coverAddress: Self.address([:]))
        #expect(other.frame?.problems.isEmpty == true)
    }

    /// Covers held back (thumbnails behind) let details go first, but never leave the server idle.
    @Test func heldBackCoversWaitOnlyWhileOtherRequestsCanGo() {
        var queue = RequestQueue()
        queue.append(.detail(1))
        queue.append(.cover("https://covers.example/1.jpg"))
        queue.append(.detail(2))
        queue.append(.cover("https://covers.example/2.jpg"))
        #expect(queue.popFirst(coversToo: false) == .detail(1))
        #expect(queue.popFirst(coversToo: true) == .cover("https://covers.example/1.jpg"), "covers first when they may go")
        #expect(queue.popFirst(coversToo: false) == .detail(2))
        #expect(queue.popFirst(coversToo: false) == .cover("https://covers.example/2.jpg"), "nothing else left: the cover goes")
        #expect(queue.popFirst(coversToo: false) == nil)
        #expect(queue.isEmpty)
    }

    @Test func whatFailedInTheLastRunsWaitsItsTurn() throws {
        let shelves = [ShelfSummary(id: 1, name: "Fiction", bookCount: 1)]
        var schedule = RetrySchedule()
        let night = 1_700_000_000
        schedule.details["3"] = RetrySchedule.Failure(lastTried: night, tries: 2, message: "the server failed (HTTP 500)", updatedAt: "2024-01-01")
        schedule.covers["https://gone.example/1.jpg"] = RetrySchedule.Failure(lastTried: night, tries: 3, message: "could not connect")
        var ledger = CrawlLedger(shelves: shelves, privacy: Privacy(), wantCovers: true, reusable: [:],
                                 retry: Crawler.Retry(schedule: schedule, now: night + 3_600), coverStored: { _ in false })
        var waiting = Self.listed(3, shelf: 9)
        waiting.detailsWait = true
        try ledger.listCame(Crawler.ListedBooks(books: [Self.listed(1, shelf: 1), waiting]), coverAddress: Self.address([:]))
        #expect(Self.drain(&ledger) == [.detail(1)], "book 3's details wait")
        #expect(ledger.detailsWaiting == [3])
        let failure = try #require(ledger.sources(of: 3).failure)
        #expect(failure.description == "GET /api/v1/books/3: not fetched since 2023-11-14 (the server failed (HTTP 500)); asked again from 2023-11-15, or with --full")
        try ledger.detailCame(1, Self.detail(cover: "https://gone.example/1.jpg"), coverAddress: Self.address([:]))
        #expect(Self.drain(&ledger).isEmpty, "the cover waits a week")
        #expect(ledger.coversWaiting == ["https://gone.example/1.jpg"])
        #expect(ledger.coverFailures["https://gone.example/1.jpg"]?.message.hasPrefix("not fetched since 2023-11-14 (could not connect)") == true)
        #expect(ledger.booksReady(atMost: 8, isMade: { _ in false }).map(\.id) == [1], "its book is not kept waiting")
    }

    @Test func aBookWaitsForItsCoverAndOneCoverIsAskedForOnceForTwoBooks() throws {
        let stored = Stored()
        var ledger = Self.ledger([Self.shelves[0]], stored: stored)
        _ = Self.drain(&ledger)
        try ledger.listCame(Crawler.ListedBooks(books: [Self.listed(1, shelf: 1), Self.listed(2, shelf: 1)]), coverAddress: Self.address([:]))
        try ledger.shelfCame(Self.shelves[0], Self.page(Self.shelves[0], [1, 2]), coverAddress: Self.address([:]))
        _ = Self.drain(&ledger)
        try ledger.detailCame(1, Self.detail(cover: "https://covers.example/a.jpg"), coverAddress: Self.address([:]))
        try ledger.detailCame(2, Self.detail(cover: "https://covers.example/a.jpg"), coverAddress: Self.address([:]))
        let value4 = Self.drain(&ledger)
        #expect(value4 == [.cover("https://covers.example/a.jpg")])
        #expect(!ledger.hasBooksReady, "both books wait for the cover")
        stored.urls.insert("https://covers.example/a.jpg")
        ledger.coverCame("https://covers.example/a.jpg", problem: nil)
        #expect(ledger.coverKnown("https://covers.example/a.jpg"))
        let value5 = ledger.booksReady(atMost: 32, isMade: { _ in false }).map(\.id)
        #expect(value5 == [1, 2])
        // A third book with the same cover does not ask for it again, and is ready at once.
        try ledger.detailCame(3, Self.detail(cover: "https://covers.example/a.jpg"), coverAddress: Self.address([:]))
        let value6 = Self.drain(&ledger)
        #expect(value6.isEmpty)
        let value7 = ledger.booksReady(atMost: 32, isMade: { _ in false }).map(\.id)
        #expect(value7 == [3])
    }

    @Test func detailsThatFailAskForTheCoverFromTheListAndWaitForTheEnd() throws {
        var ledger = Self.ledger([Self.shelves[0]], privacy: Privacy(), wantCovers: true, reusable: [:])
        _ = Self.drain(&ledger)
        let covers = Self.address([3: "https://covers.example/3.jpg"])
        // On shelf 9, which the server does not list: its details are expected to crash.
        try ledger.listCame(Crawler.ListedBooks(books: [Self.listed(3, shelf: 9)]), coverAddress: covers)
        #expect(ledger.onDeletedShelf == [3])
        _ = Self.drain(&ledger)
        try ledger.detailsFailed(3, Self.failure, coverAddress: covers)
        let value8 = Self.drain(&ledger)
        #expect(value8.isEmpty, "before the frame, privacy may still leave the book out")
        try ledger.shelfCame(Self.shelves[0], Self.page(Self.shelves[0], []), coverAddress: covers)
        let value9 = Self.drain(&ledger)
        #expect(value9 == [.cover("https://covers.example/3.jpg")])
        ledger.coverCame("https://covers.example/3.jpg", problem: CoverProblem(message: "HTTP 404"))
        #expect(!ledger.hasBooksReady, "a book without details is made at the end")
        #expect(ledger.sources(of: 3).failure != nil)
        #expect(ledger.coverFailures["https://covers.example/3.jpg"]?.message == "HTTP 404")
    }

    @Test func anExcludedShelfsBooksAskForNoCover() throws {
        var ledger = Self.ledger([Self.shelves[0]], privacy: Privacy(excludedShelves: ["fiction"]), wantCovers: true, reusable: [:])
        _ = Self.drain(&ledger)
        let covers = Self.address([3: "https://covers.example/3.jpg"])
        try ledger.listCame(Crawler.ListedBooks(books: [Self.listed(3, shelf: 1)]), coverAddress: covers)
        _ = Self.drain(&ledger)
        try ledger.detailsFailed(3, Self.failure, coverAddress: covers)
        try ledger.shelfCame(Self.shelves[0], Self.page(Self.shelves[0], [3]), coverAddress: covers)
        let value10 = Self.drain(&ledger)
        #expect(value10.isEmpty)
        #expect(ledger.frame?.plan?.excludedShelves == [1])
    }

    @Test func unchangedBooksAreNotAskedForAndTheirCoversGoAFewAtATime() throws {
        let reusable = Dictionary(uniqueKeysWithValues: (1...600).map { ($0, $0 - 1) })
        var ledger = Self.ledger([], privacy: Privacy(), wantCovers: true, reusable: reusable)
        var books = (1...600).map { Self.listed($0, shelf: nil) }
        for index in books.indices { books[index].unchanged = index }
        try ledger.listCame(Crawler.ListedBooks(books: books), coverAddress: Self.address([:]))
        #expect(ledger.queue.isEmpty)
        #expect(ledger.reused.count == 600)
        ledger.queueReusedCovers { "https://covers.example/\($0).jpg" }
        #expect(ledger.queue.count == 256)
        let first = Self.drain(&ledger)
        #expect(first.first == .cover("https://covers.example/0.jpg"))
        ledger.queueReusedCovers { "https://covers.example/\($0).jpg" }
        ledger.queueReusedCovers { "https://covers.example/\($0).jpg" }
        let rest = Self.drain(&ledger)
        #expect(first.count + rest.count == 512)
    }

    @Test func booksOnlyAShelfListsAreAskedForOnceEverythingElseIsIn() throws {
        var ledger = Self.ledger([Self.shelves[0]], privacy: Privacy(), wantCovers: false, reusable: [7: 0])
        _ = Self.drain(&ledger)
        try ledger.listCame(Crawler.ListedBooks(books: [Self.listed(1, shelf: 1)]), coverAddress: Self.address([:]))
        // The shelf came after the list: its extra book waits, unless it is unchanged (7).
        try ledger.shelfCame(Self.shelves[0], Self.page(Self.shelves[0], [1, 5, 7]), coverAddress: Self.address([:]))
        let value11 = Self.drain(&ledger)
        #expect(value11 == [.shelf(Self.shelves[0]), .detail(1)])
        ledger.askForBooksOnlyShelvesList()
        let value12 = Self.drain(&ledger)
        #expect(value12 == [.detail(5), .detail(7)])
        ledger.askForBooksOnlyShelvesList()
        let value13 = Self.drain(&ledger)
        #expect(value13.isEmpty, "asked once")
    }
}
