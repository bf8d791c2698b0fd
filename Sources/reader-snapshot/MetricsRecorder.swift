import Export
import Foundation
import Logging
import NIOConcurrencyHelpers
import Publish
import ReaderAPI
import RunMetrics

/// `--metrics-file`: the run's metrics, written once, however the run ends: complete, with gaps,
/// failed, or stopped by a signal (the interruption handler finishes it before the process exits).
final class MetricsRecorder: Sendable {
    private struct State {
        var output: String
        var snapshot: RunMetrics.Snapshot?
        var uploaded = 0
        var deleted = 0
        var written = false
    }

    let file: MetricsFile
    let network: ClientMetrics
    private let started = Date()
    private let state: NIOLockedValueBox<State>

    init(file: MetricsFile, output: String, network: ClientMetrics) {
        self.file = file
        self.network = network
        state = NIOLockedValueBox(State(output: output))
    }

    /// The snapshot's folder as the export resolved it (the label of every series).
    func resolved(output: String) { state.withLockedValue { $0.output = output } }

    /// What the snapshot written tonight holds.
    func wrote(_ night: NightSummary) {
        var snapshot = RunMetrics.Snapshot()
        snapshot.books = night.books
        snapshot.booksWithNotes = night.booksWithNotes
        snapshot.booksWithoutDetails = night.booksWithoutDetails
        snapshot.coversMissing = night.booksWithoutCover
        snapshot.shelves = night.shelves
        state.withLockedValue { $0.snapshot = snapshot }
    }

    func published(_ outcome: Publishing.Outcome) {
        state.withLockedValue {
            $0.uploaded = outcome.uploaded
            $0.deleted = outcome.deleted
        }
    }

    /// Writes the file with the run's exit code; only the first call writes (a signal that comes
    /// while the run is ending does not write it twice).
    func finish(exitCode: Int32, logger: Logger) {
        guard let state = state.withLockedValue({ state -> State? in
            guard !state.written else { return nil }
            state.written = true
            return state
        }) else { return }
        var metrics = RunMetrics(output: state.output, started: started, ended: Date(), exitCode: exitCode,
                                 version: ReaderSnapshot.version)
        let network = network.reading
        metrics.run.requests = network.requests
        metrics.run.receivedBytes = network.bytesReceived
        metrics.run.coversFetched = network.coversDownloaded
        metrics.run.coversFailed = network.coversFailed
        metrics.run.publishedFiles = state.uploaded
        metrics.run.deletedFiles = state.deleted
        metrics.snapshot = state.snapshot
        metrics.carryOver(from: file.previous())
        do {
            try file.write(metrics)
        } catch {
            // The run's own outcome stands; a monitor that sees no new file alerts on the missing success.
            logger.warning("The metrics file was not written: \(error)")
        }
    }
}
