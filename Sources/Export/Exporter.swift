import AsyncHTTPClient
import Crawl
import Enrich
import Foundation
import History
import LibraryArchive
import Notes
import Logging
import ReaderAPI
import Site
import SnapshotStore
import Support
import Thumbnails
import Vault

/// One export: crawl → library → render → publish.
package struct Exporter: Sendable {
    package struct Options: Sendable {
        package var server: ServerAddress
        package var credentials: ReaderCredentials
        package var output: URL
        package var templates: TemplateSet
        package var formats: Set<OutputFormat>
        package var concurrency: Int
        /// Find the level in flight up to `concurrency` (the default), or keep it there.
        package var concurrencyMode: AdaptiveConcurrency.Mode = .adaptive
        /// Take books whose `updated_at` has not moved from the last snapshot, and leave an
        /// unchanged snapshot as it is (`--full` turns both off).
        package var reuseUnchanged = true
        package var timeout: Duration
        package var connectTimeout: Duration = .seconds(5)
        package var retry = RetryPolicy()
        /// Where the state is kept instead of the snapshot's hidden folder.
        package var cacheDirectory: URL?
        /// Keep this many dated snapshots under the output (`--keep`).
        package var keep: Int?
        package var limits = ResponseLimits()
        /// Notes longer than this are shown cut, with a notice; `library.json` keeps them whole.
        package var noteLimit = Note.defaultLimit
        package var privacy = Privacy()
        /// Where the site will be served (`--site-url`).
        package var siteURL: URL?
        package var generatedAt: String
        /// `--history`: after each run that changed the snapshot, its text is committed, by this author.
        package var historyAuthor: HistoryRepository.Author?
        /// `--markdown-into`: the Markdown tree kept in a folder of the user's.
        package var vault: Vault?
        /// Make covers' thumbnails (`--no-thumbnails` turns it off).
        package var thumbnails = true
        /// `--enrich openlibrary`: what Open Library knows, for books with an ISBN.
        package var openLibrary: OpenLibraryOptions?
        /// `--title`: the catalog's name on its pages, feeds and catalog (nil: a neutral one).
        package var title: String?

        package init(server: ServerAddress, credentials: ReaderCredentials, output: URL, templates: TemplateSet,
                    formats: Set<OutputFormat> = Set(OutputFormat.allCases), concurrency: Int = Crawler.defaultConcurrency,
                    timeout: Duration = .seconds(30), generatedAt: String = Exporter.timestamp()) {
            self.server = server
            self.credentials = credentials
            self.output = output
            self.templates = templates
            self.formats = formats
            self.concurrency = concurrency
            self.timeout = timeout
            self.generatedAt = generatedAt
        }
    }

    /// What a run did, for the summary line and the exit code.
    package struct Outcome: Sendable {
        /// The library written: its frame, a card per book.
        package var catalog: Catalog
        package var changes: ChangeReport
        package var network: ClientMetrics.Snapshot
        /// True when the library was the same as in the previous snapshot: no file was rewritten.
        package var unchanged: Bool
        /// What the night did with its snapshot: left it, linked it, or rendered.
        package var decision = PublishDecision.render(reusingPages: false)
        /// The snapshot was left as it was: the pages were not even rendered.
        package var untouched: Bool { decision == .leaveAsItWas }
        /// The new snapshot's files are the last one's, linked (dated snapshots, nothing changed).
        package var linked: Bool { decision == .linkLastSnapshot }
        package var duration: Duration
        /// What `--history` did: a commit, or none (the same text).
        package var history: HistoryRepository.Recorded?
        /// What `--markdown-into` did.
        package var vault: Vault.Report?
        /// What `--enrich openlibrary` did.
        package var openLibrary: OpenLibraryEnricher.Report?
        /// Gaps the last snapshot did not list: news, where a gap still open is not.
        package var newGaps = 0
    }

    package var options: Options
    package var logger: Logger
    package var live: LiveProgress?

    package init(options: Options, logger: Logger, live: LiveProgress? = nil) {
        self.options = options
        self.logger = logger
        self.live = live
    }

    package func run() async throws -> Outcome {
        let started = ContinuousClock.now
        MemoryUsage.keepBigBlocksApart()
        var options = self.options
        var dated: DatedSnapshots?
        if let keep = options.keep {
            let layout = DatedSnapshots(root: options.output, keep: keep)
            try layout.prepare()
            dated = layout
        }
        let target = dated?.folder(for: options.generatedAt) ?? options.output
        let publisher = try Publisher(output: target, previous: dated?.newest)
        // Held until the run is over: the history's commit is this run's too.
        defer { publisher.finish() }
        if options.cacheDirectory == nil {
            // The private state lives beside the output, never in what may be shared. Moved out of
            // an older snapshot only once the output is known to be one this run may replace.
            let root = dated?.root ?? options.output
            let beside = SnapshotState.beside(root)
            SnapshotState.moveOutOfSnapshot(root, to: beside)
            options.cacheDirectory = beside
        }
        let history = options.historyAuthor.map { _ in HistoryRepository.of(output: dated?.root ?? target, dated: dated != nil) }
        if let history {
            do { try await history.checkOwned() } catch { publisher.discard(); throw error }
            await finishLastCommit(history, snapshot: dated?.newest ?? publisher.previous)
        }
        let http = ReaderClient.makeHTTPClient(concurrency: options.concurrency, connectTimeout: options.connectTimeout)
        var outcome: (result: Outcome, state: SnapshotState)
        do {
            outcome = try await crawlAndRender(http: http, publisher: publisher, options: options, dated: dated != nil)
            try await http.shutdown()
            if outcome.result.untouched {
                // Nothing changed and the pages are made the same way: the snapshot stays as it is.
                publisher.discard()
            } else {
                // Said before the swap: a run killed between the swap and its commit leaves the
                // commit to the next run, even when that run finds nothing new.
                if let history, let author = options.historyAuthor, history.exists, !outcome.result.linked {
                    history.markPending(nightCommit(outcome.result, history: history, author: author))
                }
                try publisher.publish()
                try dated?.finish(publishing: target)
                if let cacheDirectory = options.cacheDirectory {
                    try outcome.state.write(to: cacheDirectory, library: outcome.result.catalog)
                }
            }
        } catch {
            try? await http.shutdown()
            publisher.discard()
            throw error
        }
        let snapshot = dated?.newest ?? target
        // The snapshot is published: the vault and the history are each tried, whatever the other does.
        var failure: Error?
        if let vault = options.vault {
            logger.info("Keeping the Markdown in \(vault.root.path)")
            do { outcome.result.vault = try vault.sync(from: snapshot) } catch { failure = error }
        }
        // A night whose files are the last night's has nothing to commit: no git is started.
        if let history, let author = options.historyAuthor, outcome.result.decision.writesNewFiles || !history.exists {
            do {
                outcome.result.history = try await commit(outcome.result, to: history, snapshot: snapshot, author: author)
            } catch {
                let detail = (error as? HistoryError)?.description ?? "\(error)"
                failure = failure ?? HistoryError(.commitFailed(detail: detail), path: history.gitDirectory.path)
            }
        }
        if let failure { throw failure }
        outcome.result.duration = ContinuousClock.now - started
        return outcome.result
    }

    /// The commit a killed or failed run could not make, made from the snapshot it was for
    /// before this run replaces it.
    /// Not a reason to stop the night: when git fails here too, this run's own commit, after the
    /// snapshot is published, says so.
    private func finishLastCommit(_ history: HistoryRepository, snapshot: URL?) async {
        guard let pending = history.pending, let snapshot else { return }
        logger.info("History: making the commit the last run could not (\(pending.message.subject))")
        do {
            _ = try await history.record(snapshot, as: pending)
        } catch {
            logger.warning("History: the last run's commit could not be made (\(error)); this run's commit will hold its changes")
        }
    }

    /// The snapshot's text, committed if it changed; the message is the change report in short.
    private func commit(_ result: Outcome, to history: HistoryRepository, snapshot: URL,
                        author: HistoryRepository.Author) async throws -> HistoryRepository.Recorded {
        let commit = nightCommit(result, history: history, author: author)
        let recorded = try await history.record(snapshot, as: commit)
        if case .committed(let id) = recorded {
            logger.info("History: committed \(id.prefix(12)), \(commit.message.subject)")
        }
        return recorded
    }

    /// The night's commit: the change report in short, dated by the snapshot.
    private func nightCommit(_ result: Outcome, history: HistoryRepository, author: HistoryRepository.Author) -> HistoryRepository.Commit {
        let date = result.catalog.frame.generatedAt
        var changes = result.changes
        // The same library, rendered anew (other templates): the report kept is the night before's.
        if result.unchanged { changes = .nothing(at: date) }
        // The first commit holds the whole library, whatever the report says of the night before.
        if !history.exists { changes.firstRun = true }
        let message = CommitMessage(changes: changes, date: date, books: result.catalog.count)
        return HistoryRepository.Commit(message: message, date: Self.seconds(of: date) ?? 0, author: author)
    }

    /// The last snapshot, as the run found it: its state (ETags, covers, how it was made) and its library.
    private struct LastSnapshot {
        var state: SnapshotState
        var library: Catalog?
        /// Where the last library is, when it was let go until the change report needs it.
        var libraryLater: URL?
    }

    private func crawlAndRender(http: HTTPClient, publisher: Publisher, options: Options, dated: Bool) async throws -> (result: Outcome, state: SnapshotState) {
        let stateFolder = options.cacheDirectory ?? publisher.previous?.appendingPathComponent(SnapshotState.folderName)
        let lastState = stateFolder.map { SnapshotState.read(from: $0, readingCovers: false) } ?? SnapshotState()
        let cache = try ResponseCache(previous: lastState.responses, spillIn: publisher.staging)
        let client = ReaderClient(server: options.server, http: http, timeout: options.timeout, limits: options.limits,
                                  redactor: Redactor(secrets: options.credentials.secrets), retry: options.retry, cache: cache,
                                  logger: logger)
        var last = try await logIn(client, readingLastSnapshot: lastState, from: stateFolder)
        let crawl = try await crawl(client, last: last, into: publisher.writer)
        let library = crawl.catalog
        library.frame.title = options.title
        let knownGaps = Set((last.library?.frame.problems ?? []).map(\.gapKey))
        var openLibraryCache: OpenLibraryCache?, openLibraryCacheAsRead: OpenLibraryCache?
        var openLibraryReport: OpenLibraryEnricher.Report?
        if let openLibrary = options.openLibrary {
            var cache = stateFolder.map(OpenLibraryCache.read) ?? OpenLibraryCache()
            openLibraryCacheAsRead = cache
            openLibraryReport = try await enrich(library, with: openLibrary, cache: &cache, http: http, client: client, last: last,
                                                 writer: publisher.writer, records: crawl.covers, addresses: crawl.addresses)
            openLibraryCache = cache
        }
        if let folder = last.libraryLater {
            last.library = try? await EveryCore.onThreadOfItsOwn("reader-snapshot library") { try SnapshotState.readLibrary(from: folder) }
        }
        let (changes, unchanged) = try compare(library, with: last.library, previousSnapshot: publisher.previous)
        // The last library and its covers' records are done with: a 100,000-book render peaked
        // with them still held.
        last.library = nil
        last.state.covers = nil
        MemoryUsage.release()
        // The API's answers hold what privacy options leave out: then they are not kept.
        var state = SnapshotState(responses: options.privacy.isActive ? [:] : cache.entries, covers: crawl.covers)
        state.retry = crawl.retry
        state.origin = SnapshotOrigin(server: options.server.description, userID: client.session?.userID)
        state.addresses = crawl.addresses
        state.noteLimit = options.privacy.isActive ? nil : options.noteLimit
        state.renderedWith = RenderDigest.digest(templates: options.templates, formats: options.formats, siteURL: options.siteURL)
        state.writtenBy = RenderDigest.thisBuild
        var outcome = Outcome(catalog: library, changes: changes, network: client.metrics.snapshot, unchanged: unchanged, duration: .zero)
        outcome.openLibrary = openLibraryReport
        outcome.newGaps = library.frame.problems.filter { !knownGaps.contains($0.gapKey) }.count
        // Open Library's answers are kept wherever the state goes, even on a night that leaves the
        // snapshot as it was (an ISBN it does not know is not asked again for a week).
        func keepOpenLibraryAnswers(in folder: URL) throws {
            guard let openLibraryCache else { return }
            do { try openLibraryCache.write(to: folder) } catch {
                throw SnapshotError(.notWritable(detail: SnapshotWriter.describe(error)), path: folder.path)
            }
        }

        let decision = PublishDecision.decide(PublishDecision.Facts(
            libraryUnchanged: unchanged, reuseUnchanged: options.reuseUnchanged, hasLastSnapshot: publisher.previous != nil,
            sameRendering: last.state.renderedWith == state.renderedWith,
            lastSnapshotIntact: publisher.previous.map { RenderDigest.isIntact($0, formats: options.formats) } ?? false, dated: dated))
        outcome.decision = decision
        switch decision {
        case .leaveAsItWas:
            // What was asked for again and failed again, or waited its turn, counts all the same.
            if state.retry != last.state.retry, let stateFolder { try state.writeAnswers(to: stateFolder) }
            if let stateFolder, openLibraryCache != openLibraryCacheAsRead {
                try keepOpenLibraryAnswers(in: stateFolder)
            }
            return (outcome, state)
        case .linkLastSnapshot:
            // A new dated folder: yesterday's files, linked.
            logger.info("Nothing changed: linking the previous snapshot's files")
            if let previous = publisher.previous { try publisher.writer.linkTree(from: previous) }
            state.pageDigests = last.state.pageDigests
        case .render(let reusingPages):
            // --full renders every page again; otherwise a page whose inputs are as they were is linked.
            let pages = reusingPages ? PageDigests(previous: last.state.pageDigests, seed: state.renderedWith) : PageDigests()
            state.pageDigests = try await render(library, changes: changes, pages: pages, into: publisher.writer)
        }
        MemoryUsage.release()
        if let memory = MemoryUsage.summary() { logger.debug("After rendering: \(memory)") }
        if options.cacheDirectory == nil {
            let published = options.formats.contains(.json) ? publisher.staging.appendingPathComponent("library.json") : nil
            try state.write(to: publisher.staging.appendingPathComponent(SnapshotState.folderName), library: library, published: published)
            try keepOpenLibraryAnswers(in: publisher.staging.appendingPathComponent(SnapshotState.folderName))
        } else if let cacheDirectory = options.cacheDirectory {
            // Beside the state, which the run writes there once the snapshot is published.
            try keepOpenLibraryAnswers(in: cacheDirectory)
        }
        outcome.network = client.metrics.snapshot
        return (outcome, state)
    }

    /// Logs in, while the last snapshot's library and covers are read, each on a thread of its own
    /// (on Swift's threads, the login's answer waited behind them): one after the other, they took
    /// a fifth of a 10,000-book run with nothing changed.
    private func logIn(_ client: ReaderClient, readingLastSnapshot state: SnapshotState, from stateFolder: URL?) async throws -> LastSnapshot {
        var state = state
        let readers = (library: WorkerThread(name: "reader-snapshot library"), covers: WorkerThread(name: "reader-snapshot covers"))
        defer { readers.library.stop(); readers.covers.stop() }
        async let readingLibrary = readers.library.run { () -> Result<Catalog?, Error> in
            Result { try stateFolder.flatMap(SnapshotState.readLibrary) }
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
            state.addresses = [:]
        }
        MemoryUsage.release()
        return LastSnapshot(state: state, library: library, libraryLater: libraryLater)
    }

    /// Walks the library; books unchanged since the last snapshot are taken from it.
    private func crawl(_ client: ReaderClient, last: LastSnapshot, into writer: SnapshotWriter) async throws -> Crawler.Result {
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

    /// `--enrich openlibrary`, between the crawl and the render: Open Library's covers are checked,
    /// thumbnailed and kept like the server's.
    private func enrich(_ library: Catalog, with openLibrary: OpenLibraryOptions, cache: inout OpenLibraryCache, http: HTTPClient,
                        client: ReaderClient, last: LastSnapshot, writer: SnapshotWriter, records: CoverRecords?,
                        addresses: [Int: String]) async throws -> OpenLibraryEnricher.Report {
        live?.begin("Open Library", total: 0)
        let enricher = OpenLibraryEnricher(options: openLibrary, logger: logger, now: Self.seconds(of: options.generatedAt) ?? 0,
                                           wantsCovers: options.privacy.covers)
        let pace = Pace(interval: openLibrary.interval)
        let covers = enricher.coverFetcher(client: client, writer: writer, previous: last.state.covers,
                                           thumbnails: options.thumbnails ? Thumbnailer() : nil, pace: pace)
        return try await enricher.enrich(library, cache: &cache, http: http, redactor: client.redactor, covers: covers, records: records, pace: pace, addresses: addresses)
    }

    /// What changed since the last snapshot. Nothing: the snapshot keeps its date and its change
    /// report, so every file is the same and stays as it was.
    private func compare(_ library: Catalog, with previous: Catalog?, previousSnapshot: URL?) throws -> (ChangeReport, unchanged: Bool) {
        guard let previous, try library.sameContent(as: previous) else {
            return (try ChangeReport.compare(previous: previous, current: library), false)
        }
        library.frame.generatedAt = previous.frame.generatedAt
        let kept = previousSnapshot.flatMap { try? Data(contentsOf: $0.appendingPathComponent("changes.json")) }
            .flatMap { try? JSONDecoder().decode(ChangeReport.self, from: $0) }
        return (try kept ?? ChangeReport.compare(previous: previous, current: library), true)
    }

    /// Every page, on a thread of its own: the threads answers resume on are the network's.
    /// Returns the book and shelf pages' digests, for the next run.
    private func render(_ library: Catalog, changes: ChangeReport, pages: PageDigests, into writer: SnapshotWriter) async throws -> PageDigestTable {
        logger.info("Rendering \(options.formats.sorted().map(\.rawValue).joined(separator: ", "))")
        live?.begin("Rendering", total: 0)
        var renderer = SiteRenderer(templates: options.templates, formats: options.formats, siteURL: options.siteURL)
        renderer.pages = pages
        let ready = renderer
        let rendered = try await EveryCore.onThreadOfItsOwn("reader-snapshot render") { try ready.render(library, changes: changes, into: writer) }
        if rendered.linked > 0 {
            logger.info("Pages: \(rendered.linked) of \(rendered.digests.count) book and shelf pages made from what they were made from last time, linked")
        }
        return rendered.digests
    }
}
