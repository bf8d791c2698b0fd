import Foundation
@testable import SnapshotStore
import TestSupport
import Testing

/// What tells a folder is a snapshot of the tool's: a mark beside it naming the folder itself (its
/// device and inode) and the names at its top. A folder at the same path that is another folder,
/// or the same folder emptied and filled with the user's files, is not marked.
@Suite struct SnapshotMarkTests {
    let folder: TemporaryFolder
    let output: URL
    let staging: URL

    init() throws {
        folder = try TemporaryFolder()
        output = folder.path("library")
        staging = folder.path(".library.staging-1a2b3c4d")
        try Self.fill(output, ["index.html", "books"])
        try Self.fill(staging, ["index.html", "library.json"])
    }

    /// Makes `folder` with these names at its top: files, or a folder for a name without a dot.
    static func fill(_ folder: URL, _ names: [String]) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in names {
            let item = folder.appendingPathComponent(name)
            if name.contains(".") { try Data(name.utf8).write(to: item) } else {
                try FileManager.default.createDirectory(at: item, withIntermediateDirectories: true)
            }
        }
    }

    func contents(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test func aMarkedFolderIsOursAndTheMarkIsBesideItNotInIt() throws {
        defer { folder.remove() }
        #expect(!SnapshotMark.marks(output))
        try SnapshotMark.mark(output, swappingIn: staging)
        #expect(SnapshotMark.marks(output))
        #expect(try contents(output) == ["books", "index.html"])
        let mark = folder.path(".library.reader-snapshot/snapshot-folders.json")
        #expect(FileManager.default.fileExists(atPath: mark.path))
        let mode = try FileManager.default.attributesOfItem(atPath: mark.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // The staging folder renamed into the output's place (the swap, cut before it marks again)
        // is the marked snapshot there too: a run killed on either side of the swap leaves it marked.
        try FileManager.default.moveItem(at: output, to: folder.path(".library.previous-5e6f7a8b"))
        try FileManager.default.moveItem(at: staging, to: output)
        #expect(SnapshotMark.marks(output))
        // A folder beside it, with a snapshot's names, is not marked by the output's mark.
        let other = folder.path("other")
        try Self.fill(other, ["index.html"])
        #expect(!SnapshotMark.marks(other))
    }

    @Test func anotherFolderPutAtTheSamePathIsNotTheMarkedOne() throws {
        defer { folder.remove() }
        try SnapshotMark.mark(output, swappingIn: output)
        #expect(SnapshotMark.marks(output))
        // The snapshot moved away and another folder made in its place with the same names: the
        // old folder still exists, so the new one has another inode.
        try FileManager.default.moveItem(at: output, to: folder.path("moved"))
        try Self.fill(output, ["index.html", "books"])
        #expect(SnapshotMark.identity(of: output) != SnapshotMark.identity(of: folder.path("moved")))
        #expect(!SnapshotMark.marks(output))
    }

    @Test func theSameFolderEmptiedAndFilledWithOtherFilesIsNotMarked() throws {
        defer { folder.remove() }
        try SnapshotMark.mark(output, swappingIn: output)
        let identity = SnapshotMark.identity(of: output)
        for name in try contents(output) { try FileManager.default.removeItem(at: output.appendingPathComponent(name)) }
        try Self.fill(output, ["letters.txt", ".index.html"])
        // The same inode: only its names tell it is the user's now (hidden names are not counted).
        #expect(SnapshotMark.identity(of: output) == identity)
        #expect(!SnapshotMark.marks(output))
        // One of the snapshot's names back: it is taken for the snapshot again.
        try Self.fill(output, ["index.html"])
        #expect(SnapshotMark.marks(output))
    }

    @Test func aSnapshotMarkedInsideByAnOlderVersionIsMarkedBesideOnceMovedOut() throws {
        defer { folder.remove() }
        let inside = output.appendingPathComponent(".reader-snapshot")
        try FileManager.default.createDirectory(at: inside, withIntermediateDirectories: true)
        #expect(SnapshotMark.marks(output))
        SnapshotMark.moveOut(of: output)
        #expect(!FileManager.default.fileExists(atPath: inside.path))
        #expect(SnapshotMark.marks(output))
        #expect(try contents(output) == ["books", "index.html"])

        // A folder inside that still holds a state is marked beside, and the state is kept.
        let older = folder.path("older")
        try Self.fill(older, ["index.html"])
        try Self.fill(older.appendingPathComponent(".reader-snapshot"), ["state.json"])
        SnapshotMark.moveOut(of: older)
        #expect(FileManager.default.fileExists(atPath: older.appendingPathComponent(".reader-snapshot/state.json").path))
        try FileManager.default.removeItem(at: older.appendingPathComponent(".reader-snapshot"))
        #expect(SnapshotMark.marks(older))
    }

    @Test func onlyAFolderHasAnIdentityAndALinkIsNotFollowed() throws {
        defer { folder.remove() }
        let link = folder.path("link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: output.path)
        let file = output.appendingPathComponent("index.html")
        #expect(SnapshotMark.identity(of: output) != nil)
        #expect(SnapshotMark.identity(of: output) != SnapshotMark.identity(of: staging))
        #expect(SnapshotMark.identity(of: link) == nil)
        #expect(SnapshotMark.identity(of: file) == nil)
        #expect(SnapshotMark.identity(of: folder.path("missing")) == nil)
        // Marked through a link, nothing is marked.
        try SnapshotMark.mark(link, swappingIn: link)
        #expect(!SnapshotMark.marks(link) && !SnapshotMark.marks(output))
    }
}
