import Foundation
import Support

/// What the last quiet night found, kept so that the next one can be known from its two answers.
///
/// A quiet night asks for the shelves and the list of books, both answer 304, nothing else is
/// asked for, and the library comes out as the last snapshot has it. Its crawl read nothing but
/// the answers and the state, so a night with the same two answers, the same state and the same
/// options would find the same library and say the same lines: until something that failed
/// before is due to be asked for again. That night takes the last snapshot's library as it is,
/// without reading the list or making a book (at 1,000 books, a fifth of a second of the run).
/// Any run that writes the state removes this record (`SnapshotState.writeAnswers`).
package struct QuietNight: Codable, Sendable, Equatable {
    /// The ETags the shelves and the list of books answered 304 to.
    package var shelves: String
    package var books: String
    /// What decides the crawl besides the answers and the state: this build, the server and
    /// account, the options that shape the library (`Exporter.quietOptions`).
    package var options: String
    /// When the first failure waiting its turn is due (seconds since 1970): from then on the
    /// crawl would ask for it. Nil: nothing waits.
    package var until: Int?
    /// What the crawl said, at the info level and above, in order.
    package var lines: [Line]
    /// The covers the summary counts: taken from the last snapshot, and failed (waiting their turn).
    package var coversReused: Int
    package var coversFailed: Int

    package struct Line: Codable, Sendable, Equatable {
        /// A `Logger.Level`'s name: "info", "warning".
        package var level: String
        package var text: String

        package init(level: String, text: String) {
            self.level = level
            self.text = text
        }
    }

    package init(shelves: String, books: String, options: String, until: Int?, lines: [Line], coversReused: Int, coversFailed: Int) {
        self.shelves = shelves
        self.books = books
        self.options = options
        self.until = until
        self.lines = lines
        self.coversReused = coversReused
        self.coversFailed = coversFailed
    }

    package static let fileName = "quiet-night.json"

    /// Whether tonight's options are the ones this night was found with, and nothing waiting is
    /// due yet at `now` (the two answers are the crawl's to compare).
    package func stands(options: String, now: Int) -> Bool {
        options == self.options && until.map { now < $0 } ?? true
    }

    /// The record in the state folder; nil when there is none or it cannot be read.
    package static func read(from folder: URL) -> QuietNight? {
        // Without a record the night crawls as any other: one that cannot be read costs that crawl
        // and nothing more.
        guard let data = try? Data(contentsOf: folder.appendingPathComponent(fileName)) else { return nil }
        return try? JSONDecoder().decode(QuietNight.self, from: data)
    }

    package func write(to folder: URL) throws {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            try SnapshotState.writePrivately(try encoder.encode(self), to: folder.appendingPathComponent(Self.fileName))
        } catch {
            throw SnapshotError(.notWritable(detail: SnapshotWriter.describe(error)), path: folder.path)
        }
    }

    package static func remove(from folder: URL) throws {
        do {
            try FileManager.default.removeItem(at: folder.appendingPathComponent(fileName))
        } catch CocoaError.fileNoSuchFile {
            // None was kept.
        }
    }
}
