import Foundation

/// What one run asked of the network, for the summary and the benchmarks.
public final class ClientMetrics: @unchecked Sendable {
    public struct Snapshot: Sendable, Equatable {
        public var requests = 0
        public var retries = 0
        /// Body bytes received, JSON and covers.
        public var bytesReceived = 0
        public var coverBytes = 0
        /// Answers 304 Not Modified.
        public var notModified = 0
        public var coversDownloaded = 0
        public var coversReused = 0
        public var coversFailed = 0
    }

    private let lock = NSLock()
    private var value = Snapshot()

    public init() {}

    public var snapshot: Snapshot { lock.withLock { value } }

    func record(_ change: (inout Snapshot) -> Void) { lock.withLock { change(&value) } }
}
