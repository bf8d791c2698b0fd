import AsyncHTTPClient
import Crawl
import Enrich
import Foundation
import History
import LibraryArchive
import Logging
import ReaderAPI
import Site
import SnapshotStore
import Support
import Vault

/// One export: crawl → library → render → swap, as a list of named steps (`ExportStep`) run by
/// one loop that times each.
package struct Exporter: Sendable {
    /// What a run did, for the summary line and the exit code.
    package struct Outcome: Sendable {
        /// The library written: its frame, an entry per book.
        package var catalog: Catalog
        package var changes: ChangeReport
        package var network: ClientMetrics.Reading
        /// True when the library was the same as in the previous snapshot: no file was rewritten.
        package var unchanged: Bool
        /// What the night did with its snapshot: left it, linked it, or rendered.
        package var decision = NightPlan.render(reusingPages: false)
        /// The snapshot was left as it was: the pages were not even rendered.
        package var untouched: Bool { decision == .leaveAsItWas }
        /// The new snapshot's files are the last one's, linked (dated snapshots, nothing changed).
        package var linked: Bool { decision == .linkLastSnapshot }
        package var duration: Duration = .zero
        /// What `--history` did: a commit, or none (the same text).
        package var history: HistoryRepository.Recorded?
        /// What `--markdown-into` did.
        package var vault: Vault.Report?
        /// What `--enrich openlibrary` did.
        package var openLibrary: OpenLibraryEnricher.Report?
        /// Gaps the last snapshot did not list: news, where a gap still open is not.
        package var newGaps = 0
        /// Where the snapshot is: `publish` takes it as it is.
        package var place: SnapshotPlace
        /// Where the night's time went, step by step, in the order they ran.
        package var steps: [ExportStep.Time] = []
    }

    package var settings: ExportSettings
    package var logger: Logger
    package var live: LiveProgress?
    /// The night's requests and covers, counted as they go: the caller reads them for
    /// `--metrics-file` even when the night fails.
    package let network: ClientMetrics

    package init(settings: ExportSettings, logger: Logger, live: LiveProgress? = nil, network: ClientMetrics = ClientMetrics()) {
        self.settings = settings
        self.logger = logger
        self.live = live
        self.network = network
    }

    package func run() async throws -> Outcome {
        let started = ContinuousClock.now
        MemoryUsage.configureAllocator()
        var night = Night()
        var times: [ExportStep.Time] = []
        var toldAtTheEnd: Error?
        do {
            for step in ExportStep.night where step.applies(settings, night) {
                logger.debug("Step: \(step.name)")
                let begun = ContinuousClock.now
                do {
                    try await step.run(self, &night)
                } catch where step.failure == .toldAtTheEnd {
                    toldAtTheEnd = toldAtTheEnd ?? error
                }
                times.append(ExportStep.Time(name: step.name, duration: ContinuousClock.now - begun))
            }
        } catch {
            await night.abandon()
            throw error
        }
        // Held until the run is over: the history's commit is this run's too.
        night.output?.swap.finish()
        if let toldAtTheEnd { throw toldAtTheEnd }
        guard var outcome = night.outcome else { throw SnapshotError(.notWritable(detail: "the export ended before it knew the library"), path: settings.place.root.path) }
        outcome.steps = times
        outcome.duration = ContinuousClock.now - started
        return outcome
    }
}

/// One step of the export: a name, whether it has anything to do tonight, and what it does with
/// what the steps before it found. Each step lets go of what no later step needs.
package struct ExportStep: Sendable {
    package let name: String
    let applies: @Sendable (ExportSettings, Exporter.Night) -> Bool
    let run: @Sendable (Exporter, inout Exporter.Night) async throws -> Void
    /// Whether a failure ends the night there (nothing is swapped in, the last snapshot is kept), or
    /// is told once the steps after it have run (the snapshot is in place by then).
    let failure: Failure

    enum Failure { case endsTheNight, toldAtTheEnd }

    /// How long one step took.
    package struct Time: Sendable {
        package let name: String
        package let duration: Duration
    }

    init(_ name: String, failure: Failure = .endsTheNight, when applies: @escaping @Sendable (ExportSettings, Exporter.Night) -> Bool = { _, _ in true },
         _ run: @escaping @Sendable (Exporter, inout Exporter.Night) async throws -> Void) {
        self.name = name
        self.applies = applies
        self.run = run
        self.failure = failure
    }

    /// One night's steps, in order.
    static let night: [ExportStep] = [
        ExportStep("prepare the output") { exporter, night in night.output = try await exporter.prepareOutput() },
        ExportStep("log in (reading the last snapshot meanwhile)") { exporter, night in try await exporter.logIn(&night) },
        ExportStep("crawl") { exporter, night in try await exporter.crawl(&night) },
        ExportStep("ask Open Library", when: { settings, _ in settings.openLibrary != nil }) { exporter, night in
            try await exporter.enrich(&night)
        },
        ExportStep("compare with the last snapshot") { exporter, night in try await exporter.compare(&night) },
        ExportStep("make the snapshot") { exporter, night in try await exporter.make(&night) },
        // On a night that renders: a night that links the last snapshot links its sealed files too.
        ExportStep("seal the private catalog", when: { settings, night in
            guard settings.site.privateCatalog != nil, case .render = night.outcome?.decision else { return false }
            return true
        }) { exporter, night in try await exporter.sealPrivateCatalog(&night) },
        ExportStep("close the connections") { _, night in try await night.closeConnections() },
        ExportStep("swap it into place") { exporter, night in try exporter.swap(&night) },
        ExportStep("keep the Markdown", failure: .toldAtTheEnd, when: { settings, _ in settings.vault != nil }) { exporter, night in
            try exporter.keepMarkdown(&night)
        },
        // A night whose files are the last night's has nothing to commit: no git is started.
        ExportStep("commit the history", failure: .toldAtTheEnd, when: { settings, night in
            guard let history = night.output?.history, settings.historyAuthor != nil, let decision = night.outcome?.decision else { return false }
            return decision.writesNewFiles || !history.exists
        }) { exporter, night in try await exporter.commitHistory(&night) },
    ]
}

extension Exporter {
    /// What the steps found so far, handed from each to the next. A field is set by the step that
    /// finds it and let go by the last step that needs it.
    package struct Night: Sendable {
        var output: Output?
        var http: HTTPClient?
        var client: ReaderClient?
        var last: LastSnapshot?
        var crawled: Crawler.Result?
        var library: Catalog?
        var openLibrary: OpenLibraryAnswers?
        var state: SnapshotState?
        var cache: ResponseCache?
        var outcome: Outcome?
        /// What the pages are made with (`RenderDigest`), found once.
        var renderedWith: String?
        /// Set on a night that may be a quiet one (`QuietNight`).
        var quietWatch: QuietWatch?
        /// What tonight found, when it was a quiet night: kept once the state is.
        var quietFound: QuietNight?

        /// The night ended early: the connections closed, the staging folder and the state set
        /// aside let go; the last snapshot stays as it was unless the swap was done.
        func abandon() async {
            try? await http?.shutdown()
            guard let output else { return }
            output.swap.discard()
            SnapshotState.discardSetAside(in: output.place.stateFolder)
            output.swap.finish()
        }

        mutating func closeConnections() async throws {
            if let client { outcome?.network = client.metrics.reading }
            try await http?.shutdown()
            http = nil
        }
    }

    /// Where the night writes, fixed before anything is asked of the server.
    struct Output: Sendable {
        let place: SnapshotPlace
        let swap: SnapshotSwap
        /// The folder the new snapshot takes the place of (tonight's dated folder with `--keep`).
        let target: URL
        let history: HistoryRepository?
    }

    /// A value a step needs that an earlier step should have found.
    static func found<Value>(_ value: Value?, _ what: String) throws -> Value {
        guard let value else { throw SnapshotError(.notWritable(detail: "the export's steps ran out of order (\(what) missing)"), path: "") }
        return value
    }

    /// A history made before it moved beside the snapshot is moved there once, if it is ours: a
    /// repository of the user's in the folder stays theirs, untouched.
    func moveHistoryOut(of place: SnapshotPlace, to history: HistoryRepository) async throws {
        let inside = HistoryRepository(gitDirectory: place.gitDirectoryInside)
        guard !history.exists, inside.exists, (try? await inside.checkOwned()) != nil else { return }
        do {
            try FileManager.default.moveItem(at: inside.gitDirectory, to: history.gitDirectory)
        } catch {
            throw SnapshotError(.notWritable(detail: "could not move the history out of the snapshot, to \(history.gitDirectory.path): \(SnapshotWriter.describe(error))"),
                                path: inside.gitDirectory.path)
        }
        logger.info("The history moved beside the snapshot, out of what may be shared: \(history.gitDirectory.path)")
    }

    /// The output checked and locked, the private state found (moved out of an older snapshot),
    /// and the history's last commit made if a killed run left it.
    func prepareOutput() async throws -> Output {
        let place = settings.place
        // Before the server is asked for anything: a folder the run cannot write in, named with why.
        try WritableFolders.check(output: place.root, keep: place.dated != nil, state: place.stateBesideRoot ? nil : place.stateFolder,
                                  markdown: settings.vault?.root)
        try place.dated?.prepare()
        let target = place.folder(for: settings.date)
        let swap = try SnapshotSwap(output: target, previous: place.dated?.newest)
        // The private state lives beside the output, never in what may be shared. Moved out of an
        // older snapshot only once the output is known to be one this run may replace.
        if place.stateBesideRoot { SnapshotState.moveOutOfSnapshot(place.root, to: place.stateFolder) }
        let history = settings.history
        if let history {
            do {
                try await moveHistoryOut(of: place, to: history)
                try await history.checkOwned()
            } catch { swap.discard(); swap.finish(); throw error }
            await finishLastCommit(history, snapshot: place.dated?.newest ?? swap.previous)
        }
        return Output(place: place, swap: swap, target: target, history: history)
    }

    /// The state this night keeps for the next: the answers (none when privacy options left
    /// something out of them), the covers, what failed, where it came from, how it is rendered.
    func stateToKeep(_ crawled: Crawler.Result, client: ReaderClient, cache: ResponseCache, renderedWith: String) -> SnapshotState {
        let privacy = settings.content.privacy
        var state = SnapshotState(responses: privacy.isActive ? [:] : cache.entries, covers: crawled.covers)
        state.retry = crawled.retry
        state.origin = SnapshotOrigin(server: settings.server.description, userID: client.session?.userID)
        state.addresses = crawled.addresses
        state.noteLimit = privacy.isActive ? nil : settings.content.noteLimit
        state.privacy = privacy.summary
        state.renderedWith = renderedWith
        state.writtenBy = RenderDigest.thisBuild
        return state
    }

    /// As the decision says: the snapshot left as it was, yesterday's files linked into tonight's
    /// dated folder, or the pages rendered. Keeps the state, with the pages' digests.
    func make(_ night: inout Night) async throws {
        let output = try Self.found(night.output, "the output")
        let outcome = try Self.found(night.outcome, "the outcome")
        let last = try Self.found(night.last, "the last snapshot")
        var state = try Self.found(night.state, "the state")
        // Open Library's answers are kept wherever the state goes, even on a night that leaves the
        // snapshot as it was (an ISBN it does not know is not asked again for a week).
        if let openLibrary = night.openLibrary, openLibrary.cache != openLibrary.asRead || outcome.decision != .leaveAsItWas {
            do { try openLibrary.cache.write(to: output.place.stateFolder) } catch {
                throw SnapshotError(.notWritable(detail: SnapshotWriter.describe(error)), path: output.place.stateFolder.path)
            }
        }
        night.openLibrary = nil
        night.last = nil
        switch outcome.decision {
        case .leaveAsItWas:
            // What was asked for again and failed again, or waited its turn, counts all the same.
            if state.retry != last.state.retry { try state.writeAnswers(to: output.place.stateFolder) }
            if let found = night.quietFound, found != last.state.quietNight { try keep(found, in: output.place.stateFolder) }
            night.state = state
            return
        case .linkLastSnapshot:
            // A new dated folder: yesterday's files, linked.
            logger.info("Nothing changed: linking the previous snapshot's files")
            if let previous = output.swap.previous { try output.swap.writer.linkTree(from: previous) }
            state.pageDigests = last.previousPages
        case .render(let reusingPages):
            // --full renders every page again; otherwise a page whose inputs are as they were is linked.
            let pages = reusingPages ? PageDigests(previous: last.previousPages, seed: state.renderedWith) : PageDigests()
            state.pageDigests = try await render(outcome.catalog, changes: outcome.changes, pages: pages, into: output.swap.writer)
        }
        night.state = state
        MemoryUsage.release()
        if let memory = MemoryUsage.summary() { logger.debug("After rendering: \(memory)") }
    }

    /// The new snapshot swapped into place (or, on a night that leaves it, the staging folder let
    /// go), `latest` pointed at it, and the state kept for the next night.
    func swap(_ night: inout Night) throws {
        let output = try Self.found(night.output, "the output")
        let outcome = try Self.found(night.outcome, "the outcome")
        let state = try Self.found(night.state, "the state")
        night.state = nil
        guard outcome.decision != .leaveAsItWas else {
            // Nothing changed and the pages are made the same way: the snapshot stays as it is.
            output.swap.discard()
            return
        }
        // Said before the swap: a run killed between the swap and its commit leaves the commit to
        // the next run, even when that run finds nothing new.
        if let history = output.history, let author = settings.historyAuthor, history.exists, outcome.decision.writesNewFiles {
            history.markPending(nightCommit(outcome, history: history, author: author))
        }
        try output.swap.swapIn()
        try output.place.dated?.finish(publishing: output.target)
        try state.write(to: output.place.stateFolder, library: outcome.catalog)
        // Written with the state it was found against (a linked night writes it whole again).
        if let found = night.quietFound { try keep(found, in: output.place.stateFolder) }
    }

    /// `--markdown-into`: the snapshot's Markdown kept in the user's folder, their edits kept.
    func keepMarkdown(_ night: inout Night) throws {
        guard let vault = settings.vault, let output = night.output else { return }
        logger.info("Keeping the Markdown in \(vault.root.path)")
        night.outcome?.vault = try vault.sync(from: output.place.dated?.newest ?? output.target)
    }

    /// `--history`: the night's text committed; a failure is told as the history's.
    func commitHistory(_ night: inout Night) async throws {
        guard let output = night.output, let history = output.history, let author = settings.historyAuthor,
              let outcome = night.outcome else { return }
        do {
            night.outcome?.history = try await commit(outcome, to: history, snapshot: output.place.dated?.newest ?? output.target, author: author)
        } catch {
            let detail = (error as? HistoryError)?.description ?? "\(error)"
            throw HistoryError(.commitFailed(detail: detail), path: history.gitDirectory.path)
        }
    }
}
