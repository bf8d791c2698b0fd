/// A failure of one step of the pipeline, with the file or request it concerns.
public struct SnapshotError: Error, Sendable, CustomStringConvertible {
    public enum Reason: Sendable {
        case api(ReaderAPIError)
        case templatesMissing
        case templateSyntax(file: String, line: Int, column: Int, detail: String)
        case templateNotFound(name: String)
        case unsupportedArchive(version: Int)
        case unreadableArchive(detail: String)
        case notWritable(detail: String)
    }

    public var reason: Reason
    /// The file, folder or request the error is about.
    public var path: String

    public init(_ reason: Reason, path: String) {
        self.reason = reason
        self.path = path
    }

    public var description: String {
        switch reason {
        case .api(let error):
            return error.description
        case .templatesMissing:
            return "\(path): no templates there (expected html/*.mustache and markdown/*.mustache)"
        case .templateSyntax(let file, let line, let column, let detail):
            return "\(path)/\(file):\(line):\(column): template error: \(detail)"
        case .templateNotFound(let name):
            return "\(path): the template \(name).mustache is missing"
        case .unsupportedArchive(let version):
            return "\(path): library.json has schema_version \(version), newer than this tool reads (\(Library.currentSchemaVersion))"
        case .unreadableArchive(let detail):
            return "\(path): not a readable library.json: \(detail)"
        case .notWritable(let detail):
            return "\(path): cannot write the snapshot: \(detail)"
        }
    }
}
