/// A failure of one step of the pipeline, with the file or request it concerns.
package struct SnapshotError: Error, Sendable, CustomStringConvertible {
    package enum Reason: Sendable {
        case templatesMissing
        case templateSyntax(file: String, line: Int, column: Int, detail: String)
        case templateNotFound(name: String)
        /// `--language` names a language that has no strings file beside the templates (`path`).
        case languageMissing(tag: String, available: [String])
        /// A strings file that is not a list of `"key" = "value";` lines.
        case stringsSyntax(file: String, detail: String)
        /// A library.json newer than this tool reads (`supported`).
        case unsupportedArchive(version: Int, supported: Int)
        case unreadableArchive(detail: String)
        case notWritable(detail: String)
        /// A folder the run must write in refuses it (its permissions, a read-only disk): `path`
        /// is that folder, `detail` the system's word.
        case folderNotWritable(purpose: FolderPurpose, detail: String)
    }

    /// What a run writes in a folder, said when the folder cannot be written: the user is to
    /// know which folder needs which permission, and why that one, not only the output.
    package enum FolderPurpose: Sendable {
        /// The folder that holds the output: the new snapshot is built in it, then swapped in.
        case besideOutput
        /// The nearest folder above `folder` that exists: the missing ones are made in it.
        case making(folder: String)
        /// With --keep: the output, which holds the dated snapshots and the `latest` link.
        case datedSnapshots
        /// --cache-dir: the state of incremental runs.
        case state
        /// With `--keep`, the folder that holds the dated snapshots' folder: their private state is beside it.
        case privateState
        /// --markdown-into: the Markdown is kept in `reader`, the Reader/ folder in it.
        case markdown(reader: String)
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
        case .languageMissing(let tag, let available):
            return "\(path): no strings for the language '\(tag)' (expected strings/\(tag).strings); languages there: \(available.joined(separator: ", "))"
        case .stringsSyntax(let file, let detail):
            return "\(path)/\(file): not a strings file: \(detail) (each line is \"key\" = \"value\";)"
        case .unsupportedArchive(let version, let supported):
            return "\(path): written by a newer reader-snapshot (schema_version \(version); this one reads \(supported) and older): update reader-snapshot to read it"
        case .unreadableArchive(let detail):
            return "\(path): not a readable library.json: \(detail)"
        case .notWritable(let detail):
            return "\(path): cannot write the snapshot: \(detail)"
        case .folderNotWritable(let purpose, let detail):
            let why: String
            switch purpose {
            case .besideOutput: why = "the new snapshot is built beside the output, in \(path), and swapped into place; the private state is kept there too"
            case .making(let folder): why = "the missing folders down to \(folder) are made in it"
            case .datedSnapshots: why = "with --keep, the dated snapshots and the latest link are written in it"
            case .state: why = "--cache-dir keeps the state of incremental runs in it"
            case .privateState: why = "the private state of the dated snapshots is kept beside them, in it"
            case .markdown(let reader): return "cannot keep the Markdown: \(path) is not writable (--markdown-into keeps it in \(reader)): \(detail)"
            }
            return "cannot write the snapshot: \(path) is not writable (\(why)): \(detail)"
        }
    }
}
