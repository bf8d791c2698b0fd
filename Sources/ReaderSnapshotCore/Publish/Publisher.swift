import Foundation

/// Builds a snapshot in a staging folder beside the output, then puts it in place in one step:
/// a failed run leaves the previous snapshot as it was.
public struct Publisher: Sendable {
    /// Marks a folder as a snapshot this tool wrote, and so one it may replace.
    public static let markerName = ".reader-snapshot"

    public let output: URL
    public let staging: URL

    public init(output: URL) throws {
        self.output = output.standardizedFileURL
        let parent = self.output.deletingLastPathComponent()
        let name = self.output.lastPathComponent
        staging = parent.appendingPathComponent(".\(name).staging-\(UUID().uuidString.prefix(8))")
        try Self.checkReplaceable(self.output)
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
            try Data("reader-snapshot\n".utf8).write(to: staging.appendingPathComponent(Self.markerName))
        } catch {
            throw SnapshotError(.notWritable(detail: error.localizedDescription), path: parent.path)
        }
    }

    public var writer: SnapshotWriter { SnapshotWriter(root: staging) }

    /// Refuses to replace a folder that holds anything but an earlier snapshot.
    static func checkReplaceable(_ output: URL) throws {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: output.path, isDirectory: &isDirectory) else { return }
        guard isDirectory.boolValue else {
            throw SnapshotError(.notWritable(detail: "it is a file, not a folder"), path: output.path)
        }
        let contents = (try? manager.contentsOfDirectory(atPath: output.path)) ?? []
        let visible = contents.filter { $0 != ".DS_Store" }
        if !visible.isEmpty && !contents.contains(markerName) {
            throw SnapshotError(.notWritable(detail: "the folder is not empty and holds no earlier snapshot; choose an empty or new folder"), path: output.path)
        }
    }

    /// Swaps the staging folder into place.
    public func publish() throws {
        let manager = FileManager.default
        let previous = staging.deletingLastPathComponent()
            .appendingPathComponent(".\(output.lastPathComponent).previous-\(UUID().uuidString.prefix(8))")
        do {
            if manager.fileExists(atPath: output.path) {
                try manager.moveItem(at: output, to: previous)
            }
            do {
                try manager.moveItem(at: staging, to: output)
            } catch {
                if manager.fileExists(atPath: previous.path) { try? manager.moveItem(at: previous, to: output) }
                throw error
            }
            try? manager.removeItem(at: previous)
        } catch {
            throw SnapshotError(.notWritable(detail: error.localizedDescription), path: output.path)
        }
    }

    /// Removes the staging folder after a failure.
    public func discard() {
        try? FileManager.default.removeItem(at: staging)
    }
}
