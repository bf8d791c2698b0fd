import Foundation
import SampleServer
import TestSupport
import Testing

/// `render --from` a snapshot already written: a copy for friends without the notes or a shelf,
/// with no server, in the snapshot's language unless told otherwise.
@Suite(.serialized)
struct RenderCommandTests {
    static func exportGerman(into folder: TemporaryFolder) async throws -> URL {
        let server = try await EndToEndTests.startServer()
        let snapshot = folder.path("snapshot")
        let run = try await EndToEndTests.export(server, to: snapshot, extra: ["--language", "de", "--format", "html,json"])
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        return snapshot
    }

    static func render(_ snapshot: URL, to output: URL, _ extra: [String] = []) async throws -> ToolRun {
        try await ToolRunner.run(["render", "--from", snapshot.path, "--output", output.path, "--format", "html,json", "-q"] + extra)
    }

    @Test func aRenderKeepsTheSnapshotsLanguageUnlessTold() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let snapshot = try await Self.exportGerman(into: folder)
        #expect(SiteInspector(root: snapshot).text("library.json")?.contains(#""language" : "de""#) == true)

        let kept = folder.path("kept")
        #expect(try await Self.render(snapshot, to: kept).status == 0)
        let page = try #require(SiteInspector(root: kept).text("index.html"))
        #expect(page.contains(#"<html lang="de""#), "\(page.prefix(200))")
        // The same pages as the export's, word for word.
        #expect(page == SiteInspector(root: snapshot).text("index.html"))

        let english = folder.path("english")
        #expect(try await Self.render(snapshot, to: english, ["--language", "en"]).status == 0)
        #expect(SiteInspector(root: english).text("index.html")?.contains(#"<html lang="en""#) == true)
    }

    @Test func aCopyForFriendsLeavesOutTheNotesAShelfAndTheCovers() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let snapshot = try await Self.exportGerman(into: folder)
        let original = SiteInspector(root: snapshot)
        #expect(original.files().contains { $0.hasPrefix("covers/") })
        #expect(original.text("library.json")?.contains("Loved it") == true)

        let friends = folder.path("friends")
        let run = try await Self.render(snapshot, to: friends, ["--no-notes", "--no-covers", "--exclude-shelf", "Classics"])
        #expect(run.status == 0, "\(run.output)")
        let site = SiteInspector(root: friends)
        #expect(!site.files().contains { $0.hasPrefix("covers/") })
        #expect(site.files().contains("books/101-pride-and-prejudice.html"))
        #expect(!site.files().contains { $0.hasPrefix("shelves/2-") })
        // Words only an excluded shelf, its books or a note would bring, in no file, looked for as
        // the search index stores them (folded).
        let leaks = site.holding(["Classics", "Dracula", "Middlemarch", "Loved it", "Reader, I married him", "active_storage"] + EndToEndTests.noteWords)
        #expect(leaks.isEmpty, "\(leaks.prefix(10))")

        // A shelf that matches none is refused, and nothing is written.
        let typo = try await Self.render(snapshot, to: folder.path("typo"), ["--exclude-shelf", "classic"])
        #expect(typo.status == 64, "\(typo.output)")
        #expect(typo.stderr.contains(#"--exclude-shelf classic: no shelf has that name or id; the closest: "Classics" (id 2)"#), "\(typo.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("typo").path))
    }

    /// The hidden entries at the top of a folder.
    static func hidden(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }.sorted()
    }

    /// Nothing of the tool's state lives in a folder it writes: a snapshot is known as one by a
    /// mark beside it (`PARENT/.NAME.reader-snapshot/`), so that a render or an export may replace
    /// it and publish send it, while a folder of the user's is refused, and so is one the user
    /// deleted and made again.
    @Test func aRenderAndAnExportLeaveNothingHiddenInTheirFolder() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let snapshot = try await Self.exportGerman(into: folder)
        let inSnapshot = try Self.hidden(in: snapshot)
        #expect(inSnapshot == [], "\(inSnapshot)")
        let friends = folder.path("FRIENDS")
        for night in 1...2 {
            let run = try await Self.render(snapshot, to: friends, ["--no-notes"])
            #expect(run.status == 0, "night \(night): \(run.output)")
            let inFriends = try Self.hidden(in: friends)
            #expect(inFriends == [], "night \(night): \(inFriends)")
        }
        #expect(FileManager.default.fileExists(atPath: folder.path(".FRIENDS.reader-snapshot").path))
        // A snapshot an earlier version wrote, with the state's folder inside, is replaced, and
        // the folder inside goes with it.
        try FileManager.default.createDirectory(at: friends.appendingPathComponent(".reader-snapshot"), withIntermediateDirectories: true)
        try FileManager.default.removeItem(at: folder.path(".FRIENDS.reader-snapshot"))
        let older = try await Self.render(snapshot, to: friends)
        let leftInside = try Self.hidden(in: friends)
        #expect(older.status == 0 && leftInside == [], "\(older.output) \(leftInside)")
        // The folder deleted and made again with the user's own files is not the snapshot that was there.
        try FileManager.default.removeItem(at: friends)
        try FileManager.default.createDirectory(at: friends, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: friends.appendingPathComponent("thesis.txt"))
        let mine = try await Self.render(snapshot, to: friends)
        #expect(mine.status == 73 && mine.stderr.contains("the folder is not empty and holds no earlier snapshot"), "\(mine.output)")
        #expect(try String(contentsOf: friends.appendingPathComponent("thesis.txt"), encoding: .utf8) == "mine")
    }
}
