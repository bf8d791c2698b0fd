import Foundation
@testable import SnapshotStore
import Synchronization
import TestSupport
import Testing

/// The staging folders a run has on disk, removed when a signal stops it. Each test has a registry
/// of its own: clearing one holds its lock for good, as the ending process does, and the shared one
/// is the swaps' of other tests.
@Suite struct StagingFoldersTests {
    let folder: TemporaryFolder
    let output: URL

    /// Every registry made here, kept until the tests end: one cleared holds its lock for good, and
    /// a lock let go of while held is a crash (pthread will not destroy a mutex that is locked).
    static let kept = Mutex<[StagingFolders]>([])

    /// A registry of this test's own.
    func registry() -> StagingFolders {
        let folders = StagingFolders()
        Self.kept.withLock { $0.append(folders) }
        return folders
    }

    init() throws {
        folder = try TemporaryFolder()
        output = folder.path("library")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        try Data("last night".utf8).write(to: output.appendingPathComponent("index.html"))
    }

    func staging(_ name: String) -> URL { folder.path(".library.staging-\(name)") }

    /// What is in the folder that holds the output, but the output.
    func beside() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0 != "library" }.sorted()
    }

    @Test func aRecordedStagingFolderIsRemovedWhenTheRunIsStoppedAndNothingElseIs() throws {
        defer { folder.remove() }
        let folders = registry()
        try folders.create(staging("1a2b3c4d"), for: output)
        #expect(FileManager.default.fileExists(atPath: staging("1a2b3c4d").path))
        try Data("tonight, unfinished".utf8).write(to: staging("1a2b3c4d").appendingPathComponent("index.html"))
        try FileManager.default.createDirectory(at: staging("1a2b3c4d").appendingPathComponent("books/deep"), withIntermediateDirectories: true)
        // Another process's staging folder, which this one did not make.
        try FileManager.default.createDirectory(at: staging("otherrun"), withIntermediateDirectories: true)

        folders.discardAllAndHold()
        // Gone, and nothing left of the way it went (the folder set aside, the file that held its name).
        let left = try beside()
        #expect(left == [".library.staging-otherrun"], "\(left)")
        #expect(try String(contentsOf: output.appendingPathComponent("index.html"), encoding: .utf8) == "last night")
    }

    @Test func aStagingFolderThatIsThereAlreadyIsNotRecorded() throws {
        defer { folder.remove() }
        let folders = registry()
        try FileManager.default.createDirectory(at: staging("1a2b3c4d"), withIntermediateDirectories: true)
        #expect(throws: (any Error).self) { try folders.create(staging("1a2b3c4d"), for: output) }
        folders.discardAllAndHold()
        let left = try beside()
        #expect(left == [".library.staging-1a2b3c4d"], "\(left)")
    }

    @Test func aStagingFolderSwappedInOrDiscardedIsForgotten() throws {
        defer { folder.remove() }
        let folders = registry()
        // One value for each, as a swap keeps its own (a URL made while its folder is there ends in "/").
        let swapped = staging("swapped"), running = staging("running")
        try folders.create(swapped, for: output)
        try folders.create(running, for: output)
        // As a swap does: under the lock, the folder renamed into place, then forgotten. A folder
        // made again at its name since is not this run's to remove.
        try folders.whileLocked {
            try FileManager.default.moveItem(at: swapped, to: folder.path("swapped-in"))
            try FileManager.default.createDirectory(at: swapped, withIntermediateDirectories: true)
            folders.forgetLocked(swapped)
        }
        folders.discardAllAndHold()
        let left = try beside()
        #expect(left == [".library.staging-swapped", "swapped-in"], "\(left)")
    }

    @Test func aHistoryInAStagingFolderGoesBackIntoItsOutputFirst() throws {
        defer { folder.remove() }
        let folders = registry()
        try folders.create(staging("carrying"), for: output)
        let history = staging("carrying").appendingPathComponent(".git")
        try FileManager.default.createDirectory(at: history.appendingPathComponent("objects"), withIntermediateDirectories: true)
        try Data("ref: refs/heads/main\n".utf8).write(to: history.appendingPathComponent("HEAD"))
        folders.discardAllAndHold()
        #expect(try String(contentsOf: output.appendingPathComponent(".git/HEAD"), encoding: .utf8) == "ref: refs/heads/main\n")
        let left = try beside()
        #expect(left.isEmpty, "\(left)")
    }

    @Test func aHistoryThatCannotGoBackKeepsItsStagingFolder() throws {
        defer { folder.remove() }
        let folders = registry()
        // The output has a history of its own: the staging folder's cannot take its place.
        try FileManager.default.createDirectory(at: output.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try folders.create(staging("carrying"), for: output)
        let history = staging("carrying").appendingPathComponent(".git")
        try FileManager.default.createDirectory(at: history, withIntermediateDirectories: true)
        try Data("ref: refs/heads/main\n".utf8).write(to: history.appendingPathComponent("HEAD"))
        folders.discardAllAndHold()
        // Left for the next run's recovery, never deleted with the folder.
        #expect(FileManager.default.fileExists(atPath: history.appendingPathComponent("HEAD").path))
        let left = try beside()
        #expect(left == [".library.staging-carrying"], "\(left)")
    }
}
