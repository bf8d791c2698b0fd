import Foundation
import SnapshotStore
import TestSupport
import Testing

/// `--keep`'s folder of dated snapshots, without the tool around it.
@Suite struct DatedSnapshotsTests {
    /// A folder whose names cannot be listed may hold anything: it is not taken for an empty one.
    /// Only a user other than root sees it: root lists every folder.
    @Test(.enabled(if: getuid() != 0, "root may list any folder"))
    func aFolderWhoseNamesCannotBeListedIsNotTaken() throws {
        let folder = try TemporaryFolder()
        let root = folder.path("dated")
        defer {
            chmod(root.path, 0o755)
            folder.remove()
        }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: root.appendingPathComponent("notes.txt"))
        #expect(chmod(root.path, 0o300) == 0)
        #expect(throws: (any Error).self) { try DatedSnapshots(root: root, keep: 3).prepare() }
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("snapshots").path))
    }
}
