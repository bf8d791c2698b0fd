import Foundation
@testable import SnapshotStore
import Support
import TestSupport
import Testing

/// Where a snapshot, its state and its history live, worked out once from the folder the user
/// named: beside it, never in it, or in the dated layout with `--keep`.
@Suite struct SnapshotPlaceTests {
    /// 2025-10-09T03:00:00Z.
    static let night = SnapshotDate(seconds: 1_759_978_800)

    @Test func aPlainSnapshotIsTheFolderWithItsStateAndHistoryBesideIt() {
        let place = SnapshotPlace(root: URL(fileURLWithPath: "/srv/books/library"), keep: nil)
        #expect(place.root.path == "/srv/books/library")
        #expect(place.dated == nil)
        #expect(place.folder(for: Self.night).path == "/srv/books/library")
        #expect(place.shown.path == "/srv/books/library")
        #expect(place.stateFolder.path == "/srv/books/.library.reader-snapshot" && place.stateBesideRoot)
        #expect(place.gitDirectory.path == "/srv/books/.library.history.git")
        #expect(place.gitDirectoryInside.path == "/srv/books/library/.git")
    }

    @Test func datedSnapshotsAreDayFoldersUnderTheRootShownByLatest() {
        let place = SnapshotPlace(root: URL(fileURLWithPath: "/srv/books/./site/../library/"), keep: 7)
        #expect(place.dated?.keep == 7)
        #expect(place.root.path == "/srv/books/library")
        #expect(place.folder(for: Self.night).path == "/srv/books/library/snapshots/2025-10-09")
        #expect(place.shown.path == "/srv/books/library/latest")
        #expect(place.stateFolder.path == "/srv/books/.library.reader-snapshot")
        #expect(place.gitDirectory.path == "/srv/books/.library.history.git")
        #expect(place.gitDirectoryInside.path == "/srv/books/library/history.git")
    }

    @Test func cacheDirTakesTheStateElsewhereAndNothingElse() {
        let place = SnapshotPlace(root: URL(fileURLWithPath: "/srv/books/library"), keep: 3, cacheDirectory: URL(fileURLWithPath: "/var/cache/reader"))
        #expect(place.stateFolder.path == "/var/cache/reader" && !place.stateBesideRoot)
        #expect(place.gitDirectory.path == "/srv/books/.library.history.git")
        #expect(place.folder(for: Self.night).path == "/srv/books/library/snapshots/2025-10-09")
    }

    @Test func anExistingFolderIsDatedWhenItHoldsTheDatedLayout() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let plain = folder.path("plain"), dated = folder.path("dated"), linked = folder.path("linked")
        for snapshot in [plain, dated, linked] { try FileManager.default.createDirectory(at: snapshot, withIntermediateDirectories: true) }
        try Data("<html>".utf8).write(to: plain.appendingPathComponent("index.html"))
        try FileManager.default.createDirectory(at: dated.appendingPathComponent("snapshots/2025-10-09"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: linked.appendingPathComponent("latest").path, withDestinationPath: "snapshots/2025-10-09")

        #expect(SnapshotPlace.existing(plain).dated == nil)
        #expect(SnapshotPlace.existing(plain).shown.path == plain.path)
        // Every dated snapshot counts as kept: nothing is removed through such a place.
        #expect(SnapshotPlace.existing(dated).dated?.keep == Int.max)
        #expect(SnapshotPlace.existing(dated).shown.path == dated.appendingPathComponent("latest").path)
        #expect(SnapshotPlace.existing(linked).dated != nil)
        #expect(SnapshotPlace.existing(linked, cacheDirectory: folder.path("cache")).stateFolder.path == folder.path("cache").path)
    }

    @Test func theHistoryBesideARootIsNamedAfterIt() {
        #expect(SnapshotPlace.history(beside: URL(fileURLWithPath: "/home/you/Reader export")).path == "/home/you/.Reader export.history.git")
        #expect(SnapshotPlace.history(beside: URL(fileURLWithPath: "/home/you/./site/")).path == "/home/you/.site.history.git")
    }
}
