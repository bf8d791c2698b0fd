/// A failure of one step of the pipeline, with the file or request it concerns.
package struct SnapshotError: Error, Sendable, CustomStringConvertible {
    package enum Reason: Sendable {
        case templatesMissing
        case templateSyntax(file: String, line: Int, column: Int, detail: String)
        case templateNotFound(name: String)
        /// A library.json newer than this tool reads (`supported`).
        case unsupportedArchive(version: Int, supported: Int)
        case unreadableArchive(detail: String)
        case notWritable(detail: String)
    }

    package var reason: Reason
    /// The file, folder or request the error is about.
    package var path: String

    package init(_ reason: Reason, path: String) {
        self.reason = reason
        self.path = path
    }

    package var description: String {
        switch reason {
        case .templatesMissing:
            return "\(path): no templates there (expected html/*.mustache and markdown/*.mustache)"
        case .templateSyntax(let file, let line, let column, let detail):
            return "\(path)/\(file):\(line):\(column): template error: \(detail)"
        case .templateNotFound(let name):
            return "\(path): the template \(name).mustache is missing"
        case .unsupportedArchive(let version, let supported):
            return "\(path): library.json has schema_version \(version), newer than this tool reads (\(supported))"
        case .unreadableArchive(let detail):
            return "\(path): not a readable library.json: \(detail)"
        case .notWritable(let detail):
            return "\(path): cannot write the snapshot: \(detail)"
        }
    }
}
