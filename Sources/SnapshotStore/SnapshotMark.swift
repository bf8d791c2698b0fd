import Foundation

/// What tells a folder is a snapshot this tool wrote, and so one a run may replace and `publish`
/// may upload, kept beside it as the private state is (`PARENT/.DIR.reader-snapshot/`), never in
/// it: the folder a user shares holds nothing hidden of the tool's.
///
/// A path alone would be too little: a snapshot folder the user deleted and made again for files
/// of their own must not be taken for the snapshot that was there. So the mark names the folder
/// by its device and inode, and by the names at its top, and a folder is the marked one only if it
/// is that folder (an inode may be given to a new folder once the old one is gone) and still holds
/// one of those names. It names both the snapshot in place and the one being swapped in (the
/// staging folder, which the swap renames into place, inode and all), so that a run killed on
/// either side of the swap leaves the folder in place marked.
package enum SnapshotMark {
    /// The mark's file, in the folder beside the snapshot.
    static let file = "snapshot-folders.json"
    /// What snapshots written before the mark moved out held inside them: a folder of this name
    /// marked them, and still does until they are replaced.
    static let folderInside = SnapshotState.folderName

    private struct Stored: Codable {
        /// "device inode" of each folder marked.
        var folders: [String]
        /// The names at the top of the snapshot swapped in, hidden ones aside.
        var names: [String]
    }

    static func file(for output: URL) -> URL {
        SnapshotState.beside(output).appendingPathComponent(file)
    }

    /// Whether `folder` is a snapshot this tool wrote: marked beside it, or by the folder older
    /// versions kept inside it.
    package static func marks(_ folder: URL) -> Bool {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.appendingPathComponent(folderInside).path, isDirectory: &isDirectory), isDirectory.boolValue {
            return true
        }
        // A mark that cannot be read marks nothing: the folder is then refused, never replaced.
        guard let identity = identity(of: folder), let data = try? Data(contentsOf: file(for: folder)),
              let stored = try? JSONDecoder().decode(Stored.self, from: data), stored.folders.contains(identity) else { return false }
        return !Set(stored.names).isDisjoint(with: names(in: folder))
    }

    /// Marks `output` as the snapshot it is now and the one `staging` is about to become.
    static func mark(_ output: URL, swappingIn staging: URL) throws {
        var folders: [String] = []
        for identity in [output, staging].compactMap(identity(of:)) where !folders.contains(identity) { folders.append(identity) }
        let file = file(for: output)
        try SnapshotState.makePrivateFolder(file.deletingLastPathComponent())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try SnapshotState.writePrivately(try encoder.encode(Stored(folders: folders, names: names(in: staging).sorted())), to: file)
    }

    /// A snapshot an older version marked with a folder inside it is marked beside it instead, and
    /// the folder inside (empty once its state moved out: `SnapshotState.moveOutOfSnapshot`) goes:
    /// a night that leaves the snapshot as it was leaves nothing of the tool's in it either.
    package static func moveOut(of output: URL) {
        let inside = output.standardizedFileURL.appendingPathComponent(folderInside)
        // Not marked beside, the snapshot keeps the folder inside, which still marks it, and the
        // next run tries again.
        guard FileManager.default.fileExists(atPath: inside.path), (try? mark(output, swappingIn: output)) != nil else { return }
        // rmdir: only an empty folder goes; one that still holds a state is left as it is.
        rmdir(inside.path)
    }

    /// "device inode" of a folder, without following a link; nil when there is none.
    package static func identity(of folder: URL) -> String? {
        var info = stat()
        guard lstat(folder.standardizedFileURL.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
        return "\(info.st_dev) \(info.st_ino)"
    }

    static func names(in folder: URL) -> Set<String> {
        // A folder whose names cannot be listed shares none with a mark: it is not taken for the snapshot.
        return Set(((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") })
    }
}
