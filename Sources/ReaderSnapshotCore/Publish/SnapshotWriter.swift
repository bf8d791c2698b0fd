import Foundation

/// Writes a snapshot's files under one folder, and nowhere else: every path is relative, made of
/// names this tool chose, and checked before it is written.
public struct SnapshotWriter: Sendable {
    public let root: URL

    public init(root: URL) {
        self.root = root.standardizedFileURL
    }

    public func url(for relativePath: String) throws -> URL {
        let parts = relativePath.split(separator: "/", omittingEmptySubsequences: false)
        guard !relativePath.hasPrefix("/"), !parts.isEmpty,
              parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("\0") })
        else {
            throw SnapshotError(.notWritable(detail: "refusing to write outside the snapshot: \(relativePath)"), path: root.path)
        }
        return root.appendingPathComponent(relativePath)
    }

    public func write(_ data: Data, to relativePath: String) throws {
        let destination = try url(for: relativePath)
        do {
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: destination)
        } catch {
            throw SnapshotError(.notWritable(detail: error.localizedDescription), path: destination.path)
        }
    }

    public func write(_ text: String, to relativePath: String) throws {
        try write(Data(text.utf8), to: relativePath)
    }

    public func copy(_ source: URL, to relativePath: String) throws {
        let destination = try url(for: relativePath)
        do {
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            if FileManager.default.fileExists(atPath: destination.path) {
                try FileManager.default.removeItem(at: destination)
            }
            try FileManager.default.copyItem(at: source, to: destination)
        } catch {
            throw SnapshotError(.notWritable(detail: error.localizedDescription), path: destination.path)
        }
    }
}
