/// A failure of the history step, or of reading the history back.
package struct HistoryError: Error, Sendable, CustomStringConvertible {
    package enum Reason: Sendable {
        /// git could not be started.
        case gitMissing(detail: String)
        case gitFailed(command: String, status: Int32, said: String)
        /// No history kept in that folder.
        case noHistory
        /// The history was kept without library.json (`--format` without json).
        case noLibrary
        case bookNotFound(id: Int)
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
            return "\(path): --history needs git, which could not be started (\(detail)); install git (apt-get install git)"
        case .gitFailed(let command, let status, let said):
            return "\(path): \(command) failed (exit \(status))\(said.isEmpty ? "" : ": \(said)")"
        case .noHistory:
            return "\(path): no history here; an export with --history keeps one"
        case .noLibrary:
            return "\(path): this history holds no library.json (it was kept without the json format), so it cannot tell one book's story"
        case .bookNotFound(let id):
            return "\(path): book \(id) is in no night of this history"
        case .badDate(let text):
            return "--since \(text): not a date (use YYYY-MM-DD)"
        }
    }
}
