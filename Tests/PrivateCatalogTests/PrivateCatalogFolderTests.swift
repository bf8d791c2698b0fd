import Foundation
import PrivateCatalog
import SnapshotStore
import TestSupport
import Testing

/// Where the catalog for friends is kept between nights, and what `publish` may take of it: the
/// swaps of a night made by hand, in a temporary folder.
@Suite struct PrivateCatalogFolderTests {
    let folder: TemporaryFolder
    let root: URL

    init() throws {
        folder = try TemporaryFolder()
        root = folder.path("books")
    }

    /// A snapshot made in a staging folder and put in place of `snapshot` (the swap's two renames),
    /// with a sealed copy inside when `sealed`.
    func swapIn(_ snapshot: URL, sealed: Bool, lock: Bool = true) throws {
        let staging = folder.path(".staging-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        try Data("<h1>Books</h1>".utf8).write(to: staging.appendingPathComponent("index.html"))
        if sealed {
            let inside = staging.appendingPathComponent(PrivateCatalogWriter.folder)
            try FileManager.default.createDirectory(at: inside.appendingPathComponent("c"), withIntermediateDirectories: true)
            try Data("sealed".utf8).write(to: inside.appendingPathComponent("c/00"))
            if lock { try Data("{}".utf8).write(to: inside.appendingPathComponent("lock.json")) }
        }
        try FileManager.default.createDirectory(at: snapshot.deletingLastPathComponent(), withIntermediateDirectories: true)
        if FileManager.default.fileExists(atPath: snapshot.path) { try FileManager.default.removeItem(at: snapshot) }
        try FileManager.default.moveItem(at: staging, to: snapshot)
    }

    var beside: URL { PrivateCatalogFolder.beside(root) }

    @Test func theSealedCopyMovesOutOfTheSnapshotAndPublishTakesItWhereverItIs() throws {
        defer { folder.remove() }
        #expect(beside.lastPathComponent == ".books.private-catalog" && beside.deletingLastPathComponent().path == folder.url.standardizedFileURL.path)
        try swapIn(root, sealed: true)
        // Killed between the swap and the move: the copy inside is the snapshot's.
        #expect(PrivateCatalogFolder.find(for: root, root: root) == .sealed(root.appendingPathComponent(PrivateCatalogWriter.folder)))
        try PrivateCatalogFolder.settle(snapshot: root, root: root)
        #expect(PrivateCatalogFolder.find(for: root, root: root) == .sealed(beside))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["index.html"], "nothing hidden is left in the snapshot")
        #expect(FileManager.default.fileExists(atPath: beside.appendingPathComponent("c/00").path))
        #expect(PrivateCatalogFolder.last(of: root, root: root) == beside)

        // The next sealed night takes its place whole.
        try swapIn(root, sealed: true)
        try Data("tonight".utf8).write(to: root.appendingPathComponent(PrivateCatalogWriter.folder).appendingPathComponent("c/00"))
        try PrivateCatalogFolder.settle(snapshot: root, root: root)
        #expect(try Data(contentsOf: beside.appendingPathComponent("c/00")) == Data("tonight".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains(".old-") }.isEmpty)
    }

    @Test func aCopyOfAnotherSnapshotIsNeverPublishedAndANightWithoutThePasswordRemovesIt() throws {
        defer { folder.remove() }
        try swapIn(root, sealed: true)
        try PrivateCatalogFolder.settle(snapshot: root, root: root)
        // A night without the password, killed after its swap: the copy beside is last night's.
        try swapIn(root, sealed: false)
        #expect(PrivateCatalogFolder.find(for: root, root: root) == .ofAnotherSnapshot(beside))
        #expect(PrivateCatalogFolder.last(of: root, root: root) == nil, "its files are not linked into tonight's")
        // The next run settles it before anything else: the plain snapshot is then the one to publish.
        try PrivateCatalogFolder.settle(snapshot: root, root: root)
        #expect(PrivateCatalogFolder.find(for: root, root: root) == .none)
        #expect(!FileManager.default.fileExists(atPath: beside.path))
    }

    @Test func aLinkedNightKeepsYesterdaysCopyAndAnIncompleteOneIsRefused() throws {
        defer { folder.remove() }
        // --keep: yesterday's dated folder sealed; tonight's links its files, and so its copy.
        let yesterday = root.appendingPathComponent("snapshots/2026-11-28"), tonight = root.appendingPathComponent("snapshots/2026-11-29")
        try swapIn(yesterday, sealed: true)
        try PrivateCatalogFolder.settle(snapshot: yesterday, root: root)
        try swapIn(tonight, sealed: false)
        #expect(PrivateCatalogFolder.find(for: tonight, root: root) == .ofAnotherSnapshot(beside))
        try PrivateCatalogFolder.settle(snapshot: tonight, root: root, linkedFrom: yesterday)
        #expect(PrivateCatalogFolder.find(for: tonight, root: root) == .sealed(beside))
        #expect(PrivateCatalogFolder.find(for: yesterday, root: root) == .ofAnotherSnapshot(beside), "the copy is tonight's now")

        // Cut short: a copy without its lock.json is found, and refused.
        try FileManager.default.removeItem(at: beside.appendingPathComponent("lock.json"))
        #expect(PrivateCatalogFolder.find(for: tonight, root: root) == .incomplete(beside))
        try swapIn(tonight, sealed: true, lock: false)
        #expect(PrivateCatalogFolder.find(for: tonight, root: root) == .incomplete(tonight.appendingPathComponent(PrivateCatalogWriter.folder)))
    }
}
