import Foundation
import NIOConcurrencyHelpers

/// The staging folders this process has on disk, so that a run stopped by a signal can remove
/// them before it exits. Creating one, swapping one in, discarding one and the signal's clearing
/// all take the same lock: a signal that comes during a swap waits until the swap is done.
final class StagingFolders: Sendable {
    static let shared = StagingFolders()

    /// Each staging folder, with the output it is to replace.
    private let outputs = NIOLockedValueBox<[URL: URL]>([:])

    /// Makes the staging folder and records it, in one step under the lock: a signal either
    /// finds it recorded or comes before it exists.
    func create(_ staging: URL, for output: URL) throws {
        try outputs.withLockedValue { outputs in
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
            outputs[staging] = output
        }
    }

    func whileLocked<T>(_ body: () throws -> T) rethrows -> T {
        try outputs.withLockedValue { _ in try body() }
    }

    /// Forgets a staging folder that was swapped in or discarded; the caller holds the lock.
    func forgetLocked(_ staging: URL) {
        outputs.unsafe.withValueAssumingLockIsAcquired { $0[staging] = nil }
    }

    /// Removes every recorded staging folder and never lets the lock go: the process is ending,
    /// and a swap that would start after this waits for the exit instead.
    func discardAllAndHold() {
        outputs.unsafe.lock()
        let outputs = self.outputs.unsafe.withValueAssumingLockIsAcquired { outputs in
            defer { outputs = [:] }
            return outputs
        }
        var blockers: [URL] = []
        for (staging, output) in outputs {
            SnapshotSwap.putHistoryBack(from: staging, into: output)
            // A history that could not be moved back stays for the next run's `recover`.
            guard !FileManager.default.fileExists(atPath: staging.appendingPathComponent(SnapshotSwap.carried).path) else { continue }
            // The crawl and the render may still be writing into the folder, and would make its
            // subfolders again: it is moved aside and an empty file takes its name until it is gone.
            let aside = staging.deletingLastPathComponent()
                .appendingPathComponent(staging.lastPathComponent + ".interrupted")
            guard rename(staging.path, aside.path) == 0 else {
                SnapshotSwap.removeFolder(staging)
                continue
            }
            let blocker = open(staging.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if blocker >= 0 {
                close(blocker)
                blockers.append(staging)
            }
            SnapshotSwap.removeFolder(aside)
        }
        for blocker in blockers { unlink(blocker.path) }
    }
}
