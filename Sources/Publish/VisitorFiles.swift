import Foundation
import PrivateCatalog
import SnapshotStore

/// A file of the snapshot that visitors are sent, as found on disk.
package struct LocalFile: Sendable, Equatable {
    /// The path below the snapshot, with `/` between folders.
    package var path: String
    package var size: Int
    /// The inode and the modification time in nanoseconds: a file whose three facts are the ones
    /// recorded at the last publish is the same file (a nightly snapshot links unchanged files), so
    /// its checksum is not taken again.
    package var inode: UInt64
    package var modified: Int64

    package init(path: String, size: Int, inode: UInt64, modified: Int64) {
        self.path = path
        self.size = size
        self.inode = inode
        self.modified = modified
    }
}

/// What of a snapshot folder is for visitors: every regular file whose path has no hidden part.
/// The private state lives beside the snapshot; hidden parts inside it (the `.reader-snapshot`
/// folder older versions kept, a `.git` of the user's) are never uploaded, and links are not followed.
package enum VisitorFiles {
    /// The snapshot to publish: the place's folder itself, or with `--keep`, the one `latest`
    /// points at. A folder that is neither is refused: publishing must not upload a folder the
    /// tool did not write.
    package static func snapshot(in place: SnapshotPlace) throws -> URL {
        let folder = place.root.standardizedFileURL
        if let dated = place.dated {
            // The layout is the tool's (`snapshots/`, `latest`): what `latest` points at is a snapshot.
            guard let newest = dated.newest, DatedSnapshots.holdsDatedSnapshots(folder) else {
                throw PublishError(.noLatestSnapshot, path: folder.path)
            }
            return newest.resolvingSymlinksInPath()
        }
        guard SnapshotMark.marks(folder) else { throw PublishError(.notASnapshot, path: folder.path) }
        return folder
    }

    /// What of `snapshot` is sent: its catalog for friends when it has one (written with
    /// `--share-password-file`, kept beside the snapshot in `place`), whose sealed files then go
    /// instead of the snapshot's own. One without its lock, or sealed from another snapshot, is
    /// refused: the plain snapshot must not go in its place.
    package static func published(from snapshot: URL, place: SnapshotPlace) throws -> URL {
        switch PrivateCatalogFolder.find(for: snapshot, root: place.root) {
        case .none: return snapshot
        case .sealed(let folder): return folder
        case .incomplete(let folder): throw PublishError(.privateCatalogIncomplete, path: folder.path)
        case .ofAnotherSnapshot(let folder): throw PublishError(.privateCatalogOfAnotherSnapshot, path: folder.path)
        }
    }

    /// Every visitor file under `root`, sorted by path.
    package static func list(_ root: URL) throws -> [LocalFile] {
        var files: [LocalFile] = []
        try walk(root.path, prefix: "", into: &files)
        return files.sorted { $0.path < $1.path }
    }

    /// Whether a path below the snapshot has a hidden part: never uploaded, never deleted.
    package static func isHidden(_ path: String) -> Bool {
        path.split(separator: "/").contains { $0.hasPrefix(".") }
    }

    private static func walk(_ folder: String, prefix: String, into files: inout [LocalFile]) throws {
        guard let directory = opendir(folder) else {
            throw PublishError(.unreadable(detail: String(cString: strerror(errno))), path: folder)
        }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard !name.hasPrefix(".") else { continue }
            let full = folder + "/" + name
            var facts = stat()
            guard lstat(full, &facts) == 0 else {
                throw PublishError(.unreadable(detail: String(cString: strerror(errno))), path: full)
            }
            let relative = prefix.isEmpty ? name : prefix + "/" + name
            switch facts.st_mode & S_IFMT {
            case S_IFDIR:
                try walk(full, prefix: relative, into: &files)
            case S_IFREG:
                #if os(Linux)
                let time = facts.st_mtim
                #else
                let time = facts.st_mtimespec
                #endif
                files.append(LocalFile(path: relative, size: Int(facts.st_size), inode: UInt64(facts.st_ino),
                                       modified: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)))
            default:
                continue  // Links, sockets, devices: not part of a snapshot.
            }
        }
    }
}
