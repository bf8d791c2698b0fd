import AsyncHTTPClient
import Crawl
import Foundation
import History
import LibraryArchive
import Logging
import ReaderAPI
import Site
import SnapshotStore
import Timeline

/// A night's phases: each is the value one step hands to the next, holding what the steps so far
/// found and that a later step needs, and nothing else. The phases up to the swap cannot be copied:
/// a step takes its phase as `consuming`, so that what it does not hand on is let go when it
/// returns (the last library before the render, the crawl's covers before the swap), and the
/// compiler holds every step to it.
///
/// `Prepared → LoggedIn → Crawled → Compared → Made → Swapped`; an optional step (the history, Open
/// Library, the catalog for friends, the quiet night, the Markdown, the publish) takes a phase and
/// gives one of the same type. What it needs is its own value, planned once (`Exporter.run`): no
/// phase holds an optional for it.
extension Exporter {
    /// Where the night writes, fixed before anything is asked of the server.
    struct Output: Sendable {
        let place: SnapshotPlace
        let swap: SnapshotSwap
        /// The folder the new snapshot takes the place of (tonight's dated folder with `--keep`).
        let target: URL
    }

    /// The output checked and locked, the private state beside it, a commit a killed run left made.
    struct Prepared: ~Copyable, Sendable {
        let output: Output
    }

    /// The server's connections and the answers' cache, from the login until they are closed.
    struct Connections: Sendable {
        let http: HTTPClient
        let client: ReaderClient
        let cache: ResponseCache
    }

    /// Logged in, with the last snapshot read meanwhile.
    struct LoggedIn: ~Copyable, Sendable {
        let output: Output
        let connections: Connections
        var last: LastSnapshot
    }

    /// The library as the server has it tonight (and, with `--enrich`, as Open Library adds to it).
    struct Crawled: ~Copyable, Sendable {
        let output: Output
        let connections: Connections
        var last: LastSnapshot
        /// The crawl's library (`crawl.library`, titled as the pages are), covers and addresses.
        var crawl: Crawler.Result
        /// What the pages are made with (`RenderDigest`).
        let renderedWith: String
    }

    /// What changed since the last snapshot, and what the night does about it: the last library let go.
    struct Compared: ~Copyable, Sendable {
        let output: Output
        let connections: Connections
        /// The last snapshot's state alone (its library and covers are let go by the comparison).
        let last: LastSnapshot
        var state: SnapshotState
        var outcome: Outcome
        /// Every night's events, tonight's with them (`timeline.json`): the render takes it.
        let timeline: TimelineHandoff
    }

    /// Tonight's timeline, on its way to the render, which takes it (`take`) and lets it go once
    /// its pages are made: held by the night's phases to their end, a year of nights was 10 MB of
    /// the peak at 100,000 books.
    final class TimelineHandoff: @unchecked Sendable {
        private let lock = NSLock()
        // Guarded by `lock`.
        private var timeline: Timeline?

        init(_ timeline: Timeline) { self.timeline = timeline }

        /// Puts another in its place (the history's nights filled in).
        func replace(with other: Timeline) { lock.withLock { timeline = other } }

        /// The timeline, once: the phases hold it no longer.
        func take() -> Timeline {
            lock.withLock {
                defer { timeline = nil }
                // Taken once, by the one step that renders: a second taker is a mistake in the night's steps.
                guard let timeline else { preconditionFailure("the timeline was taken already") }
                return timeline
            }
        }
    }

    /// The snapshot made in the staging folder, as the plan says, ready to be swapped into place.
    /// A night's snapshot keeps its state (`NightMade`); `render` enters here from a `library.json`,
    /// with the library it rendered.
    struct Made<Kept: MadeContents>: ~Copyable, Sendable {
        let output: Output
        let site: SiteIdentity
        /// Whether tonight rendered the pages: only then is a catalog for friends sealed from them (a
        /// night that links the last snapshot links its sealed files too).
        let rendered: Bool
        var kept: Kept
    }

    /// What a night's snapshot keeps besides its files.
    struct NightMade: Sendable {
        var outcome: Outcome
        let state: SnapshotState
    }

    /// The snapshot in place: what the Markdown and the history are kept from.
    struct Swapped: Sendable {
        let output: Output
        let outcome: Outcome
    }
}

/// A phase that holds what must be let go when a step fails: the connections, the staging folder.
protocol HoldsTheNight: ~Copyable {
    var held: Exporter.Held { get }
}

extension Exporter {
    /// What a failed night lets go: the connections closed, the staging folder and the state set
    /// aside removed; the last snapshot stays as it was.
    struct Held: Sendable {
        let output: Output
        var http: HTTPClient?
        /// A night sets its state aside before the swap; `render` keeps none.
        var keepsState = true

        func abandon() async {
            // The night has failed already, and says why: connections that do not close cleanly
            // end with the process.
            try? await http?.shutdown()
            output.swap.discard()
            if keepsState { SnapshotState.discardSetAside(in: output.place.stateFolder) }
            output.swap.finish()
        }
    }
}

extension Exporter.Prepared: HoldsTheNight { var held: Exporter.Held { Exporter.Held(output: output) } }
extension Exporter.LoggedIn: HoldsTheNight { var held: Exporter.Held { Exporter.Held(output: output, http: connections.http) } }
extension Exporter.Crawled: HoldsTheNight { var held: Exporter.Held { Exporter.Held(output: output, http: connections.http) } }
extension Exporter.Compared: HoldsTheNight { var held: Exporter.Held { Exporter.Held(output: output, http: connections.http) } }
extension Exporter.Made: HoldsTheNight {
    var held: Exporter.Held { Exporter.Held(output: output, keepsState: Kept.setsStateAside) }
}

/// Runs the steps one after another, timing each: a failure ends the night there (what the phase
/// holds let go, the last snapshot kept), or, for a step after the swap, is told at the end.
struct StepRunner {
    let logger: Logger
    /// The first failure of a step after the swap: the night's summary carries it to the command.
    private(set) var failedAfterTheSwap: Error?

    init(logger: Logger) { self.logger = logger }

    /// The first step: there is nothing to let go before it.
    mutating func start<Output: ~Copyable>(_ name: String, _ step: () async throws -> Output) async throws -> Output {
        let begun = begin(name)
        defer { end(name, begun) }
        return try await step()
    }

    /// A step whose failure ends the night.
    mutating func run<Input: HoldsTheNight & ~Copyable, Output: ~Copyable>(_ name: String, _ input: consuming Input,
                                                    _ step: (consuming Input) async throws -> Output) async throws -> Output {
        let held = input.held
        let begun = begin(name)
        defer { end(name, begun) }
        do {
            return try await step(input)
        } catch {
            await held.abandon()
            throw error
        }
    }

    /// A step after the swap: its failure is told once the steps after it have run, since the
    /// snapshot is in place by then.
    mutating func attempt<Phase>(_ name: String, _ input: Phase, _ step: (Phase) async throws -> Phase) async -> Phase {
        let begun = begin(name)
        defer { end(name, begun) }
        do {
            return try await step(input)
        } catch {
            failedAfterTheSwap = failedAfterTheSwap ?? error
            return input
        }
    }

    private func begin(_ name: String) -> ContinuousClock.Instant {
        logger.debug("Step: \(name)")
        return ContinuousClock.now
    }

    /// Each step's time is said as it ends (`--verbose`), the same way for `export` and `render`.
    private func end(_ name: String, _ begun: ContinuousClock.Instant) {
        logger.debug("Time: \(name): \(String(format: "%.3f", (ContinuousClock.now - begun).seconds)) s")
    }
}
