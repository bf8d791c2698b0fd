import Foundation

/// The progress line on a terminal: the phase, its count, bytes, request rate and an ETA, redrawn
/// in place a few times a second. Log lines print above it. Not used when standard error is not
/// a terminal (cron gets plain lines only), nor with --quiet.
package final class LiveProgress: @unchecked Sendable {
    private let lock = NSLock()
    private var phase = ""
    private var done = 0
    private var total = 0
    private var phaseStarted = ContinuousClock.now
    private let started = ContinuousClock.now
    private var shown = false
    private var running = true
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
    private var network: (@Sendable () -> Network)?

    package init() {}

    /// True when standard error is a terminal that can redraw a line.
    package static var isAvailable: Bool {
        isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    package func start() {
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                redraw()
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
    }

    package func stop() {
        lock.withLock {
            running = false
            eraseLocked()
        }
    }

    package func watch(_ network: @escaping @Sendable () -> Network) { lock.withLock { self.network = network } }

    /// The network's figures are the crawl's: a phase after it would show its rate falling.
    package func unwatch() { lock.withLock { network = nil } }

    package func begin(_ phase: String, total: Int) {
        lock.withLock {
            self.phase = phase
            self.total = total
            done = 0
            phaseStarted = .now
        }
    }

    package func step(by count: Int = 1) { lock.withLock { done += count } }

    /// The count as the phase knows it; a total of 0 is not known yet.
    package func set(done: Int, total: Int) {
        lock.withLock {
            self.done = done
            self.total = total
        }
    }

    /// Prints a log line above the progress line.
    package func print(_ text: String) {
        lock.withLock {
            eraseLocked()
            try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
            drawLocked()
        }
    }

    private func redraw() {
        lock.withLock {
            guard running else { return }
            drawLocked()
        }
    }

    private func eraseLocked() {
        if shown { try? FileHandle.standardError.write(contentsOf: Data("\r\u{1B}[2K".utf8)) }
        shown = false
    }

    private func drawLocked() {
        guard running, !phase.isEmpty else { return }
        var parts = [total > 0 ? "\(phase) \(done)/\(total)" : phase]
        let elapsed = Self.seconds(ContinuousClock.now - started)
        if let network = network?() {
            parts.append(Self.bytes(network.bytesReceived))
            if elapsed > 0.5 { parts.append(String(format: "%.0f req/s", Double(network.requests) / elapsed)) }
            if network.retries > 0 { parts.append("\(network.retries) retries") }
        }
        let inPhase = Self.seconds(ContinuousClock.now - phaseStarted)
        if done > 0, done < total, inPhase > 1 {
            let remaining = inPhase / Double(done) * Double(total - done)
            parts.append(String(format: "ETA %.0fs", remaining.rounded(.up)))
        }
        try? FileHandle.standardError.write(contentsOf: Data(("\r\u{1B}[2K" + parts.joined(separator: " · ")).utf8))
        shown = true
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func bytes(_ count: Int) -> String {
        count < 1 << 20 ? String(format: "%.0f KB", Double(count) / 1024) : String(format: "%.1f MB", Double(count) / 1_048_576)
    }
}
