import Covers
import Foundation
import LibraryArchive
import ReaderAPI
import SnapshotStore
import Support

/// What the crawl knows of every shelf and book as answers come in, and what that tells it to do
/// next: which details and covers to ask for, and which books have all they need to be made.
///
/// A plain value: the driver sends the requests, reads the answers and tells it what came back.
/// Where a decision needs a book's fields from the spill file (the cover of a book whose details
/// failed), the driver hands it a function that reads them.
struct CrawlLedger {
    /// One request (or one cover, with its redirects) of the crawl.
    enum Work: Sendable, Equatable {
        /// Boxed: a queue of 100,000 details takes 24 bytes each, not 40.
        indirect case shelf(ShelfSummary)
        case books
        case detail(Int)
        case cover(String)
    }

    /// Reads a cover's address from a book's fields, where they lie in the spill file.
    typealias CoverAddress = (_ fields: Range<Int>) throws -> String?

    let shelves: [ShelfSummary]
    let privacy: Privacy
    let wantCovers: Bool
    /// The previous snapshot's books that may stand in for a request, by their place in it.
    private(set) var reusable: [Int: Int]
    /// What failed in the last runs, and is not asked for again before its turn.
    let retry: Crawler.Retry
    /// Books whose details, and covers, left for a later run: what the last run said of them stands.
    private(set) var detailsWaiting = Set<Int>()
    private(set) var coversWaiting = Set<String>()
    private let shelfIDs: Set<Int>

    /// Requests not sent yet: covers before the rest.
    private(set) var queue = RequestQueue()

    private(set) var shelfPages: [Int: Result<Crawler.KeptShelf, ReaderAPIError>] = [:]
    /// Shelves whose page was asked for. The list of books says where each book is: a shelf's page
    /// is asked for only where the list leaves something out (every page costs the real server
    /// as much as the books on it, 304 or not).
    private(set) var shelvesAsked = Set<Int>()
    /// Shelves whose page the list of books leaves something to learn from: a failure there is a
    /// problem. The others' pages are asked for only to fill in books whose details failed.
    private var shelvesNeeded = Set<Int>()
    private var shelvesAwaited = Set<Int>()
    /// The list of books, once in: its user, and its books' order (their texts are not kept).
    private(set) var listing: (user: String?, order: [Int])?
    /// Each listed book's shelf and where its fields wait.
    private(set) var listed: [Int: Crawler.KeptBook] = [:]
    /// Where each book's details wait, or why they could not be read.
    private(set) var details: [Int: Crawler.DetailPlace] = [:]
    private(set) var detailsHeld = 0
    private(set) var detailFailures: [Int: ReaderAPIError] = [:]
    private var asked = Set<Int>()
    /// Books taken from the previous snapshot, by their place in it.
    private(set) var reused: [Int: Int] = [:]
    /// Books that the list puts on a shelf the server does not list: their details crash.
    private(set) var onDeletedShelf = Set<Int>()

    /// Covers asked for and not yet in, with the books that wait for each.
    private var coverWaiting: [String: [Int]] = [:]
    /// Whether this run stored the cover at an address: the driver's records tell, where they
    /// are kept (100,000 addresses held here as well took megabytes).
    private let coverStored: (String) -> Bool
    private(set) var coverFailures: [String: CoverProblem] = [:]
    /// Unchanged books whose covers are still to be asked for, a few at a time.
    private var reusedCovers: [Int] = []
    private var nextReusedCover = 0

    /// The covers' addresses the last run saw, by book id: a book whose details fail tonight
    /// keeps its cover from there when no shelf's page names it.
    var lastAddresses = CoverAddresses()
    /// What the whole library is, once the list and every shelf are in.
    private(set) var frame: Crawler.Frame?
    /// Books with all they need, to be made while requests are still in flight.
    private var readyBooks = WorkQueue<Int>()
    /// For the progress: books asked for whose details and cover are in (or failed), each counted
    /// once, of the books asked for (nil before the list). Books unchanged since the last snapshot,
    /// and those waiting for a later run, are not counted: nothing is fetched for them.
    private(set) var booksFetched = 0
    private(set) var booksToFetch: Int?

    init(shelves: [ShelfSummary], privacy: Privacy, wantCovers: Bool, reusable: [Int: Int], retry: Crawler.Retry = Crawler.Retry(),
         coverStored: @escaping (String) -> Bool) {
        self.coverStored = coverStored
        self.retry = retry
        self.shelves = shelves
        self.privacy = privacy
        self.wantCovers = wantCovers
        self.reusable = reusable
        shelfIDs = Set(shelves.map(\.id))
    }

    // MARK: Requests

    /// The next request; without `coversToo`, a cover only when nothing else is left to ask for.
    mutating func nextRequest(coversToo: Bool = true) -> Work? { queue.popFirst(coversToo: coversToo) }

    private mutating func enqueue(_ work: Work) {
        queue.append(work)
    }

    /// Whether the cover at `url` came, or failed, in this run.
    func coverKnown(_ url: String) -> Bool {
        coverFailures[url] != nil || coverStored(url)
    }

    /// Asks for a book's cover; false when the book need not wait for it.
    private mutating func wantCover(_ url: String?, for id: Int) -> Bool {
        guard wantCovers, let url, !coverKnown(url) else { return false }
        if let waiting = retry.waitingCover(url) {
            coversWaiting.insert(url)
            coverFailures[url] = CoverProblem(message: RetrySchedule.notFetched(waiting))
            return false
        }
        if coverWaiting[url] != nil {
            coverWaiting[url]!.append(id)
            return true
        }
        coverWaiting[url] = [id]
        enqueue(.cover(url))
        return true
    }

    /// Unchanged books' covers join the queue a few at a time: 100,000 addresses waiting at once
    /// took more memory than the rest of the run. `imageURL` gives a book's address by its place
    /// in the previous snapshot.
    mutating func queueReusedCovers(imageURL: (Int) -> String?) {
        while queue.count < 256, nextReusedCover < reusedCovers.count {
            let id = reusedCovers[nextReusedCover]
            nextReusedCover += 1
            if let place = reused[id], !wantCover(imageURL(place), for: id), frame != nil { readyBooks.append(id) }
        }
    }

    /// The shelves whose page says more than the list of books: all of them when a listed book does
    /// not say its shelf (Reader's older documents), else those whose count the list does not
    /// account for (a book that only its shelf lists).
    static func shelvesTheListLeavesOut(_ shelves: [ShelfSummary], listed: [Crawler.ListedBook]) -> [ShelfSummary] {
        var counts: [Int: Int] = [:]
        for book in listed {
            guard let shelf = book.shelfID else { return shelves }
            counts[shelf, default: 0] += 1
        }
        return shelves.filter { $0.bookCount == nil || $0.bookCount != counts[$0.id, default: 0] }
    }

    private mutating func askForShelf(_ shelf: ShelfSummary) {
        guard shelvesAsked.insert(shelf.id).inserted else { return }
        shelvesAwaited.insert(shelf.id)
        enqueue(.shelf(shelf))
    }

    /// Books that a shelf lists but /books does not: their details, once every shelf is in and
    /// nothing else is (called when the queue is empty and nothing is in flight).
    mutating func askForBooksOnlyShelvesList() {
        guard queue.isEmpty, listing != nil else { return }
        for page in shelfPages.values {
            guard case .success(let answer) = page else { continue }
            for id in answer.ids where asked.insert(id).inserted && reused[id] == nil {
                enqueue(.detail(id))
                booksToFetch = (booksToFetch ?? 0) + 1
            }
        }
    }

    // MARK: Answers

    /// A shelf's page, read (or why not). Details need not wait for the list of every book, unless
    /// the list may say a book is unchanged (or sits on a deleted shelf, which no shelf lists).
    mutating func shelfCame(_ summary: ShelfSummary, _ page: Result<Crawler.ShelfPage, ReaderAPIError>,
                            coverAddress: CoverAddress) rethrows {
        let kept = page.map { Crawler.KeptShelf(shelf: $0.shelf, ids: $0.books.map(\.id), books: $0.books.map(\.kept)) }
        shelvesAwaited.remove(summary.id)
        if case .failure = kept, !shelvesNeeded.contains(summary.id) {
            // The list said where this shelf's books are: the books that waited for it go without.
            try frameIfComplete(coverAddress: coverAddress)
            return
        }
        guard frame == nil else {
            // Asked for after the frame, for books whose details failed: their fields from the shelf.
            if case .success(let answer) = kept { try shelfCameLate(answer, coverAddress: coverAddress) }
            return
        }
        shelfPages[summary.id] = kept
        if case .success(let answer) = page, listing == nil {
            for book in answer.books where reusable[book.id] == nil && asked.insert(book.id).inserted { enqueue(.detail(book.id)) }
        }
        try frameIfComplete(coverAddress: coverAddress)
    }

    /// A shelf's page asked for once the frame was made: the books on it whose details failed
    /// take their fields (their cover among them) from it, as they would have from the start.
    private mutating func shelfCameLate(_ answer: Crawler.KeptShelf, coverAddress: CoverAddress) rethrows {
        for (id, book) in zip(answer.ids, answer.books) where frame?.onShelves[id] == nil && listed[id]?.shelfID == answer.shelf.id {
            frame?.onShelves[id] = book
            if wantCovers, detailFailures[id] != nil, let url = try coverWithoutDetails(id, coverAddress: coverAddress) { _ = wantCover(url, for: id) }
        }
    }

    /// The list of every book. Returns how many books' details are to be asked for.
    @discardableResult
    mutating func listCame(_ answer: Crawler.ListedBooks, coverAddress: CoverAddress) rethrows -> Int {
        listing = (answer.user, answer.books.map(\.id))
        for shelf in Self.shelvesTheListLeavesOut(shelves, listed: answer.books) {
            shelvesNeeded.insert(shelf.id)
            askForShelf(shelf)
        }
        var toFetch = 0
        // Room made at once: a dictionary grown by doubling holds its old table beside the new.
        listed.reserveCapacity(listed.count + answer.books.count)
        asked.reserveCapacity(asked.count + answer.books.count)
        if !reusable.isEmpty { reused.reserveCapacity(reused.count + answer.books.count) }
        for book in answer.books where listed[book.id] == nil {
            listed[book.id] = book.kept
            // A book on a shelf the server does not list will crash its detail page: that 500 is
            // the expected answer, not one to retry.
            if let shelf = book.shelfID, !shelfIDs.contains(shelf) { onDeletedShelf.insert(book.id) }
            if let place = book.unchanged {
                reused[book.id] = place
                reusedCovers.append(book.id)
            } else if book.detailsWait, let waiting = retry.schedule.details[String(book.id)] {
                asked.insert(book.id)
                detailsWaiting.insert(book.id)
                try detailsFailed(book.id, ReaderAPIError(.notAskedAgain(detail: RetrySchedule.notFetched(waiting)), request: "GET /api/v1/books/\(book.id)"),
                                  coverAddress: coverAddress)
            } else if asked.insert(book.id).inserted {
                enqueue(.detail(book.id))
                toFetch += 1
            }
        }
        booksToFetch = (booksToFetch ?? 0) + toFetch
        try frameIfComplete(coverAddress: coverAddress)
        return toFetch
    }

    /// A book's details, read (or why not).
    mutating func detailCame(_ id: Int, _ detail: Result<Crawler.ReadDetail, ReaderAPIError>, coverAddress: CoverAddress) rethrows {
        switch detail {
        case .success(let detail):
            details[id] = detail.place
            if case .held = detail.place { detailsHeld += 1 }
            if !wantCover(detail.imageURL, for: id) {
                booksFetched += 1
                if frame != nil { readyBooks.append(id) }
            }
        case .failure(let error):
            try detailsFailed(id, error, coverAddress: coverAddress)
        }
    }

    /// Details that failed: the book is made at the end, its cover asked for now, among the other
    /// requests, rather than after them all.
    mutating func detailsFailed(_ id: Int, _ error: ReaderAPIError, coverAddress: CoverAddress) rethrows {
        detailFailures[id] = error
        // Its cover, if one is found, comes after; the book is made at the end either way.
        if !detailsWaiting.contains(id) { booksFetched += 1 }
        // The list gives no cover: the book's shelf page does, as it gives the other books'.
        if let shelf = listed[id]?.shelfID, shelfIDs.contains(shelf), !shelvesAsked.contains(shelf),
           let summary = shelves.first(where: { $0.id == shelf }) {
            askForShelf(summary)
        }
        if wantCovers, frame != nil, let url = try coverWithoutDetails(id, coverAddress: coverAddress) { _ = wantCover(url, for: id) }
    }

    /// A cover stored (its record kept where `coverStored` finds it), or why not; the books that
    /// waited for it can be made (a book whose details failed waits for the end, where it is reported).
    mutating func coverCame(_ url: String, problem: CoverProblem?) {
        if let problem { coverFailures[url] = problem }
        guard let waiting = coverWaiting.removeValue(forKey: url) else { return }
        for id in waiting where detailFailures[id] == nil {
            if reused[id] == nil { booksFetched += 1 }
            if frame != nil { readyBooks.append(id) }
        }
    }

    // MARK: Books

    /// Once the list and every shelf are in: what the whole library is, and the books that can
    /// already be made.
    mutating func frameIfComplete(coverAddress: CoverAddress) rethrows {
        guard frame == nil, let listing, shelvesAwaited.isEmpty else { return }
        makeFrame(listing: listing)
        // The shelves' books are in the frame now: only their ids are still needed.
        for (id, page) in shelfPages {
            guard case .success(var kept) = page else { continue }
            kept.books = []
            shelfPages[id] = .success(kept)
        }
        if wantCovers {
            for id in detailFailures.keys.sorted() {
                if let url = try coverWithoutDetails(id, coverAddress: coverAddress) { _ = wantCover(url, for: id) }
            }
        }
        let waiting = Set(coverWaiting.values.joined())
        for id in details.keys where !waiting.contains(id) { readyBooks.append(id) }
        for id in reusedCovers[..<nextReusedCover] where !waiting.contains(id) { readyBooks.append(id) }
    }

    /// The frame from what is in, even if a shelf never answered (the crawl was over without it).
    mutating func finishFrame() {
        if frame == nil, let listing { makeFrame(listing: listing) }
    }

    private mutating func makeFrame(listing: (user: String?, order: [Int])) {
        let listed = self.listed
        frame = Crawler.frame(summaries: shelves, pages: shelfPages, listing: listing.order,
                              shelfOfListed: { listed[$0]?.shelfID }, privacy: privacy)
    }

    /// The cover of a book whose details could not be read: its address waits in the book's fields,
    /// from the list or a shelf (nil when privacy leaves the book out).
    func coverWithoutDetails(_ id: Int, coverAddress: CoverAddress) rethrows -> String? {
        guard let frame else { return nil }
        if let plan = frame.plan, plan.droppedBooks.contains(id)
            || (listed[id]?.shelfID ?? frame.onShelves[id]?.shelfID).map(plan.excludedShelves.contains) == true { return nil }
        // The list of books gives no cover address (the real server's); a shelf's page does.
        for kept in [listed[id], frame.onShelves[id]] {
            if let kept, let url = try coverAddress(kept.fields), !url.isEmpty { return url }
        }
        return lastAddresses[id]
    }

    /// Everything a book is made from, as the crawl gathered it.
    func sources(of id: Int) -> Crawler.BookSources {
        Crawler.BookSources(id: id, listed: listed[id], onShelf: frame?.onShelves[id], details: details[id],
                            failure: detailFailures[id], reused: reused[id])
    }

    var hasBooksReady: Bool { frame != nil && !readyBooks.isEmpty }

    /// Up to `count` books ready to be made, leaving out those `isMade` says are made already.
    mutating func booksReady(atMost count: Int, isMade: (Int) -> Bool) -> [Crawler.BookSources] {
        var batch: [Crawler.BookSources] = []
        while batch.count < count, let id = readyBooks.popFirst() {
            if !isMade(id) { batch.append(sources(of: id)) }
        }
        return batch
    }

    /// A book is made and kept: details held in memory are let go.
    mutating func letGoOfDetails(_ id: Int) {
        guard case .held = details[id] else { return }
        details[id] = .used
        detailsHeld -= 1
    }

    /// Whether the book's details are in, or taken from the last snapshot.
    func hasDetails(_ id: Int) -> Bool { reused[id] != nil || details[id] != nil }

    /// Lets go of what the books were made from, once they are all made.
    mutating func letGoOfBooks() {
        (listed, details, detailFailures, shelfPages, frame) = ([:], [:], [:], [:], nil)
        (asked, reused, reusable, onDeletedShelf, reusedCovers, lastAddresses) = ([], [:], [:], [], [], CoverAddresses())
    }
}

/// The crawl's requests not sent yet, covers first: a book's cover is asked for as soon as its
/// details say where it is, so that books are finished, their details let go and their covers
/// thumbnailed while the crawl goes on, rather than all at its end.
struct RequestQueue {
    private var covers = WorkQueue<CrawlLedger.Work>()
    private var others = WorkQueue<CrawlLedger.Work>()

    var count: Int { covers.count + others.count }
    var isEmpty: Bool { covers.isEmpty && others.isEmpty }

    mutating func append(_ work: CrawlLedger.Work) {
        if case .cover = work { covers.append(work) } else { others.append(work) }
    }

    /// A cover waits only while something else can go in its place: with nothing else left (the
    /// crawl's last covers), the server would sit idle while thumbnails catch up.
    mutating func popFirst(coversToo: Bool = true) -> CrawlLedger.Work? {
        (coversToo ? covers.popFirst() : nil) ?? others.popFirst() ?? covers.popFirst()
    }
}
