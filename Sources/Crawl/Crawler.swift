import Foundation
import LibraryArchive
import Logging
import Notes
import ReaderAPI
import SnapshotStore
import Support
import Thumbnails

/// Walks the whole library through the API: shelves, every shelf, every book, every cover.
///
/// One pipeline, not phases: the list of books starts the books' details while shelves are still
/// arriving, and each book's details start its cover, so the server always has work and the crawl
/// never waits for a phase's slowest request. How many requests are in flight is found as it goes
/// (`AdaptiveConcurrency`). What to ask for next is decided by `CrawlLedger` and
/// `RequestScheduler`, plain values; `CrawlRun` does the requests.
package struct Crawler: Sendable {
    package var client: ReaderClient
    package var concurrency: Int
    package var concurrencyMode: AdaptiveConcurrency.Mode = .adaptive
    package var logger: Logger
    package var live: LiveProgress?
    /// What the snapshot holds: privacy, the notes' limit, thumbnails.
    package var content = ContentPolicy()
    var privacy: Privacy { content.privacy }
    var noteLimit: Int { content.noteLimit }
    /// What the last run left that tonight's crawl reads, made once by the export.
    package var last = LastRun()
    /// Whether books are made while requests are in flight, or all once the requests are done
    /// (the same bytes either way; the tests compare the two).
    var makesBooksWhileCrawling = true
    /// How many books' details wait in memory for their book to be made; the others wait in the
    /// spill file. Most wait only for their cover, but before the list of every book is in, details
    /// pile up: 100,000 books' list takes seconds.
    var detailsHeldAtMost = 4096
    /// Makes each new cover's thumbnails as it arrives; nil: none (`--no-thumbnails`).
    var thumbnails: Thumbnailer? { content.thumbnailer }
    /// `--enrich openlibrary`: books taken from the last snapshot keep what Open Library added.
    package var keepsOpenLibrary = false
    /// The catalog's name when pages get share cards (`--site-url`, without `--no-share-cards`):
    /// books' cards are then drawn as the books are made. Nil: none are drawn during the crawl.
    package var shareCardTitle: String?

    /// What the last run left: its snapshot, the covers' addresses it saw, what failed and when to
    /// ask for it again. One value, so that the export hands it over whole.
    package struct LastRun: Sendable {
        /// The library of the last snapshot: a book whose `updated_at` in `/books` is what it was then
        /// is taken from it instead of asked for again. Rails touches a book when its notes (rich text)
        /// or its cover (an attachment) change, so the date moves with everything the details hold.
        /// Only a library with notes converted under the same limits may stand in (nil under `--full`).
        package let previous: LibraryFile?
        /// `previous` was written by this same build: its unchanged books' bytes are copied as they are.
        package let previousIsThisBuild: Bool
        /// The last snapshot of this same account, whatever `--full` says: a book whose details cannot
        /// be had tonight keeps what it had there (nothing is lost because the server stumbled), and a
        /// gap still open keeps the day it first happened.
        package let library: LibraryFile?
        /// The covers' addresses the last run saw, by book id (kept privately, not in `library.json`).
        package let addresses: CoverAddresses
        /// What failed in the last runs and when to ask for it again; the run's date.
        package let retry: Retry
        /// What the last quiet night found, when everything but its two answers is known to be as
        /// it was then (the exporter checks the state, the options and the date): given the same
        /// two answers, the night is that one again.
        package let quiet: QuietNight?
        /// The gaps the last snapshot listed.
        var problems: [Problem] { library?.frame.problems ?? [] }
        /// The same gaps by `Problem.gapKey`: one still open tonight is not news.
        let knownGaps: Set<String>

        package init(previous: LibraryFile? = nil, previousIsThisBuild: Bool = false, library: LibraryFile? = nil,
                     addresses: CoverAddresses = CoverAddresses(), retry: Retry = Retry(), quiet: QuietNight? = nil) {
            self.previous = previous
            self.quiet = quiet
            self.previousIsThisBuild = previousIsThisBuild
            self.library = library
            self.addresses = addresses
            self.retry = retry
            knownGaps = Set((library?.frame.problems ?? []).map(\.gapKey))
        }
    }

    /// The last runs' failures, and this run's date (seconds since 1970) to weigh them against.
    package struct Retry: Sendable {
        package var schedule = RetrySchedule()
        package var now = 0
        /// `--full`: nothing waits its turn; the schedule still says since when each gap has lasted.
        package var asksEverything = false
        package init(schedule: RetrySchedule = RetrySchedule(), now: Int = 0, asksEverything: Bool = false) {
            self.schedule = schedule
            self.now = now
            self.asksEverything = asksEverything
        }

        /// The earlier failure that keeps a book's details from being asked for now, if any.
        func waitingDetails(of id: Int, updatedAt: String?) -> RetrySchedule.Failure? {
            asksEverything ? nil : schedule.waitingDetails(of: id, updatedAt: updatedAt, now: now)
        }

        /// The earlier failure that keeps a cover from being asked for now, if any.
        func waitingCover(_ url: String) -> RetrySchedule.Failure? {
            asksEverything ? nil : schedule.waitingCover(url, now: now)
        }
    }

    /// The most requests in flight at once unless `--concurrency` says otherwise: the one default,
    /// for the CLI, the exporter and the crawler alike.
    package static let defaultConcurrency = 8

    package init(client: ReaderClient, concurrency: Int = Crawler.defaultConcurrency, logger: Logger, live: LiveProgress? = nil) {
        self.live = live
        self.client = client
        self.concurrency = max(1, concurrency)
        self.logger = logger
    }

    /// What a crawl found: the library, and what to remember of its covers for the next run.
    package struct Result: Sendable {
        package var library: LibraryFile
        package var covers: CoverRecords?
        /// How many books were made while requests were still in flight.
        package var madeWhileCrawling = 0
        /// How many books' cards are the last snapshot's, not packed again.
        package var sharedEntries = 0
        /// What failed, this run or before, and when to ask for it again.
        package var retry = RetrySchedule()
        /// Each book's cover address, for the next run (private: never in `library.json`).
        package var addresses = CoverAddresses()
        /// The library is the last snapshot's, as the last quiet night found it (`QuietNight`).
        package var again = false
    }

    var wantsCovers: Bool { privacy.covers }

    /// Fetches the library; cover files are written through `writer` (or linked from the previous
    /// snapshot). A 401 or a server that cannot list the library throws; a book or cover that cannot
    /// be read is recorded as a problem.
    package func crawl(date: SnapshotDate, writer: SnapshotWriter, previousCovers: CoverRecords? = nil) async throws -> Result {
        // The list of books is asked for beside the shelves, not after them: a quiet night is the
        // login and these two, and on a real network the second waited a round trip for the first.
        // Nothing of it is read before the shelves are known and the privacy options checked.
        let client = client
        let listing = Task { Handover(try await client.booksBody()) }
        // However the crawl ends: a request that went out beside it is not left to run on.
        defer { listing.cancel() }
        let shelves = try await client.shelves()
        try privacy.check(shelves.shelves)
        if let again = try await quietNightAgain(listing, covers: previousCovers) { return again }
        logger.info("Shelves: \(shelves.shelves.count)")
        let run = try CrawlRun(crawler: self, shelves: shelves.shelves, writer: writer, previousCovers: previousCovers, listing: listing)
        defer { run.stop() }
        try await run.requestEverything()
        // The account's name (`shelves.user`) is not kept: a shared catalog must not show it.
        return try await run.finish(generatedAt: date.text)
    }

    /// The last quiet night's library and words, when both lists answered 304 to the ETags that
    /// night had them answer to: nothing of the list is read and no book is made. The covers'
    /// records are the last run's, as that night found them.
    private func quietNightAgain(_ listing: Task<Handover<Data>, any Error>, covers: CoverRecords?) async throws -> Result? {
        // Without the last run's covers' records (unreadable), the covers are linked again by a crawl.
        guard let quiet = last.quiet, let library = last.previous, let cache = client.cache, covers != nil || !wantsCovers,
              cache.notModifiedETag(ReaderClient.shelvesPath) == quiet.shelves else { return nil }
        _ = try await listing.value
        guard cache.notModifiedETag(ReaderClient.booksPath) == quiet.books else { return nil }
        for line in quiet.lines { logger.log(level: Logger.Level(rawValue: line.level) ?? .info, "\(line.text)") }
        client.metrics.record {
            $0.coversReused += quiet.coversReused
            $0.coversFailed += quiet.coversFailed
        }
        logger.debug("The shelves and the list of books are as the last quiet night had them, and nothing is due: its library stands")
        return Result(library: library, covers: wantsCovers ? covers : nil, retry: last.retry.schedule, addresses: last.addresses, again: true)
    }

    /// The previous snapshot's books that can stand for a fresh request (by their place in it): from
    /// a snapshot of the same account, read whole, with notes converted under the same limit.
    func reusableBooks() -> [Int: Int] {
        // The exporter hands over only a snapshot of this same server and account.
        guard let previous = last.previous else { return [:] }
        var places: [Int: Int] = [:]
        for place in previous.entries.indices where previous.entries.isComplete(at: place) { places[previous.entries.id(at: place)] = place }
        return places
    }

    /// What makes books, once the shelves are known.
    func assembly(shelfNames: [Int: String], plan: Privacy.Plan?, spill: SpillFile, covers: CoverRecords?) -> Assembly {
        Assembly(shelfNames: shelfNames, previous: last.previous, last: last.library.map(Assembly.Last.init), lastAddresses: last.addresses, spill: spill, plan: plan,
                 privacy: privacy, covers: covers, noteLimit: noteLimit, linkBase: client.server.url(path: "/"), copiesUnchanged: last.previousIsThisBuild,
                 keepsOpenLibrary: keepsOpenLibrary)
    }
}
