import Foundation
import Support

/// ETags and bodies of the last run's JSON answers: a request sends the ETag back, and a 304
/// reuses the body kept here. What this run sees is collected apart, so that answers no longer
/// asked for are not carried forward. Bodies stay on disk (a big library's list of books and its
/// shelves are tens of megabytes): the last run's in its state folder, this run's in a spill file.
package final class ResponseCache: @unchecked Sendable {
    package struct Entry: Sendable, Equatable {
        /// The ETag exactly as the server sent it (weak ones keep their W/).
        package var etag: String
        package var body: Body

        package init(etag: String, body: Body) {
            self.etag = etag
            self.body = body
        }
    }

    /// Where an answer's body is.
    package enum Body: Sendable, Equatable {
        case text(String)
        /// A file of the last run's state, checked against its name when the state was read.
        case file(URL)
        case spilled(SpillFile, Range<Int>)

        package func data() throws -> Data {
            switch self {
            case .text(let text): return Data(text.utf8)
            case .file(let url): return try Data(contentsOf: url)
            case .spilled(let spill, let range): return try spill.read(range)
            }
        }

        package static func == (a: Body, b: Body) -> Bool {
            switch (a, b) {
            case (.text(let x), .text(let y)): return x == y
            case (.file(let x), .file(let y)): return x == y
            case (.spilled(let x, let r), .spilled(let y, let s)): return x === y && r == s
            default: return false
            }
        }
    }

    private let lock = NSLock()
    private let previous: [String: Entry]
    private var current: [String: Entry] = [:]
    private let spill: SpillFile?

    /// - Parameter folder: where this run's bodies are spilled (nothing is left there); without one
    ///   they are kept in memory.
    package init(previous: [String: Entry] = [:], spillIn folder: URL? = nil) throws {
        self.previous = previous
        spill = try folder.map { try SpillFile(in: $0) }
    }

    func etag(for key: String) -> String? { previous[key]?.etag }

    /// The body of a 304: the previous answer, now also this run's.
    func reuse(_ key: String) -> Data? {
        guard let entry = previous[key], let data = try? entry.body.data() else { return nil }
        lock.withLock { current[key] = entry }
        return data
    }

    func store(_ key: String, etag: String, body: Data) {
        guard UntrustedText.isValidUTF8(body) else { return }
        let kept: Body
        if let spill, let range = try? spill.append(body) {
            kept = .spilled(spill, range)
        } else {
            kept = .text(String(decoding: body, as: UTF8.self))
        }
        lock.withLock { current[key] = Entry(etag: etag, body: kept) }
    }

    package var entries: [String: Entry] { lock.withLock { current } }
}
