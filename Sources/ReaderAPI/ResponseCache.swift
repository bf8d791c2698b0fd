import Foundation
import NIOConcurrencyHelpers
import Support

/// ETags and bodies of the last run's JSON answers: a request sends the ETag back, and a 304
/// reuses the body kept here. What this run sees is collected apart, so that answers no longer
/// asked for are not carried forward. Bodies stay on disk (a big library's list of books and its
/// shelves are tens of megabytes): the last run's in its state folder, this run's in a spill file.
package final class ResponseCache: Sendable {
    private struct Seen {
        var current: [String: KeptAnswer] = [:]
        /// The ETags of this run's answers that were 304s, by key.
        var notModified: [String: String] = [:]
    }
    private let previous: [String: KeptAnswer]
    private let seen = NIOLockedValueBox(Seen())
    private let spill: SpillFile?

    /// - Parameter folder: where this run's bodies are spilled (nothing is left there); without one
    ///   they are kept in memory.
    package init(previous: [String: KeptAnswer] = [:], spillIn folder: URL? = nil) throws {
        self.previous = previous
        spill = try folder.map { try SpillFile(in: $0) }
    }

    func etag(for key: String) -> String? { previous[key]?.etag }

    /// The body of a 304: the previous answer, now also this run's.
    func reuse(_ key: String) -> Data? {
        // A kept body that cannot be read now (it was checked as the state was read) leaves the
        // 304 without its answer: the request fails on its status.
        guard let entry = previous[key], let data = try? entry.body.data() else { return nil }
        seen.withLockedValue { seen in
            seen.current[key] = entry
            seen.notModified[key] = entry.etag
        }
        return data
    }

    func store(_ key: String, etag: String, body: Data) {
        guard UntrustedText.isValidUTF8(body) else { return }
        let kept: KeptAnswer.Body
        // A body the spill file cannot take is kept in memory instead.
        if let spill, let range = try? spill.append(body) {
            kept = .spilled(spill, range)
        } else {
            kept = .text(String(decoding: body, as: UTF8.self))
        }
        seen.withLockedValue { seen in
            seen.current[key] = KeptAnswer(etag: etag, body: kept)
            seen.notModified[key] = nil
        }
    }

    package var entries: [String: KeptAnswer] { seen.withLockedValue { $0.current } }

    /// The ETag `key` (a path: "/api/v1/books") was answered 304 to in this run, if it was.
    package func notModifiedETag(_ key: String) -> String? { seen.withLockedValue { $0.notModified[key] } }
}
