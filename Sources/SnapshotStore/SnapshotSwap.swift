import CFileSwap
import Foundation
import LibraryArchive
import NIOConcurrencyHelpers
import Support

/// Builds a snapshot in a staging folder beside the output, then swaps it into place in one step:
/// a run that fails, or is killed, leaves the previous snapshot as it was. One run at a time per
/// folder (a lock on the folder that holds the output); the next run clears what a killed one left.
package final class SnapshotSwap: Sendable {
    package let output: URL
    package let staging: URL
    /// The snapshot being replaced, if there is one.
    package let previous: URL?
    /// Whether the output is marked as a snapshot beside it (`SnapshotMark`): not a dated
    /// snapshot's folder, whose place in the `--keep` layout says what it is.
    private let marked: Bool
    /// The folder lock's descriptor, -1 once it is let go (by the swap, a discard, or the end).
    private let lock: NIOLockedValueBox<Int32>

    /// - Parameter previous: the snapshot to link unchanged files from, when it is not the output
    ///   itself (dated snapshots: yesterday's folder).
    /// - Parameter marked: false for a dated snapshot's folder, in a layout `DatedSnapshots.prepare`
    ///   has checked: it is replaced without a mark beside it.
    package init(output: URL, previous: URL? = nil, marked: Bool = true) throws {
        self.output = output.standardizedFileURL
        self.marked = marked
        let parent = self.output.deletingLastPathComponent()
        let name = self.output.lastPathComponent
        staging = parent.appendingPathComponent(".\(name).staging-\(UUID().uuidString.prefix(8))")
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw SnapshotError(.notWritable(detail: SnapshotWriter.describe(error)), path: parent.path)
        }
        // The lock is on the folder that holds the output: no lock file is left behind, and two runs
        // never swap in the same place at once.
        let descriptor = open(parent.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SnapshotError(.notWritable(detail: String(cString: strerror(errno))), path: parent.path)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw SnapshotError(.notWritable(detail: "another reader-snapshot run is writing in \(parent.path)"), path: self.output.path)
        }
        lock = NIOLockedValueBox(descriptor)
        do {
            try Self.recover(output: self.output)
            try Self.checkReplaceable(self.output, marked: marked)
            try StagingFolders.shared.create(staging, for: self.output)
        } catch {
            flock(descriptor, LOCK_UN)
            close(descriptor)
            if let error = error as? SnapshotError { throw error }
            throw SnapshotError(.notWritable(detail: SnapshotWriter.describe(error)), path: parent.path)
        }
        var isDirectory: ObjCBool = false
        let outputExists = FileManager.default.fileExists(atPath: self.output.path, isDirectory: &isDirectory) && isDirectory.boolValue
        self.previous = outputExists ? self.output : previous?.resolvingSymlinksInPath()
    }

    deinit { releaseLock() }

    package var writer: SnapshotWriter { SnapshotWriter(root: staging, previous: previous) }

    /// What the output keeps across swaps: a `.git` in it, which no run rebuilds — a repository of
    /// the user's, or a history an older version kept inside before it moved beside the snapshot.
    static let carried = ".git"

    /// Clears what an interrupted run left beside the output: its staging folder, and a previous
    /// snapshot set aside by a swap that was cut between its two renames (put back first). A
    /// history that was on its way into the new snapshot goes back into the output. A snapshot
    /// set aside that cannot be put back is the last one: it stays where it is, and the run stops.
    static func recover(output: URL) throws {
        let manager = FileManager.default
        let parent = output.deletingLastPathComponent()
        let name = output.lastPathComponent
        // The run holds its lock on this folder, so it can be read: a listing that fails still
        // finds no leftover, and the next run clears them.
        let leftovers = ((try? manager.contentsOfDirectory(atPath: parent.path)) ?? []).filter {
            $0.hasPrefix(".\(name).staging-") || $0.hasPrefix(".\(name).previous-")
        }
        if !manager.fileExists(atPath: output.path),
           let setAside = leftovers.filter({ $0.hasPrefix(".\(name).previous-") }).sorted().last {
            do {
                try manager.moveItem(at: parent.appendingPathComponent(setAside), to: output)
            } catch {
                throw SnapshotError(.notWritable(detail: "the last snapshot, set aside by a run cut short during its swap, could not be put back (\(SnapshotWriter.describe(error))); it is kept in \(parent.appendingPathComponent(setAside).path)"), path: output.path)
            }
        }
        let history = output.appendingPathComponent(carried)
        for leftover in leftovers where !manager.fileExists(atPath: history.path) && manager.fileExists(atPath: output.path) {
            let held = parent.appendingPathComponent(leftover).appendingPathComponent(carried)
            // A history that cannot be moved back keeps its leftover from being removed (below).
            if manager.fileExists(atPath: held.path) { try? manager.moveItem(at: held, to: history) }
        }
        // A leftover that still holds a history (it could not be moved back) is kept: never deleted with it.
        for leftover in leftovers where manager.fileExists(atPath: parent.appendingPathComponent(leftover).path)
            && !manager.fileExists(atPath: parent.appendingPathComponent(leftover).appendingPathComponent(carried).path) {
            removeFolder(parent.appendingPathComponent(leftover))
        }
    }

    /// Refuses to replace a folder that holds anything but an earlier snapshot (marked as one,
    /// unless it is a dated snapshot's).
    static func checkReplaceable(_ output: URL, marked: Bool = true) throws {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: output.path, isDirectory: &isDirectory) else { return }
        guard isDirectory.boolValue else {
            throw SnapshotError(.notWritable(detail: "it is a file, not a folder"), path: output.path)
        }
        // Replacing the top of a --keep layout would delete every dated snapshot in it.
        if DatedSnapshots.holdsDatedSnapshots(output) {
            throw SnapshotError(.notWritable(detail: "it holds dated snapshots (made with --keep); run with --keep N to add to them, or choose another folder"), path: output.path)
        }
        let contents: [String]
        do {
            contents = try manager.contentsOfDirectory(atPath: output.path)
        } catch {
            // A folder whose names cannot be listed may hold anything: it is not taken for an empty one.
            throw SnapshotError(.notWritable(detail: "what it holds cannot be listed (\(SnapshotWriter.describe(error))), so it cannot be told to be empty or an earlier snapshot; make it readable, or choose another folder"), path: output.path)
        }
        let visible = contents.filter { $0 != ".DS_Store" }
        if marked && !visible.isEmpty && !SnapshotMark.marks(output) {
            throw SnapshotError(.notWritable(detail: "the folder is not empty and holds no earlier snapshot; choose an empty or new folder"), path: output.path)
        }
    }

    /// Puts the staging folder in place of the output. The lock is held until the swap is
    /// let go: what follows the swap (the history's commit) is this run's too.
    package func swapIn() throws {
        // Under the lock a signal takes to clear the staging folders: one that comes during the
        // swap waits until it is done, and finds this staging folder gone.
        try StagingFolders.shared.whileLocked {
            // Marked before the swap as the snapshot in place and the one coming: a run killed
            // during the swap leaves whichever is in place marked.
            if marked { try mark { try SnapshotMark.mark(output, swappingIn: staging) } }
            try swap()
            StagingFolders.shared.forgetLocked(staging)
            if marked { try mark { try SnapshotMark.mark(output, swappingIn: output) } }
        }
    }

    private func mark(_ body: () throws -> Void) throws {
        do { try body() } catch {
            throw SnapshotError(.notWritable(detail: SnapshotWriter.describe(error)), path: SnapshotState.beside(output).path)
        }
    }

    private func swap() throws {
        let manager = FileManager.default
        if manager.fileExists(atPath: output.path) {
            try carryHistory()
            Self.copyAccess(from: output, to: staging)
            if reader_exchange_paths(staging.path, output.path) == 0 {
                Self.removeFolder(staging) // now the old snapshot
                return
            }
            // No atomic exchange here: two renames; `recover` repairs a cut between them.
            let setAside = staging.deletingLastPathComponent()
                .appendingPathComponent(".\(output.lastPathComponent).previous-\(UUID().uuidString.prefix(8))")
            do {
                try manager.moveItem(at: output, to: setAside)
                do {
                    try manager.moveItem(at: staging, to: output)
                } catch {
                    // The error thrown is the one that stopped the swap: a snapshot that cannot be
                    // put back now is put back by the next run's `recover`, or the run says why.
                    try? manager.moveItem(at: setAside, to: output)
                    Self.putHistoryBack(from: staging, into: output)
                    throw error
                }
                Self.removeFolder(setAside)
            } catch {
                Self.putHistoryBack(from: staging, into: output)
                throw SnapshotError(.notWritable(detail: SnapshotWriter.describe(error)), path: output.path)
            }
        } else {
            do {
                try manager.moveItem(at: staging, to: output)
            } catch {
                throw SnapshotError(.notWritable(detail: SnapshotWriter.describe(error)), path: output.path)
            }
        }
    }

    /// The output's history, moved into the new snapshot in one rename; a run killed before the
    /// swap leaves it in the staging folder, where `recover` finds it.
    private func carryHistory() throws {
        let history = output.appendingPathComponent(Self.carried)
        guard FileManager.default.fileExists(atPath: history.path) else { return }
        do {
            try FileManager.default.moveItem(at: history, to: staging.appendingPathComponent(Self.carried))
        } catch {
            throw SnapshotError(.notWritable(detail: "could not carry the history (.git) into the new snapshot: \(SnapshotWriter.describe(error))"), path: output.path)
        }
    }

    static func putHistoryBack(from staging: URL, into output: URL) {
        let history = output.appendingPathComponent(carried)
        if !FileManager.default.fileExists(atPath: history.path) {
            // The staging folder may have been given a read-only output's mode for the swap.
            openUp(staging)
            // A history that cannot be moved back keeps the staging folder from being removed
            // (`discard`), and the next run's `recover` moves it.
            try? FileManager.default.moveItem(at: staging.appendingPathComponent(carried), to: history)
        }
    }

    /// The new snapshot takes the old one's permissions, owner and group, so that a folder made
    /// private (700) or read-only (555) stays so after the swap. A new output keeps the umask's.
    static func copyAccess(from output: URL, to staging: URL) {
        var old = stat()
        guard stat(output.path, &old) == 0 else { return }
        // The owner first, as far as this user may give it (EPERM is not an error here): chown
        // clears the set-id bits, which chmod then gives back.
        if chown(staging.path, old.st_uid, old.st_gid) != 0 {
            _ = chown(staging.path, uid_t.max, old.st_gid)
        }
        _ = chmod(staging.path, old.st_mode & 0o7777)
    }

    /// Lets this user change a folder's entries (an old snapshot that was read-only), to remove them.
    static func openUp(_ folder: URL) {
        var info = stat()
        guard lstat(folder.path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_mode & 0o700 != 0o700 else { return }
        _ = chmod(folder.path, (info.st_mode & 0o7777) | 0o700)
    }

    static func removeFolder(_ folder: URL) {
        openUp(folder)
        // Every folder removed here has a leftover's name: one that cannot be removed now, the
        // next run's `recover` removes.
        try? FileManager.default.removeItem(at: folder)
    }

    /// Lets the next run in.
    package func finish() { releaseLock() }

    /// Removes the staging folder after a failure, or when nothing changed; the previous snapshot
    /// is untouched.
    package func discard() {
        StagingFolders.shared.whileLocked {
            Self.discard(staging: staging, output: output)
            StagingFolders.shared.forgetLocked(staging)
        }
    }

    static func discard(staging: URL, output: URL) {
        putHistoryBack(from: staging, into: output)
        // A history that could not be moved back stays in the staging folder for `recover`, not deleted with it.
        guard !FileManager.default.fileExists(atPath: staging.appendingPathComponent(carried).path) else { return }
        removeFolder(staging)
    }

    /// For a run stopped by a signal: removes every staging folder of this process (a history
    /// in one goes back into its output first) and holds the lock until the process ends, so
    /// that no swap starts after it. The last snapshots are left as they were.
    package static func discardAllForExit() {
        StagingFolders.shared.discardAllAndHold()
    }

    private func releaseLock() {
        lock.withLockedValue { lock in
            guard lock >= 0 else { return }
            flock(lock, LOCK_UN)
            close(lock)
            lock = -1
        }
    }
}
