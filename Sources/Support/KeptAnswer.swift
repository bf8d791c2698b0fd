import Foundation

/// A JSON answer of the last run's kept to be asked for again: the server's ETag, and where its
/// body is. ReaderAPI's response cache sends the ETag back and reuses the body on a 304; the
/// snapshot's state keeps them between runs.
package struct KeptAnswer: Sendable, Equatable {
    /// The ETag exactly as the server sent it (weak ones keep their W/).
    package var etag: String
    package var body: Body

    package init(etag: String, body: Body) {
        self.etag = etag
        self.body = body
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
}
