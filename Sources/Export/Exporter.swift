import AsyncHTTPClient
import Crawl
import Enrich
import Foundation
import History
import LibraryArchive
import Logging
import PrivateCatalog
import ReaderAPI
import Site
import SnapshotStore
import Support
import Timeline
import Vault

/// One export: prepare → log in → crawl → compare → make → swap, each step a function from one
/// phase to the next (`ExportPhases.swift`), timed as it runs.
package struct Exporter: Sendable {
    /// What the night found and decided, from the comparison on: what the steps after it read.
    struct Outcome: Sendable {
        /// The library written: its frame, an entry per book.
        var library: LibraryFile
        var changes: ChangeReport
        /// True when tonight's timeline began tonight, though earlier nights were kept: the last
        /// snapshot had none (an older version's) or one that could not be read. `--history` then
        /// fills in the nights before from its commits.
        var timelineBegan = false
        var network: ClientMetrics.Reading
        /// True when the library was the same as in the previous snapshot: no file was rewritten.
        var unchanged: Bool
        /// What the night does with its snapshot: leave it, link it, or render.
        var decision = NightPlan.render(reusingPages: false)
        /// Gaps the last snapshot did not list: news, where a gap still open is not.
        var newGaps = 0
        var place: SnapshotPlace
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

    /// The night, phase by phase (`ExportPhases.swift`): each step takes the phase before it and
    /// gives the next. An optional step is planned once, here, as a value that carries what it
    /// needs (`NightHistory`, `QuietNightStep`, the vault, the publish), and runs or not.
    package func run() async throws -> NightSummary {
        let started = ContinuousClock.now
        MemoryUsage.configureAllocator()
        var steps = StepRunner(logger: logger)
        let history = settings.historyAuthor.map { NightHistory(repository: HistoryRepository(gitDirectory: settings.place.gitDirectory), author: $0) }
        // Each phase is handed on with `consume`: otherwise the local here may keep its value, and with
        // it the last library and the crawl's covers, alive to the end of `run`, through the render.
        var prepared = try await steps.start("prepare the output") { try await prepare() }
        if let history {
            prepared = try await steps.run("prepare the history", consume prepared) { try await prepareHistory($0, history) }
        }
        let loggedIn = try await steps.run("log in (reading the last snapshot meanwhile)", consume prepared, logIn)
        // Known once the last snapshot is read: whether tonight may be the last quiet night again.
        let quiet = quietNightStep(loggedIn)
        var crawled = try await steps.run("crawl", consume loggedIn) { try await crawl($0, quiet: quiet) }
        if let openLibrary = settings.openLibrary {
            crawled = try await steps.run("ask Open Library", consume crawled) { try await enrich($0, asking: openLibrary) }
        }
        var compared = try await steps.run("compare with the last snapshot", consume crawled, compare)
        let quietFound = quiet.flatMap { quietNightFound($0, compared: compared) }
        compared = try await steps.run("close the connections", consume compared, closeConnections)
        // Only a night that renders writes a timeline: another leaves or links the last snapshot's files.
        if let history, compared.outcome.timelineBegan, compared.outcome.decision.writesNewFiles {
            compared = try await steps.run("fill in the timeline from the history", consume compared) { await fillInTimeline($0, from: history) }
        }
        var made = try await steps.run("make the snapshot", consume compared, make)
        made = try await Self.sealIfAsked(consume made, steps: &steps, logger: logger)
        if let history {
            made = try await steps.run("note the history's commit as due", consume made) { try markCommitDue($0, in: history) }
        }
        var swapped = try await steps.run("swap it into place", consume made, swap)
        if let quietFound {
            swapped = await steps.attempt("keep what the quiet night found", swapped) { swapped in
                try Self.keep(quietFound, in: swapped.output.place.stateFolder, logger: logger)
                return swapped
            }
        }
        var kept: Vault.Report?
        if let vault = settings.vault {
            // The step's report is the run's, not the phase's: the history after it needs none of it.
            swapped = await steps.attempt("keep the Markdown", swapped) { swapped in
                kept = try keepMarkdown(swapped, in: vault)
                return swapped
            }
        }
        // A night whose files are the last night's has nothing to commit: no git is started.
        if let history, swapped.outcome.decision.writesNewFiles || !history.repository.exists {
            swapped = await steps.attempt("commit the history", swapped) { try await commitHistory($0, to: history) }
        }
        // Held until the night's own steps are over: the history's commit is this run's too.
        swapped.output.swap.finish()
        var summary = NightSummary(swapped.outcome, vault: kept, duration: ContinuousClock.now - started)
        if let publishing = settings.publish {
            swapped = await steps.attempt("publish", swapped) { swapped in
                summary.published = try await publish(swapped, with: publishing)
                return swapped
            }
        }
        summary.failedAfterTheSwap = steps.failedAfterTheSwap
        return summary
    }
}

extension Exporter {
    /// A night that cannot use the last run's state starts over, and says why.
    func startsOver(because why: String) {
        logger.warning("The last run's state cannot be used: \(why). Every book is asked for again, and the pages made anew.")
    }

    /// The output checked and locked, and the private state found (moved out of an older snapshot).
    func prepare() async throws -> Prepared {
        let place = settings.place
        // Before the server is asked for anything: a folder the run cannot write in, named with why.
        try WritableFolders.check(output: place.root, keep: place.dated != nil, state: place.stateBesideRoot ? nil : place.stateFolder,
                                  markdown: settings.vault?.root)
        try place.dated?.prepare()
        let target = place.folder(for: settings.date)
        let swap = try SnapshotSwap(output: target, previous: place.dated?.newest, marked: place.dated == nil)
        // The private state lives beside the output, never in what may be shared. Moved out of an
        // older snapshot only once the output is known to be one this run may replace.
        if place.stateBesideRoot {
            SnapshotState.moveOutOfSnapshot(place.root, to: place.stateFolder, startingOver: startsOver)
        }
        if place.dated == nil { SnapshotMark.moveOut(of: place.root) }
        do {
            // A catalog for friends a killed run left in the snapshot moves out; one that is not the snapshot's goes.
            try PrivateCatalogFolder.settle(snapshot: swap.previous ?? target, root: place.root)
        } catch { swap.discard(); swap.finish(); throw error }
        return Prepared(output: Output(place: place, swap: swap, target: target))
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
    func make(_ compared: consuming Compared) async throws -> Made<NightMade> {
        let compared = compared
        let output = compared.output, outcome = compared.outcome, last = compared.last, timeline = compared.timeline
        var state = compared.state
        let made = { (state: SnapshotState, rendered: Bool) in
            Made(output: output, site: settings.site, rendered: rendered,
                 kept: NightMade(outcome: outcome, state: state))
        }
        switch outcome.decision {
        case .leaveAsItWas:
            // What was asked for again and failed again, or waited its turn, counts all the same.
            if state.retry != last.state.retry { try state.writeAnswers(to: output.place.stateFolder) }
            return made(state, false)
        case .linkLastSnapshot:
            // A new dated folder: yesterday's files, linked.
            logger.info("Nothing changed: linking the previous snapshot's files")
            if let previous = output.swap.previous { try output.swap.writer.linkTree(from: previous) }
            // Read as the state is written: not held through the swap.
            state.pageDigests = last.state.pageDigests
            return made(state, false)
        case .render(let reusingPages):
            // --full renders every page again; otherwise a page whose inputs are as they were is linked.
            let pages = reusingPages ? PageDigests(previous: last.state.pageDigests.value(), seed: state.renderedWith) : PageDigests()
            state.pageDigests = ReadWhenNeeded(try await render(outcome, timeline: timeline.take(), pages: pages, into: output.swap.writer))
            MemoryUsage.release()
            if let memory = MemoryUsage.summary() { logger.debug("After rendering: \(memory)") }
            return made(state, true)
        }
    }

    /// The new snapshot swapped into place (or, on a night that leaves it, the staging folder let
    /// go), `latest` pointed at it, and the state kept for the next night.
    func swap(_ made: consuming Made<NightMade>) throws -> Swapped {
        let made = made
        let output = made.output, night = made.kept
        let swapped = Swapped(output: output, outcome: night.outcome)
        guard night.outcome.decision != .leaveAsItWas else {
            // Nothing changed and the pages are made the same way: the snapshot stays as it is.
            output.swap.discard()
            return swapped
        }
        _ = try Self.swapIntoPlace(made, linkedFrom: night.outcome.decision == .linkLastSnapshot ? output.swap.previous : nil, logger: logger)
        return swapped
    }

    /// `--markdown-into`: the snapshot's Markdown kept in the user's folder, their edits kept.
    func keepMarkdown(_ swapped: Swapped, in vault: Vault) throws -> Vault.Report {
        logger.info("Keeping the Markdown in \(vault.root.path)")
        return try vault.sync(from: swapped.output.place.dated?.newest ?? swapped.output.target)
    }
}
