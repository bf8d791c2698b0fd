import AsyncHTTPClient
import Crawl
import Enrich
import Foundation
import LibraryArchive
import PrivateCatalog
import ReaderAPI
import Site
import SnapshotStore
import Support
import Thumbnails
import Timeline

/// The steps that find the library: the last snapshot read while logging in, the crawl, Open
/// Library's answers, the comparison with the last snapshot, and the render.
extension Exporter {
    /// The last snapshot, as the run found it: its state (ETags, covers, how it was made) and its library.
    struct LastSnapshot {
        var state: SnapshotState
        var library: LastLibrary
        /// Whether the last snapshot is there and as this tool left it (`RenderDigest.isIntact`):
        /// looked at while logging in, as its library is read.
        var intact = false
    }

    /// The last snapshot's library, as far as tonight may use it.
    enum LastLibrary {
        case none
        /// Of this same server and account: it stands in for the books tonight need not ask for
        /// or cannot have, and its gaps still open are not news.
        case ofThisAccount(LibraryFile)
        /// Of another server or account: it stands in for no book, and is read again for the
        /// change report once the crawl is over, rather than held through it (100,000 books' took
        /// 40 MB of the crawl's peak).
        case ofAnotherAccount(ReadWhenNeeded<LibraryFile?, any Error>)

        /// The library that may stand in for tonight's books.
        var standsIn: LibraryFile? {
            if case .ofThisAccount(let library) = self { return library }
            return nil
        }
    }

    /// Logs in, while the last snapshot's library and covers are read, each on a thread of its own
    /// (on Swift's threads, the login's answer waited behind them): one after the other, they took
    /// a fifth of a 10,000-book run with nothing changed. Opens the connections the crawl uses.
    func logIn(_ prepared: consuming Prepared) async throws -> LoggedIn {
        let output = prepared.output
        let stateFolder = output.place.stateFolder
        let network = settings.network
        let http = ReaderClient.makeHTTPClient(concurrency: network.concurrency, connectTimeout: network.connectTimeout)
        do {
            var state = SnapshotState.read(from: stateFolder, startingOver: startsOver)
            let cache = try ResponseCache(previous: state.responses, spillIn: output.swap.staging)
            // What the night needs of the answers is in the cache now; the state's copy is let go.
            state.responses = [:]
            let client = ReaderClient(server: settings.server, http: http, timeout: network.timeout, limits: network.limits,
                                      redactor: Redactor(secrets: settings.credentials.secrets), retry: network.retry, cache: cache,
                                      logger: logger, metrics: self.network)
            let last = try await logIn(client, readingLastSnapshot: state, from: stateFolder, checking: output.swap.previous)
            return LoggedIn(output: output, connections: Connections(http: http, client: client, cache: cache), last: last)
        } catch {
            // The connections are this step's until it hands them on. The error thrown is the
            // step's: connections that do not close cleanly end with the process.
            try? await http.shutdown()
            throw error
        }
    }

    private func logIn(_ client: ReaderClient, readingLastSnapshot state: SnapshotState, from stateFolder: URL,
                       checking previous: URL?) async throws -> LastSnapshot {
        var state = state
        let readers = (library: WorkerThread(name: "library reader"), covers: WorkerThread(name: "cover reader"))
        defer { readers.library.stop(); readers.covers.stop() }
        async let readingLibrary = readers.library.run { () -> Result<LibraryFile?, Error> in
            Result { try SnapshotState.readLibrary(from: stateFolder) }
        }
        let lastCovers = state.covers
        // The cover reader then walks the last snapshot: after the crawl, that walk was most of
        // the comparison of a night with nothing changed (every file looked at).
        let formats = settings.site.formats
        // A night that seals must find the last catalog for friends whole, or it is sealed again:
        // left as it was without it, the snapshot would be published plain.
        let sealed = settings.site.privateCatalog == nil ? nil : settings.place.root
        async let readingCovers = readers.covers.run {
            (lastCovers.value(),
             previous.map { RenderDigest.isIntact($0, formats: formats) && sealed.map { PrivateCatalogFolder.last(of: previous, root: $0) != nil } ?? true } ?? false)
        }
        logger.info("Logging in to \(settings.server)")
        try await client.authenticate(settings.credentials)
        // Parsed meanwhile on a thread of their own: a broken template is told before the crawl.
        try await settings.site.templates.check()
        var library: LibraryFile?
        switch await readingLibrary {
        case .success(let read): library = read
        case .failure(let error):
            // Nothing is lost: the run asks for every book, and the change report starts afresh.
            logger.warning("The last snapshot's library could not be read (\(error)): every book is asked for again, and no changes are reported.")
            library = nil
        }
        let (covers, intact) = await readingCovers
        state.covers = ReadWhenNeeded(covers)
        let origin = SnapshotOrigin(server: client.server.description, userID: client.session?.userID)
        var last = LastSnapshot(state: state, library: library.map(LastLibrary.ofThisAccount) ?? .none, intact: intact)
        if library != nil, state.origin != origin {
            last.library = .ofAnotherAccount(ReadWhenNeeded(file: stateFolder, read: SnapshotState.readLibrary(from:)))
            last.state.addresses = CoverAddresses()
        }
        MemoryUsage.release()
        return last
    }

    /// Walks the library; books unchanged since the last snapshot are taken from it. On a night that
    /// may be a quiet one, `quiet` hears what the crawl says.
    func crawl(_ loggedIn: consuming LoggedIn, quiet: QuietNightStep?) async throws -> Crawled {
        let loggedIn = loggedIn
        let output = loggedIn.output, client = loggedIn.connections.client, last = loggedIn.last
        let metrics = client.metrics
        live?.watch {
            let network = metrics.reading
            return LiveProgress.Network(bytesReceived: network.bytesReceived, requests: network.requests, retries: network.retries)
        }
        var crawler = Crawler(client: client, concurrency: settings.network.concurrency, logger: logger, live: live)
        crawler.concurrencyMode = settings.network.concurrencyMode
        crawler.content = settings.content
        crawler.keepsOpenLibrary = settings.openLibrary != nil
        let renderedWith = RenderDigest.digest(settings.site)
        if let quiet { crawler.logger = quiet.recorder.recording(logger) }
        // The cards drawn now show the title the pages show: the one the site's identity resolved.
        if settings.site.drawsShareCards { crawler.shareCardTitle = settings.site.title }
        // --full asks for everything, what failed last time included.
        let reusable = settings.content.reuseUnchanged && last.state.noteLimit == settings.content.noteLimit
        crawler.last = Crawler.LastRun(
            previous: reusable ? last.library.standsIn : nil,
            previousIsThisBuild: reusable && !RenderDigest.thisBuild.isEmpty && last.state.writtenBy == RenderDigest.thisBuild,
            library: last.library.standsIn, addresses: last.state.addresses,
            retry: Crawler.Retry(schedule: last.state.retry, now: settings.date.seconds, asksEverything: !settings.content.reuseUnchanged),
            quiet: quiet?.standing)
        var crawl: Crawler.Result
        do {
            crawl = try await crawler.crawl(date: settings.date, writer: output.swap.writer, previousCovers: last.state.covers.value())
        } catch var outage as ServerStoppedAnswering {
            outage.lastSnapshotKept = last.library.standsIn != nil
            throw outage
        }
        if let memory = MemoryUsage.summary() { logger.debug("After the crawl: \(memory)") }
        crawl.library.frame.title = settings.site.givenTitle
        crawl.library.frame.language = settings.site.templates.language.tag
        return Crawled(output: output, connections: loggedIn.connections, last: last, crawl: crawl, renderedWith: renderedWith)
    }

    /// What Open Library answered, and its answers as the night found them.
    /// `--enrich openlibrary`, between the crawl and the render: Open Library's covers are checked,
    /// thumbnailed and kept like the server's. The step owns its answers: they are facts about
    /// ISBNs, not about tonight's snapshot, and are kept as soon as they are had (an ISBN Open
    /// Library does not know is not asked again for a week, whatever the night does after).
    func enrich(_ crawled: consuming Crawled, asking openLibrary: OpenLibraryOptions) async throws -> Crawled {
        var crawled = crawled
        let output = crawled.output, client = crawled.connections.client
        live?.unwatch()
        live?.begin("Open Library", total: 0)
        var cache = OpenLibraryCache.read(from: output.place.stateFolder)
        let asRead = cache
        let enricher = OpenLibraryEnricher(options: openLibrary, logger: logger, now: settings.date.seconds,
                                           wantsCovers: settings.content.privacy.covers)
        let pace = Pace(interval: openLibrary.interval)
        let covers = enricher.coverFetcher(client: client, writer: output.swap.writer, previous: crawled.last.state.covers.value(),
                                           thumbnails: settings.content.thumbnailer, pace: pace)
        _ = try await enricher.enrich(&crawled.crawl.library, cache: &cache, http: crawled.connections.http, redactor: client.redactor,
                                      covers: covers, records: crawled.crawl.covers, pace: pace, addresses: crawled.crawl.addresses)
        if cache != asRead {
            do { try cache.write(to: output.place.stateFolder) } catch {
                throw SnapshotError(.notWritable(detail: SnapshotWriter.describe(error)), path: output.place.stateFolder.path)
            }
        }
        return crawled
    }

    /// What changed since the last snapshot, and what the night does about it (`NightPlan`).
    /// Once decided, what the next night needs of the covers is written, not held through the render.
    func compare(_ crawled: consuming Crawled) async throws -> Compared {
        var crawled = crawled
        let output = crawled.output, client = crawled.connections.client
        let compared = try await compare(&crawled.crawl.library, with: &crawled.last, place: output)
        let library = crawled.crawl.library
        var state = stateToKeep(crawled.crawl, client: client, cache: crawled.connections.cache, renderedWith: crawled.renderedWith)
        let (timeline, began) = timeline(compared.changes, unchanged: compared.unchanged, library: library, last: output.swap.previous)
        var outcome = Outcome(library: library, changes: compared.changes, network: client.metrics.reading,
                              unchanged: compared.unchanged, place: output.place)
        outcome.timelineBegan = began && !compared.changes.firstRun
        outcome.newGaps = library.frame.problems.filter { !compared.knownGaps.contains($0.gapKey) }.count
        outcome.decision = NightPlan.decide(NightPlan.Facts(
            libraryUnchanged: compared.unchanged, reuseUnchanged: settings.content.reuseUnchanged, hasLastSnapshot: output.swap.previous != nil,
            sameRendering: crawled.last.state.renderedWith == state.renderedWith,
            lastSnapshotIntact: crawled.last.intact,
            dated: output.place.dated != nil))
        if crawled.crawl.again, outcome.decision.writesNewFiles {
            // Cannot be (`mayBeQuiet` asked for a night that leaves or links the snapshot): the
            // covers were not linked into the new one. Nothing is written; the next night crawls,
            // once the record is removed: one that cannot be is said, with what to remove.
            var detail = "the night was taken for the last quiet one, and was not: run it again"
            do { try QuietNight.remove(from: output.place.stateFolder) } catch {
                detail = "the night was taken for the last quiet one, and was not, and its record could not be removed "
                    + "(\(SnapshotWriter.describe(error))): remove \(QuietNight.fileName) there, then run it again"
            }
            throw SnapshotError(.notWritable(detail: detail), path: output.place.stateFolder.path)
        }
        if outcome.decision != .leaveAsItWas {
            try state.setAside(in: output.place.stateFolder)
            crawled.last.state.addresses = CoverAddresses()
        }
        return Compared(output: output, connections: crawled.connections, last: crawled.last, state: state, outcome: outcome,
                        timeline: TimelineHandoff(timeline))
    }

    /// The connections closed once nothing more is asked of the server; the night's network
    /// figures read as they end.
    func closeConnections(_ compared: consuming Compared) async throws -> Compared {
        var compared = compared
        compared.outcome.network = compared.connections.client.metrics.reading
        try await compared.connections.http.shutdown()
        return compared
    }

    /// What changed since the last snapshot. Nothing: the snapshot keeps its date and its change
    /// report, so every file is the same and stays as it was. The last library is let go after:
    /// a 100,000-book render peaked with it still held.
    private func compare(_ library: inout LibraryFile, with last: inout LastSnapshot, place: Output) async throws
        -> (changes: ChangeReport, unchanged: Bool, knownGaps: Set<String>) {
        var previous: LibraryFile?
        // The gaps the last snapshot listed (of this same account): a gap still open is not news.
        var knownGaps: Set<String> = []
        switch last.library {
        case .none: previous = nil
        case .ofThisAccount(let read):
            previous = read
            knownGaps = Set(read.frame.problems.map(\.gapKey))
        case .ofAnotherAccount(let later):
            // Said as the login read it, if it could not be: the change report then starts afresh.
            previous = try? await EveryCore.onThreadOfItsOwn("library reader") { try later.value() }
        }
        last.library = .none
        defer {
            last.state.covers = ReadWhenNeeded(nil)
            MemoryUsage.release()
        }
        let samePrivacy = try seeingAsTonight(&previous, state: last.state)
        let lastReport = place.swap.previous.flatMap(ChangeReport.read(in:))
        // Other options than last night's: the snapshot is made again whatever the comparison says
        // (the last one shows what tonight's options leave out).
        guard samePrivacy, let previous, try library.sameContent(as: previous) else {
            var report = try ChangeReport.compare(previous: previous, current: library)
            // A run killed between its swap and the state's writing leaves a snapshot newer than the
            // state: its report tells what tonight's, compared with the state's library, tells again.
            let lastIsKnown = lastReport?.generatedAt == previous?.frame.generatedAt
            if samePrivacy, !report.firstRun { report.earlier = ChangeReport.earlier(carriedFrom: lastReport, itsOwnNight: lastIsKnown) }
            return (report, false, knownGaps)
        }
        library.frame.generatedAt = previous.frame.generatedAt
        return (try lastReport ?? ChangeReport.compare(previous: previous, current: library), true, knownGaps)
    }

    /// The last library as tonight's privacy options would have written it, when it was written
    /// under others: compared as it was, a shelf left out tonight had its books listed as removed
    /// on the Changes page, by title. Returns whether the options are the same as last night's
    /// (only then are the nights before carried on the Changes page).
    private func seeingAsTonight(_ previous: inout LibraryFile?, state: SnapshotState) throws -> Bool {
        let privacy = settings.content.privacy
        if state.privacy == privacy.summary { return true }
        if let read = previous { previous = try privacy.applied(to: read, checking: false) }
        return false
    }

    /// Tonight's timeline: the last snapshot's with tonight's events (on a night that changed
    /// nothing, the last one as it was), as tonight's privacy options show it. One that cannot be
    /// read is said, and begins again from the books there are: nothing else of the night is lost.
    /// Says too whether it began tonight (no timeline could be read from the last snapshot).
    func timeline(_ report: ChangeReport, unchanged: Bool, library: LibraryFile, last snapshot: URL?) -> (Timeline, began: Bool) {
        var last: Timeline?
        do {
            last = try snapshot.flatMap(Timeline.read(in:))
        } catch {
            logger.warning("\(error): the timeline begins again tonight, from the books there are")
        }
        let tonight = unchanged ? last ?? Timeline.tonight(last: nil, report: report, library: library)
            : Timeline.tonight(last: last, report: report, library: library)
        return (settings.content.privacy.shown(tonight, with: library), last == nil)
    }

    /// Every page, on a thread of its own: the threads answers resume on are the network's.
    /// Returns the book and shelf pages' digests, for the next run.
    func render(_ outcome: Outcome, timeline: consuming Timeline, pages: PageDigests, into writer: SnapshotWriter) async throws -> PageDigestTable {
        let (library, changes) = (outcome.library, outcome.changes)
        // Into the render's thread without a copy left here: the render lets it go once its pages are made.
        let handoff = TimelineHandoff(consume timeline)
        logger.info("Rendering \(settings.site.formats.sorted().map(\.rawValue).joined(separator: ", "))")
        live?.unwatch()
        var renderer = Self.renderer(site: settings.site, live: live)
        renderer.pages = pages
        let ready = renderer
        let rendered = try await EveryCore.onThreadOfItsOwn("render") { try ready.render(library, changes: changes, timeline: handoff.take(), into: writer) }
        if rendered.cardsTakenOut > 0 {
            logger.debug("Share cards drawn during the crawl that no page names, taken out: \(rendered.cardsTakenOut)")
        }
        if rendered.linked > 0 {
            logger.info("Pages: \(rendered.linked) of \(rendered.pages) book and shelf pages unchanged, kept from the last snapshot")
        }
        return rendered.digests
    }
}
