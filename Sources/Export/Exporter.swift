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
        /// With `siteURL`, a share card for each page's link preview (`--no-share-cards` turns them off).
        package var shareCards = true
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

    /// One night's steps, in order. Each is a function below, named for what it does; what one
    /// step finds is handed to the next as a value.
    package enum Step: String, Sendable {
        case prepareOutput = "prepare the output"
        case logIn = "log in (reading the last snapshot meanwhile)"
        case crawl = "crawl"
        case enrich = "ask Open Library"
        case compare = "compare with the last snapshot"
        case make = "make the snapshot"
        case publish = "publish"
        case keepMarkdown = "keep the Markdown"
        case commitHistory = "commit the history"
    }

    package func run() async throws -> Outcome {
        let started = ContinuousClock.now
        MemoryUsage.configureAllocator()
        let place = try await step(.prepareOutput) { try await prepareOutput() }
        // Held until the run is over: the history's commit is this run's too.
        defer { place.publisher.finish() }
        let http = ReaderClient.makeHTTPClient(concurrency: options.concurrency, connectTimeout: options.connectTimeout)
        var outcome: Outcome
        do {
            var lastState = SnapshotState.read(from: place.stateFolder, readingCovers: false, readingPages: false)
            let cache = try ResponseCache(previous: lastState.responses, spillIn: place.publisher.staging)
            let client = ReaderClient(server: options.server, http: http, timeout: options.timeout, limits: options.limits,
                                      redactor: Redactor(secrets: options.credentials.secrets), retry: options.retry, cache: cache,
                                      logger: logger)
            var last = try await step(.logIn) { try await logIn(client, readingLastSnapshot: lastState, from: place.stateFolder) }
            // `last` holds what the run needs of it now: this copy kept last night's covers'
            // addresses (5 MB at 100,000 books) through the render.
            lastState = SnapshotState()
            var crawled = try await step(.crawl) { try await crawl(client, last: last, into: place.publisher.writer) }
            var library = crawled.catalog
            library.frame.title = options.title
            var openLibrary: OpenLibraryAnswers?
            if let wanted = options.openLibrary {
                openLibrary = try await step(.enrich) {
                    try await enrich(&library, with: wanted, place: place, http: http, client: client, last: last, crawled: crawled)
                }
            }
            let compared = try await step(.compare) { try await compare(&library, with: &last, place: place) }
            var state = stateToKeep(crawled, client: client, cache: cache)
            outcome = Outcome(catalog: library, changes: compared.changes, network: client.metrics.snapshot, unchanged: compared.unchanged,
                              duration: .zero)
            outcome.openLibrary = openLibrary?.report
            outcome.newGaps = library.frame.problems.filter { !compared.knownGaps.contains($0.gapKey) }.count
            outcome.decision = PublishDecision.decide(PublishDecision.Facts(
                libraryUnchanged: compared.unchanged, reuseUnchanged: options.reuseUnchanged, hasLastSnapshot: place.publisher.previous != nil,
                sameRendering: last.state.renderedWith == state.renderedWith,
                lastSnapshotIntact: place.publisher.previous.map { RenderDigest.isIntact($0, formats: options.formats) } ?? false,
                dated: place.dated != nil))
            if outcome.decision != .leaveAsItWas {
                // What the next night needs of the covers is written now, not held through the render.
                try state.setAside(in: place.stateFolder)
                crawled.covers = nil
                crawled.addresses = CoverAddresses()
                last.state.addresses = CoverAddresses()
            }
            let made = try await step(.make) {
                try await make(outcome, state: state, last: last, place: place, openLibrary: openLibrary)
            }
            outcome.network = client.metrics.snapshot
            try await http.shutdown()
            try step(.publish) { try publish(outcome, state: made, place: place) }
        } catch {
            try? await http.shutdown()
            place.publisher.discard()
            SnapshotState.discardSetAside(in: place.stateFolder)
            throw error
        }
        // The snapshot is published: the vault and the history are each tried, whatever the other does.
        let snapshot = place.dated?.newest ?? place.target
        var failure: Error?
        if let vault = options.vault {
            do { outcome.vault = try step(.keepMarkdown) { try keepMarkdown(in: vault, from: snapshot) } } catch { failure = error }
        }
        // A night whose files are the last night's has nothing to commit: no git is started.
        if let history = place.history, let author = options.historyAuthor, outcome.decision.writesNewFiles || !history.exists {
            do {
                outcome.history = try await step(.commitHistory) { try await commit(outcome, to: history, snapshot: snapshot, author: author) }
            } catch {
                let detail = (error as? HistoryError)?.description ?? "\(error)"
                failure = failure ?? HistoryError(.commitFailed(detail: detail), path: history.gitDirectory.path)
            }
        }
        if let failure { throw failure }
        outcome.duration = ContinuousClock.now - started
        return outcome
    }

    /// A step, said in the debug log as it starts.
    private func step<T>(_ step: Step, _ body: () async throws -> T) async rethrows -> T {
        logger.debug("Step: \(step.rawValue)")
        return try await body()
    }

    private func step<T>(_ step: Step, _ body: () throws -> T) rethrows -> T {
        logger.debug("Step: \(step.rawValue)")
        return try body()
    }

    /// Where the night writes, fixed before anything is asked of the server.
    struct Place {
        let publisher: Publisher
        let dated: DatedSnapshots?
        /// The folder the new snapshot takes the place of (tonight's dated folder with `--keep`).
        let target: URL
        /// The private state: beside the output, or `--cache-dir`.
        let stateFolder: URL
        let history: HistoryRepository?
    }

    /// The output checked and locked, the private state found (moved out of an older snapshot),
    /// and the history's last commit made if a killed run left it.
    private func prepareOutput() async throws -> Place {
        var dated: DatedSnapshots?
        if let keep = options.keep {
            let layout = DatedSnapshots(root: options.output, keep: keep)
            try layout.prepare()
            dated = layout
        }
        let target = dated?.folder(for: options.generatedAt) ?? options.output
        let publisher = try Publisher(output: target, previous: dated?.newest)
        let root = dated?.root ?? options.output
        let stateFolder: URL
        if let cacheDirectory = options.cacheDirectory {
            stateFolder = cacheDirectory
        } else {
            // The private state lives beside the output, never in what may be shared. Moved out of
            // an older snapshot only once the output is known to be one this run may replace.
            stateFolder = SnapshotState.beside(root)
            SnapshotState.moveOutOfSnapshot(root, to: stateFolder)
        }
        let history = options.historyAuthor.map { _ in HistoryRepository.of(output: dated?.root ?? target, dated: dated != nil) }
        if let history {
            do { try await history.checkOwned() } catch { publisher.discard(); publisher.finish(); throw error }
            await finishLastCommit(history, snapshot: dated?.newest ?? publisher.previous)
        }
        return Place(publisher: publisher, dated: dated, target: target, stateFolder: stateFolder, history: history)
    }

    /// The state this night keeps for the next: the answers (none when privacy options left
    /// something out of them), the covers, what failed, where it came from, how it is rendered.
    private func stateToKeep(_ crawled: Crawler.Result, client: ReaderClient, cache: ResponseCache) -> SnapshotState {
        var state = SnapshotState(responses: options.privacy.isActive ? [:] : cache.entries, covers: crawled.covers)
        state.retry = crawled.retry
        state.origin = SnapshotOrigin(server: options.server.description, userID: client.session?.userID)
        state.addresses = crawled.addresses
        state.noteLimit = options.privacy.isActive ? nil : options.noteLimit
        state.renderedWith = RenderDigest.digest(templates: options.templates, formats: options.formats, siteURL: options.siteURL,
                                                  shareCards: options.shareCards)
        state.writtenBy = RenderDigest.thisBuild
        return state
    }

    /// As the decision says: the snapshot left as it was, yesterday's files linked into tonight's
    /// dated folder, or the pages rendered. Returns the state to keep, with the pages' digests.
    private func make(_ outcome: Outcome, state: SnapshotState, last: LastSnapshot, place: Place,
                      openLibrary: OpenLibraryAnswers?) async throws -> SnapshotState {
        var state = state
        // Open Library's answers are kept wherever the state goes, even on a night that leaves the
        // snapshot as it was (an ISBN it does not know is not asked again for a week).
        if let openLibrary, openLibrary.cache != openLibrary.asRead || outcome.decision != .leaveAsItWas {
            do { try openLibrary.cache.write(to: place.stateFolder) } catch {
                throw SnapshotError(.notWritable(detail: SnapshotWriter.describe(error)), path: place.stateFolder.path)
            }
        }
        switch outcome.decision {
        case .leaveAsItWas:
            // What was asked for again and failed again, or waited its turn, counts all the same.
            if state.retry != last.state.retry { try state.writeAnswers(to: place.stateFolder) }
            return state
        case .linkLastSnapshot:
            // A new dated folder: yesterday's files, linked.
            logger.info("Nothing changed: linking the previous snapshot's files")
            if let previous = place.publisher.previous { try place.publisher.writer.linkTree(from: previous) }
            state.pageDigests = last.previousPages
        case .render(let reusingPages):
            // --full renders every page again; otherwise a page whose inputs are as they were is linked.
            let pages = reusingPages ? PageDigests(previous: last.previousPages, seed: state.renderedWith) : PageDigests()
            state.pageDigests = try await render(outcome.catalog, changes: outcome.changes, pages: pages, into: place.publisher.writer)
        }
        MemoryUsage.release()
        if let memory = MemoryUsage.summary() { logger.debug("After rendering: \(memory)") }
        return state
    }

    /// The new snapshot swapped into place (or, on a night that leaves it, the staging folder let
    /// go), `latest` pointed at it, and the state kept for the next night.
    private func publish(_ outcome: Outcome, state: SnapshotState, place: Place) throws {
        guard outcome.decision != .leaveAsItWas else {
            // Nothing changed and the pages are made the same way: the snapshot stays as it is.
            place.publisher.discard()
            return
        }
        // Said before the swap: a run killed between the swap and its commit leaves the commit to
        // the next run, even when that run finds nothing new.
        if let history = place.history, let author = options.historyAuthor, history.exists, outcome.decision.writesNewFiles {
            history.markPending(nightCommit(outcome, history: history, author: author))
        }
        try place.publisher.publish()
        try place.dated?.finish(publishing: place.target)
        try state.write(to: place.stateFolder, library: outcome.catalog)
    }

    /// `--markdown-into`: the snapshot's Markdown kept in the user's folder, their edits kept.
    private func keepMarkdown(in vault: Vault, from snapshot: URL) throws -> Vault.Report {
        logger.info("Keeping the Markdown in \(vault.root.path)")
        return try vault.sync(from: snapshot)
    }
}
