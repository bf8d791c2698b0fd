import Foundation
import NIOConcurrencyHelpers

/// The progress line on a terminal: the phase, its count, bytes, request rate and an ETA, redrawn
/// in place a few times a second. Log lines print above it. Not used when standard error is not
/// a terminal (cron gets plain lines only), nor with --quiet.
package final class LiveProgress: Sendable {
    private struct State {
        var phase = ""
        var done = 0
        var total = 0
        var phaseStarted = ContinuousClock.now
        var shown = false
        var running = true
        var network: (@Sendable () -> Network)?
    }
    private let state = NIOLockedValueBox(State())
    private let started = ContinuousClock.now
    /// What the network has done so far, when there is a network to watch.
    package struct Network: Sendable {
        package var bytesReceived: Int
        package var requests: Int
        package var retries: Int
        package init(bytesReceived: Int, requests: Int, retries: Int) {
            self.bytesReceived = bytesReceived
            self.requests = requests
            self.retries = retries
        }
    }

    package init() {}

    /// True when standard error is a terminal that can redraw a line.
    package static var isAvailable: Bool {
        isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    package func start() {
        Thread.detachNewThread { [self] in
            while state.withLockedValue({ $0.running }) {
                redraw()
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
    }

    package func stop() {
        state.withLockedValue { state in
            state.running = false
            Self.erase(&state)
        }
    }

    package func watch(_ network: @escaping @Sendable () -> Network) { state.withLockedValue { $0.network = network } }

    /// The network's figures are the crawl's: a phase after it would show its rate falling.
    package func unwatch() { state.withLockedValue { $0.network = nil } }

    package func begin(_ phase: String, total: Int) {
        state.withLockedValue { state in
            state.phase = phase
            state.total = total
            state.done = 0
            state.phaseStarted = .now
        }
    }

    package func step(by count: Int = 1) { state.withLockedValue { $0.done += count } }

    /// The count as the phase knows it; a total of 0 is not known yet.
    package func set(done: Int, total: Int) {
        state.withLockedValue { state in
            state.done = done
            state.total = total
        }
    }

    /// Prints a log line above the progress line.
    package func print(_ text: String) {
        state.withLockedValue { state in
            Self.erase(&state)
            // A line standard error cannot take has nowhere else to go.
            try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
            draw(&state)
        }
    }

    private func redraw() {
        state.withLockedValue { state in
            guard state.running else { return }
            draw(&state)
        }
    }

    private static func erase(_ state: inout State) {
        // The progress line is a help on a terminal: one that cannot be drawn or erased stops nothing.
        if state.shown { try? FileHandle.standardError.write(contentsOf: Data("\r\u{1B}[2K".utf8)) }
        state.shown = false
    }

    private func draw(_ state: inout State) {
        guard state.running, !state.phase.isEmpty else { return }
        var parts = [state.total > 0 ? "\(state.phase) \(state.done)/\(state.total)" : state.phase]
        let elapsed = Self.seconds(ContinuousClock.now - started)
        if let network = state.network?() {
            parts.append(Self.bytes(network.bytesReceived))
            if elapsed > 0.5 { parts.append(String(format: "%.0f req/s", Double(network.requests) / elapsed)) }
            if network.retries > 0 { parts.append("\(network.retries) retries") }
        }
        let inPhase = Self.seconds(ContinuousClock.now - state.phaseStarted)
        if state.done > 0, state.done < state.total, inPhase > 1 {
            let remaining = inPhase / Double(state.done) * Double(state.total - state.done)
            parts.append(String(format: "ETA %.0fs", remaining.rounded(.up)))
        }
        // As in `erase`: a progress line that cannot be drawn stops nothing.
        try? FileHandle.standardError.write(contentsOf: Data(("\r\u{1B}[2K" + parts.joined(separator: " · ")).utf8))
        state.shown = true
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func bytes(_ count: Int) -> String {
        count < 1 << 20 ? String(format: "%.0f KB", Double(count) / 1024) : String(format: "%.1f MB", Double(count) / 1_048_576)
    }
}
