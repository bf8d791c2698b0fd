import Foundation
@testable import SnapshotStore
import TestSupport
import Testing

/// The swap without the tool around it: what a run cut anywhere in it leaves, and what the next
/// run makes of that. The cuts are laid out by hand, as the two renames of the fallback (where the
/// file system has no atomic exchange) leave them.
@Suite struct SnapshotSwapTests {
    let folder: TemporaryFolder
    let output: URL

    init() throws {
        folder = try TemporaryFolder()
        output = folder.path("library")
    }

    func snapshot(_ at: URL, _ text: String) throws {
        try FileManager.default.createDirectory(at: at, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: at.appendingPathComponent("index.html"))
    }

    func text(_ at: URL) -> String? {
        (try? Data(contentsOf: at.appendingPathComponent("index.html"))).map { String(decoding: $0, as: UTF8.self) }
    }

    /// What is beside the output, of its own name (its staging folders, a snapshot set aside).
    func beside() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.url.path)) ?? []).filter { $0.hasPrefix(".library.") }.sorted()
    }

    @Test func cutBetweenTheTwoRenamesTheLastSnapshotIsPutBack() throws {
        defer { folder.remove() }
        // The first rename done (the last snapshot set aside), the second not: no output at all.
        try snapshot(folder.path(".library.previous-1a2b3c4d"), "last night")
        try snapshot(folder.path(".library.staging-5e6f7a8b"), "tonight, unfinished")
        try SnapshotSwap.recover(output: output)
        #expect(text(output) == "last night")
        #expect(beside().isEmpty, "\(beside())")
    }

    @Test func cutAfterTheSecondRenameTheNewSnapshotStaysAndTheOldGoes() throws {
        defer { folder.remove() }
        try snapshot(output, "tonight")
        try snapshot(folder.path(".library.previous-1a2b3c4d"), "last night")
        try SnapshotSwap.recover(output: output)
        #expect(text(output) == "tonight")
        #expect(beside().isEmpty, "\(beside())")
    }

    @Test func aHistoryOnItsWayIntoTheNewSnapshotGoesBackIntoTheOutput() throws {
        defer { folder.remove() }
        // Older layouts kept `--history` in the output, carried into the staging folder for the swap.
        try snapshot(output, "last night")
        let staging = folder.path(".library.staging-5e6f7a8b")
        try snapshot(staging, "tonight, unfinished")
        try FileManager.default.createDirectory(at: staging.appendingPathComponent(".git/objects"), withIntermediateDirectories: true)
        try Data("ref: refs/heads/main\n".utf8).write(to: staging.appendingPathComponent(".git/HEAD"))
        try SnapshotSwap.recover(output: output)
        #expect(try String(contentsOf: output.appendingPathComponent(".git/HEAD"), encoding: .utf8) == "ref: refs/heads/main\n")
        #expect(beside().isEmpty, "\(beside())")
    }

    @Test func aSwapPutsTheNewSnapshotInPlaceWithTheOldOnesAccessAndDiscardLeavesTheOld() throws {
        defer { folder.remove() }
        try snapshot(output, "last night")
        // Marked, as a run marks what it writes: a swap may replace it.
        try SnapshotMark.mark(output, swappingIn: output)
        let first = try SnapshotSwap(output: output)
        try Data("tonight".utf8).write(to: first.staging.appendingPathComponent("index.html"))
        // A discarded night leaves the last snapshot, and nothing beside it.
        first.discard()
        first.finish()
        #expect(text(output) == "last night")
        #expect(chmod(output.path, 0o750) == 0)
        let second = try SnapshotSwap(output: output)
        try Data("tonight".utf8).write(to: second.staging.appendingPathComponent("index.html"))
        try second.swapIn()
        second.finish()
        #expect(text(output) == "tonight")
        #expect(try FileManager.default.attributesOfItem(atPath: output.path)[.posixPermissions] as? Int == 0o750)
        #expect(beside().filter { !$0.hasSuffix(".reader-snapshot") }.isEmpty, "\(beside())")
    }

    @Test func aLastSnapshotThatCannotBePutBackStaysAsideAndTheRunStops() throws {
        defer { folder.remove() }
        // Cut between the two renames, and the output's name since taken by a link to nowhere: the
        // snapshot set aside is the only copy of the last night, and must not go with the leftovers.
        let setAside = folder.path(".library.previous-1a2b3c4d")
        try snapshot(setAside, "last night")
        try FileManager.default.createSymbolicLink(atPath: output.path, withDestinationPath: folder.path("gone").path)
        let error = #expect(throws: (any Error).self) { try SnapshotSwap.recover(output: output) }
        #expect(error.map { "\($0)" }?.contains("could not be put back") == true, "\(String(describing: error))")
        #expect(text(setAside) == "last night")
    }

    /// Only a user other than root sees it: root lists every folder.
    @Test(.enabled(if: getuid() != 0, "root may list any folder"))
    func aFolderWhoseNamesCannotBeListedIsNotReplaced() throws {
        defer {
            chmod(output.path, 0o755)
            folder.remove()
        }
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: output.appendingPathComponent("notes.txt"))
        #expect(chmod(output.path, 0o300) == 0)
        #expect(throws: (any Error).self) { try SnapshotSwap.checkReplaceable(output) }
        #expect(throws: (any Error).self) { try SnapshotSwap(output: output) }
        #expect(chmod(output.path, 0o755) == 0)
        #expect(text(output) == nil && FileManager.default.fileExists(atPath: output.appendingPathComponent("notes.txt").path))
    }
}
