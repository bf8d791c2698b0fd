import AsyncHTTPClient
import Crawl
import Enrich
import Foundation
import LibraryArchive
import ReaderAPI
import Site
import SnapshotStore
import Support
import Thumbnails

/// The steps that find the library: the last snapshot read while logging in, the crawl, Open
/// Library's answers, the comparison with the last snapshot, and the render.
extension Exporter {
    /// The last snapshot, as the run found it: its state (ETags, covers, how it was made) and its library.
    struct LastSnapshot {
        var state: SnapshotState
        var library: Catalog?
        /// Where the last library is, when it was let go until the change report needs it.
        var libraryLater: URL?

        /// The last snapshot's pages' digests, read when the render needs them rather than held
        /// through the crawl.
        var previousPages: PageDigestTable {
            state.unreadPages.map(SnapshotState.readPages) ?? state.pageDigests
        }
    }

    /// Logs in, while the last snapshot's library and covers are read, each on a thread of its own
    /// (on Swift's threads, the login's answer waited behind them): one after the other, they took
    /// a fifth of a 10,000-book run with nothing changed.
    func logIn(_ client: ReaderClient, readingLastSnapshot state: SnapshotState, from stateFolder: URL) async throws -> LastSnapshot {
        var state = state
        let readers = (library: WorkerThread(name: "library reader"), covers: WorkerThread(name: "cover reader"))
        defer { readers.library.stop(); readers.covers.stop() }
        async let readingLibrary = readers.library.run { () -> Result<Catalog?, Error> in
            Result { try SnapshotState.readLibrary(from: stateFolder) }
        }
        let coversFile = state.unreadCovers
        async let readingCovers = readers.covers.run { coversFile.flatMap(CoverRecords.init(reading:)) }
        logger.info("Logging in to \(options.server)")
        try await client.authenticate(options.credentials)
        var library: Catalog?
        switch await readingLibrary {
        case .success(let read): library = read
        case .failure(let error):
            // Nothing is lost: the run asks for every book, and the change report starts afresh.
            logger.warning("The last snapshot's library could not be read (\(error)): every book is asked for again, and no changes are reported.")
            library = nil
        }
        state.covers = await readingCovers
        // A library of another server or account can stand in for no book: it is read again for
        // the change report once the crawl is over, rather than held through it (100,000 books'
        // took 40 MB of the crawl's peak).
        var libraryLater: URL?
        let origin = SnapshotOrigin(server: client.server.description, userID: client.session?.userID)
        // A state written before the origin was kept: its library.json named the server and account.
        let lastOrigin = state.origin ?? library.flatMap { read in read.frame.server.map { SnapshotOrigin(server: $0, userID: read.frame.userID) } }
        if library != nil, lastOrigin != origin {
            library = nil
            libraryLater = stateFolder
            state.addresses = CoverAddresses()
        }
        MemoryUsage.release()
        return LastSnapshot(state: state, library: library, libraryLater: libraryLater)
    }

    /// Walks the library; books unchanged since the last snapshot are taken from it.
    func crawl(_ client: ReaderClient, last: LastSnapshot, into writer: SnapshotWriter) async throws -> Crawler.Result {
        let metrics = client.metrics
        live?.watch {
            let network = metrics.snapshot
            return LiveProgress.Network(bytesReceived: network.bytesReceived, requests: network.requests, retries: network.retries)
        }
        var crawler = Crawler(client: client, concurrency: options.concurrency, logger: logger, live: live)
        crawler.concurrencyMode = options.concurrencyMode
        crawler.privacy = options.privacy
        crawler.noteLimit = options.noteLimit
        crawler.thumbnails = options.thumbnails ? Thumbnailer() : nil
        crawler.keepsOpenLibrary = options.openLibrary != nil
        // Only pages in HTML have link previews.
        if options.siteURL != nil, options.shareCards, options.formats.contains(.html) {
            crawler.shareCardTitle = Library.catalogTitle(given: options.title)
        }
        // --full asks for everything, what failed last time included.
        crawler.retry = Crawler.Retry(schedule: last.state.retry, now: Self.seconds(of: options.generatedAt) ?? 0,
                                      asksEverything: !options.reuseUnchanged)
        crawler.lastLibrary = last.library
        crawler.lastAddresses = last.state.addresses
        crawler.lastProblems = last.library?.frame.problems ?? []
        if options.reuseUnchanged, last.state.noteLimit == options.noteLimit {
            crawler.previous = last.library
            crawler.previousIsThisBuild = !RenderDigest.thisBuild.isEmpty && last.state.writtenBy == RenderDigest.thisBuild
        }
        let result = try await crawler.crawl(generatedAt: options.generatedAt, writer: writer, previousCovers: last.state.covers)
        if let memory = MemoryUsage.summary() { logger.debug("After the crawl: \(memory)") }
        return result
    }

    /// What Open Library answered, and its answers as the night found them.
    struct OpenLibraryAnswers {
        var cache: OpenLibraryCache
        var asRead: OpenLibraryCache
        var report: OpenLibraryEnricher.Report
    }

    /// `--enrich openlibrary`, between the crawl and the render: Open Library's covers are checked,
    /// thumbnailed and kept like the server's.
    func enrich(_ library: inout Catalog, with openLibrary: OpenLibraryOptions, place: Place, http: HTTPClient,
                        client: ReaderClient, last: LastSnapshot, crawled: Crawler.Result) async throws -> OpenLibraryAnswers {
        live?.begin("Open Library", total: 0)
        var cache = OpenLibraryCache.read(from: place.stateFolder)
        let asRead = cache
        let enricher = OpenLibraryEnricher(options: openLibrary, logger: logger, now: Self.seconds(of: options.generatedAt) ?? 0,
                                           wantsCovers: options.privacy.covers)
        let pace = Pace(interval: openLibrary.interval)
        let covers = enricher.coverFetcher(client: client, writer: place.publisher.writer, previous: last.state.covers,
                                           thumbnails: options.thumbnails ? Thumbnailer() : nil, pace: pace)
        let report = try await enricher.enrich(&library, cache: &cache, http: http, redactor: client.redactor, covers: covers,
                                               records: crawled.covers, pace: pace, addresses: crawled.addresses)
        return OpenLibraryAnswers(cache: cache, asRead: asRead, report: report)
    }

    /// What changed since the last snapshot. Nothing: the snapshot keeps its date and its change
    /// report, so every file is the same and stays as it was. The last library is let go after:
    /// a 100,000-book render peaked with it still held.
    func compare(_ library: inout Catalog, with last: inout LastSnapshot, place: Place) async throws
        -> (changes: ChangeReport, unchanged: Bool, knownGaps: Set<String>) {
        if let folder = last.libraryLater {
            last.library = try? await EveryCore.onThreadOfItsOwn("library reader") { try SnapshotState.readLibrary(from: folder) }
        }
        defer {
            last.library = nil
            last.state.covers = nil
            MemoryUsage.release()
        }
        // The gaps the last snapshot listed (of this same account): a gap still open is not news.
        let knownGaps = last.libraryLater == nil ? Set((last.library?.frame.problems ?? []).map(\.gapKey)) : []
        guard let previous = last.library, try library.sameContent(as: previous) else {
            return (try ChangeReport.compare(previous: last.library, current: library), false, knownGaps)
        }
        library.frame.generatedAt = previous.frame.generatedAt
        let kept = place.publisher.previous.flatMap { try? Data(contentsOf: $0.appendingPathComponent("changes.json")) }
            .flatMap { try? JSONDecoder().decode(ChangeReport.self, from: $0) }
        return (try kept ?? ChangeReport.compare(previous: previous, current: library), true, knownGaps)
    }

    /// Every page, on a thread of its own: the threads answers resume on are the network's.
    /// Returns the book and shelf pages' digests, for the next run.
    func render(_ library: Catalog, changes: ChangeReport, pages: PageDigests, into writer: SnapshotWriter) async throws -> PageDigestTable {
        logger.info("Rendering \(options.formats.sorted().map(\.rawValue).joined(separator: ", "))")
        live?.begin("Rendering", total: 0)
        var renderer = SiteRenderer(templates: options.templates, formats: options.formats, siteURL: options.siteURL)
        renderer.pages = pages
        renderer.shareCards = options.shareCards
        let ready = renderer
        let rendered = try await EveryCore.onThreadOfItsOwn("render") { try ready.render(library, changes: changes, into: writer) }
        if rendered.linked > 0 {
            logger.info("Pages: \(rendered.linked) of \(rendered.digests.count) book and shelf pages made from what they were made from last time, linked")
        }
        return rendered.digests
    }
}
