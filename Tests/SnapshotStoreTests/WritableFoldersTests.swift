import Foundation
@testable import SnapshotStore
import Support
import TestSupport
import Testing

/// Each folder a run writes in is tried before the server is asked for anything: one that refuses
/// is named, with what the run does there and the system's word for why.
@Suite struct WritableFoldersTests {
    /// Whether the system has a folder that takes no new folders whoever asks: procfs refuses
    /// mkdir with ENOENT, root or not.
    static let hasProc = FileManager.default.fileExists(atPath: "/proc/self")
    /// Root writes in a folder whatever its mode says: a refusal by permissions cannot be made under root.
    static let notRoot = getuid() != 0

    /// The refusal `check` throws, as its reason's parts.
    static func refusal(_ body: () throws -> Void) -> (purpose: SnapshotError.FolderPurpose, detail: String, path: String, said: String)? {
        do {
            try body()
        } catch let error as SnapshotError {
            if case .folderNotWritable(let purpose, let detail) = error.reason { return (purpose, detail, error.path, error.description) }
            Issue.record("another error: \(error)")
        } catch {
            Issue.record("another error: \(error)")
        }
        return nil
    }

    @Test func writableFoldersPassAndAreLeftAsTheyWere() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.path("state"), withIntermediateDirectories: true)
        try WritableFolders.check(output: folder.path("library"), state: folder.path("state"), markdown: folder.path("vault"))
        try WritableFolders.check(output: folder.path("dated"), keep: true)
        // Folders not there yet are tried where they would be made, and not made.
        try WritableFolders.check(output: folder.path("a/b/c/library"), keep: true, state: folder.path("d/e"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["state"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("state").path).isEmpty)
    }

    @Test(.enabled(if: hasProc)) func aFolderThatTakesNoNewFolderIsNamedWithWhatTheRunDoesThere() throws {
        // The output's folder: the snapshot is built beside the output.
        let beside = try #require(Self.refusal { try WritableFolders.check(output: URL(fileURLWithPath: "/proc/library")) })
        guard case .besideOutput = beside.purpose else { Issue.record("\(beside.purpose)"); return }
        #expect(beside.path == "/proc" && beside.detail == "no folder can be made in it (a system folder?)")
        #expect(beside.said == "cannot write the snapshot: /proc is not writable (the new snapshot is built beside the output, in /proc, and swapped into place; the private state is kept there too): no folder can be made in it (a system folder?)")

        // A folder not there yet: the nearest one that is, where the missing ones would be made.
        let making = try #require(Self.refusal { try WritableFolders.check(output: URL(fileURLWithPath: "/proc/reader-snapshot-tests/library")) })
        guard case .making(let missing) = making.purpose else { Issue.record("\(making.purpose)"); return }
        #expect(missing == "/proc/reader-snapshot-tests" && making.path == "/proc")

        // With --keep, the output itself holds the dated snapshots.
        let dated = try #require(Self.refusal { try WritableFolders.check(output: URL(fileURLWithPath: "/proc"), keep: true) })
        guard case .datedSnapshots = dated.purpose else { Issue.record("\(dated.purpose)"); return }

        // --cache-dir and --markdown-into are named for themselves, after the output passes.
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let state = try #require(Self.refusal { try WritableFolders.check(output: folder.path("library"), state: URL(fileURLWithPath: "/proc")) })
        guard case .state = state.purpose else { Issue.record("\(state.purpose)"); return }
        let markdown = try #require(Self.refusal {
            try WritableFolders.check(output: folder.path("library"), markdown: URL(fileURLWithPath: "/proc/vault/Reader"))
        })
        guard case .markdown(let reader) = markdown.purpose else { Issue.record("\(markdown.purpose)"); return }
        #expect(reader == "/proc/vault/Reader" && markdown.path == "/proc")
        #expect(markdown.said.hasPrefix("cannot keep the Markdown: /proc is not writable (--markdown-into keeps it in /proc/vault/Reader)"), "\(markdown.said)")
    }

    /// Skipped under root, which writes in a folder whatever its mode: the tests run as root in CI's container.
    @Test(.enabled(if: notRoot)) func aFolderThatRefusesThisUserIsNamedWithPermissionDenied() throws {
        let folder = try TemporaryFolder()
        let locked = folder.path("locked")
        defer {
            _ = chmod(locked.path, 0o700)
            folder.remove()
        }
        try FileManager.default.createDirectory(at: locked.appendingPathComponent("library"), withIntermediateDirectories: true)
        #expect(chmod(locked.path, 0o500) == 0)

        let beside = try #require(Self.refusal { try WritableFolders.check(output: locked.appendingPathComponent("library")) })
        guard case .besideOutput = beside.purpose else { Issue.record("\(beside.purpose)"); return }
        #expect(beside.path == locked.path && beside.detail == String(cString: strerror(EACCES)))

        // With --keep, the output (writable) passes, and its private state beside it is refused...
        let state = try #require(Self.refusal { try WritableFolders.check(output: locked.appendingPathComponent("library"), keep: true) })
        guard case .privateState = state.purpose else { Issue.record("\(state.purpose)"); return }
        #expect(state.path == locked.path)
        // ...unless --cache-dir keeps it elsewhere.
        try WritableFolders.check(output: locked.appendingPathComponent("library"), keep: true, state: folder.path("state"))

        let dated = try #require(Self.refusal { try WritableFolders.check(output: locked, keep: true, state: folder.path("state")) })
        guard case .datedSnapshots = dated.purpose else { Issue.record("\(dated.purpose)"); return }
    }
}
