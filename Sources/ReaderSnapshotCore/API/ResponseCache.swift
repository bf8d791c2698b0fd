import Foundation

/// ETags and bodies of the last run's JSON answers: a request sends the ETag back, and a 304
/// reuses the body kept here. What this run sees is collected apart, so that answers no longer
/// asked for are not carried forward.
public final class ResponseCache: @unchecked Sendable {
    public struct Entry: Codable, Sendable, Equatable {
        /// The ETag exactly as the server sent it (weak ones keep their W/).
        public var etag: String
        public var body: String
    }

    private let lock = NSLock()
    private let previous: [String: Entry]
    private var current: [String: Entry] = [:]

    public init(previous: [String: Entry] = [:]) {
        self.previous = previous
    }

    func etag(for key: String) -> String? { previous[key]?.etag }

    /// The body of a 304: the previous answer, now also this run's.
    func reuse(_ key: String) -> Data? {
        guard let entry = previous[key] else { return nil }
        lock.withLock { current[key] = entry }
        return Data(entry.body.utf8)
    }

    func store(_ key: String, etag: String, body: Data) {
        guard let text = String(data: body, encoding: .utf8) else { return }
        lock.withLock { current[key] = Entry(etag: etag, body: text) }
    }

    public var entries: [String: Entry] { lock.withLock { current } }
}
