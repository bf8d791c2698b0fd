/// A failure of the history step, or of reading the history back.
package struct HistoryError: Error, Sendable, CustomStringConvertible {
    package enum Reason: Sendable {
        /// git could not be run, or its output read.
        case gitMissing(detail: String)
        case gitFailed(command: String, status: Int32, said: String)
        /// The night's commit, after the snapshot was published.
        case commitFailed(detail: String)
        /// A repository reader-snapshot did not make.
        case notOurs
        /// No history kept in that folder.
        case noHistory
        /// The history was kept without library.json (`--format` without json).
        case noLibrary
        case bookNotFound(id: Int)
        /// `history --book` on a snapshot whose timeline tells nothing of that book.
        case bookNotInTimeline(id: Int)
        /// The snapshot's `timeline.json` is there, and cannot be read.
        case unreadableTimeline(detail: String)
        case badDate(String)
    }

    package var reason: Reason
    /// The repository or snapshot folder concerned.
    package var path: String

    package init(_ reason: Reason, path: String) {
        self.reason = reason
        self.path = path
    }

    package var description: String {
        switch reason {
        case .gitMissing(let detail):
            return "\(path): git could not be run (\(detail)); --history needs git on the PATH (apt-get install git)"
        case .gitFailed(let command, let status, let said):
            return "\(path): \(command) failed (exit \(status))\(said.isEmpty ? "" : ": \(said)")"
        case .commitFailed(let detail):
            return "the history's commit failed: \(detail)"
        case .notOurs:
            return "\(path): a git repository that reader-snapshot did not make; --history keeps one of its own there. Move yours away, or export without --history"
        case .noHistory:
            return "\(path): no history here; an export with --history keeps one"
        case .noLibrary:
            return "\(path): this history holds no library.json (it was kept without the json format), so it cannot tell one book's story"
        case .bookNotFound(let id):
            return "book \(id) is in no night of the history \(path): no snapshot it kept held a book of that id (a book's id begins its page's name: books/ID-title.html)"
        case .bookNotInTimeline(let id):
            return "book \(id) is in no night of the timeline \(path): no night it kept told of a book of that id (a book's id begins its page's name: books/ID-title.html)"
        case .unreadableTimeline(let detail):
            return detail
        case .badDate(let text):
            return "--since \(text): not a date (use YYYY-MM-DD)"
        }
    }
}
