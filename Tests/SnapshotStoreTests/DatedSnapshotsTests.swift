import Foundation
@testable import SnapshotStore
import Support
import TestSupport
import Testing

/// `--keep N`: the dated snapshots in `snapshots/`, `latest` pointing at the newest, the oldest
/// removed past N, and anything else in the folder left as it is.
@Suite struct DatedSnapshotsTests {
    static let day = 86_400
    /// 2025-10-09T00:00:00Z.
    static let first = 1_759_968_000

    let folder: TemporaryFolder
    let root: URL

    init() throws {
        folder = try TemporaryFolder()
        root = folder.path("library")
    }

    /// A night: its folder written, then published as `finish` does at the end of a run.
    @discardableResult
    func night(_ number: Int, _ dated: DatedSnapshots) throws -> URL {
        let snapshot = dated.folder(for: SnapshotDate(seconds: Self.first + number * Self.day + 3 * 3600))
        try FileManager.default.createDirectory(at: snapshot, withIntermediateDirectories: true)
        try Data("night \(number)".utf8).write(to: snapshot.appendingPathComponent("index.html"))
        try dated.finish(publishing: snapshot)
        return snapshot
    }

    func days() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("snapshots").path)) ?? []).sorted()
    }

    func latestTarget() -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: root.appendingPathComponent("latest").path)
    }

    @Test func eachNightIsADayFolderLatestPointsAtTheNewestAndOnlyTheNewestNStay() throws {
        defer { folder.remove() }
        let dated = DatedSnapshots(root: root, keep: 3)
        try dated.prepare()
        #expect(dated.newest == nil)
        for (number, day) in ["2025-10-09", "2025-10-10", "2025-10-11", "2025-10-12", "2025-10-13"].enumerated() {
            let snapshot = try night(number, dated)
            #expect(snapshot.path == root.path + "/snapshots/" + day)
            // A relative link, so that the folder can be moved or served elsewhere whole.
            #expect(latestTarget() == "snapshots/" + snapshot.lastPathComponent)
            #expect(dated.newest?.path == snapshot.path)
            #expect(try String(contentsOf: root.appendingPathComponent("latest/index.html"), encoding: .utf8) == "night \(number)")
        }
        #expect(days() == ["2025-10-11", "2025-10-12", "2025-10-13"])
        // No link left aside from the renames.
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() == ["latest", "snapshots"])
    }

    @Test func aSecondRunOnTheSameDayReplacesThatDaysSnapshot() throws {
        defer { folder.remove() }
        let dated = DatedSnapshots(root: root, keep: 2)
        try dated.prepare()
        let morning = dated.folder(for: SnapshotDate(seconds: Self.first + 3600))
        let evening = dated.folder(for: SnapshotDate(seconds: Self.first + 20 * 3600))
        #expect(morning == evening)
        try night(0, dated)
        try night(1, dated)
        try night(1, dated)
        #expect(days() == ["2025-10-09", "2025-10-10"])
    }

    @Test func keepingNoneKeepsOneAndTheSnapshotJustPublishedIsNeverRemoved() throws {
        defer { folder.remove() }
        let dated = DatedSnapshots(root: root, keep: 0)
        #expect(dated.keep == 1)
        try dated.prepare()
        try night(3, dated)
        // A clock set back: an earlier day published after a later one stays, as does the later one.
        let earlier = try night(1, dated)
        #expect(days() == ["2025-10-10", "2025-10-12"])
        #expect(dated.newest?.path == earlier.path)
        try night(4, dated)
        #expect(days() == ["2025-10-13"])
    }

    @Test func whatIsNotADatedSnapshotIsLeftAlone() throws {
        defer { folder.remove() }
        let dated = DatedSnapshots(root: root, keep: 1)
        try dated.prepare()
        let snapshots = root.appendingPathComponent("snapshots")
        // Names that are not a day's: a folder of the user's, a day's folder being written (hidden), a file.
        for name in ["notes", ".2025-10-01", "2025-10-01.tar.gz"] {
            try FileManager.default.createDirectory(at: snapshots.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        try Data("mine".utf8).write(to: root.appendingPathComponent("README.txt"))
        try night(0, dated)
        try night(1, dated)
        #expect(days() == [".2025-10-01", "2025-10-01.tar.gz", "2025-10-10", "notes"])
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("README.txt").path))
    }

    /// A folder of the user's whose name has ten characters, as a day's has, is not a day's
    /// snapshot either: pruning neither removes it nor counts it among the N kept. (Fails today:
    /// `finish` takes any ten-character name that is not hidden for a day, so "0-personal", which
    /// sorts before the days, is removed, and "my-notes-1", after them, takes a kept snapshot's place.)
    @Test func aFolderWithADaysLengthOfNameThatIsNotADayIsNeitherRemovedNorCounted() throws {
        defer { folder.remove() }
        let dated = DatedSnapshots(root: root, keep: 2)
        try dated.prepare()
        for name in ["0-personal", "my-notes-1"] {
            try FileManager.default.createDirectory(at: dated.snapshots.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        for number in 0..<3 { try night(number, dated) }
        #expect(days() == ["0-personal", "2025-10-10", "2025-10-11", "my-notes-1"])
    }

    @Test func aFolderThatHoldsSomethingElseIsRefused() throws {
        defer { folder.remove() }
        // A folder of the user's files: nothing of it may be buried under snapshots/.
        let mine = folder.path("mine")
        try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: mine.appendingPathComponent("letters.txt"))
        let refused = #expect(throws: SnapshotError.self) { try DatedSnapshots(root: mine, keep: 3).prepare() }
        #expect(refused?.path == mine.path)
        #expect(refused?.description.contains("must be empty or hold earlier dated snapshots") == true, "\(String(describing: refused))")
        #expect(!FileManager.default.fileExists(atPath: mine.appendingPathComponent("snapshots").path))

        // A snapshot made without --keep: told so, with what to do instead.
        let plain = folder.path("plain")
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: true)
        try Data("<html>".utf8).write(to: plain.appendingPathComponent("index.html"))
        let told = #expect(throws: SnapshotError.self) { try DatedSnapshots(root: plain, keep: 3).prepare() }
        #expect(told?.description.contains("made without --keep") == true, "\(String(describing: told))")

        // A file where the folder should be.
        let file = folder.path("file")
        try Data().write(to: file)
        #expect(throws: SnapshotError.self) { try DatedSnapshots(root: file, keep: 3).prepare() }

        // A folder not there yet, or empty, or of dated snapshots already, is made ready.
        try DatedSnapshots(root: root, keep: 3).prepare()
        try DatedSnapshots(root: root, keep: 3).prepare()
        #expect(DatedSnapshots.holdsDatedSnapshots(root))
        #expect(!DatedSnapshots.holdsDatedSnapshots(mine) && !DatedSnapshots.holdsDatedSnapshots(plain))
    }

    @Test func newestIsNoneWhenLatestIsMissingOrLeadsNowhere() throws {
        defer { folder.remove() }
        let dated = DatedSnapshots(root: root, keep: 3)
        try dated.prepare()
        let snapshot = try night(0, dated)
        #expect(dated.newest?.path == snapshot.path)
        try FileManager.default.removeItem(at: snapshot)
        #expect(dated.newest == nil)
        try FileManager.default.removeItem(at: dated.latest)
        #expect(dated.newest == nil)
        // `latest` alone marks the layout, as the folder `snapshots/` does.
        try FileManager.default.removeItem(at: dated.snapshots)
        try FileManager.default.createSymbolicLink(atPath: dated.latest.path, withDestinationPath: "snapshots/2025-10-09")
        #expect(DatedSnapshots.holdsDatedSnapshots(root))
    }

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
