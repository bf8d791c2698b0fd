import Foundation
import Support

/// Before a run writes anything, each folder it is to write in is tried: one it cannot write in
/// is named, with what the run does there, before the server is asked for anything. Tried, not
/// asked about with access(): that says yes to root for a folder that a read-only disk or an
/// immutable flag still refuses.
package enum WritableFolders {
    /// - Parameters:
    ///   - output: the snapshot's folder (`--output`).
    ///   - keep: whether the output holds dated snapshots (`--keep`), written in it, rather than
    ///     one snapshot built beside it.
    ///   - state: `--cache-dir`.
    ///   - markdown: the folder `--markdown-into` keeps the Markdown in (its Reader/).
    package static func check(output: URL, keep: Bool = false, state: URL? = nil, markdown: URL? = nil) throws {
        let output = output.standardizedFileURL
        if keep {
            try check(output, .datedSnapshots)
            // The private state is kept beside the dated snapshots' folder, unless --cache-dir says where.
            if state == nil { try check(output.deletingLastPathComponent(), .privateState) }
        } else {
            try check(output.deletingLastPathComponent(), .besideOutput)
        }
        if let state { try check(state.standardizedFileURL, .state) }
        if let markdown { try check(markdown.standardizedFileURL, .markdown(reader: markdown.standardizedFileURL.path)) }
    }

    /// Makes and removes a folder in `folder`, or in the nearest folder above it that exists
    /// (where the run would make the missing ones). Only a refusal is reported: anything else
    /// (a file in the way, a full disk) is for the run itself to meet and tell.
    private static func check(_ folder: URL, _ purpose: SnapshotError.FolderPurpose) throws {
        var existing = folder
        while !FileManager.default.fileExists(atPath: existing.path) && existing.path != "/" {
            existing.deleteLastPathComponent()
        }
        let probe = existing.appendingPathComponent(".reader-snapshot-probe-\(UUID().uuidString.prefix(8))")
        if mkdir(probe.path, 0o700) == 0 {
            rmdir(probe.path)
            return
        }
        let failure = errno
        // ENOENT for a folder that is there: a file system that takes no new folders (/proc, /sys).
        guard [EACCES, EPERM, EROFS, ENOENT].contains(failure) else { return }
        let detail = failure == ENOENT ? "no folder can be made in it (a system folder?)" : String(cString: strerror(failure))
        let told: SnapshotError.FolderPurpose
        switch purpose {
        case .markdown: told = purpose // its message names the Reader/ folder, whichever folder refused
        default: told = existing.path == folder.path ? purpose : .making(folder: folder.path)
        }
        throw SnapshotError(.folderNotWritable(purpose: told, detail: detail), path: existing.path)
    }
}
