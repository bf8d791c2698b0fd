import Foundation
import SampleServer
import TestSupport
import Testing
import Vault

/// `--markdown-into`: the user's edits in the vault are kept in every case.
struct VaultTests {
    /// A snapshot's Markdown tree, written by hand: what the vault is synced from.
    struct Snapshot {
        let root: URL
        func set(_ path: String, _ text: String) throws {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        func remove(_ path: String) throws { try FileManager.default.removeItem(at: root.appendingPathComponent(path)) }
    }

    struct Setup {
        let folder: TemporaryFolder
        let snapshot: Snapshot
        let vault: Vault
        init() throws {
            folder = try TemporaryFolder()
            snapshot = Snapshot(root: folder.path("snapshot"))
            vault = Vault(into: folder.path("vault"))
            try snapshot.set("markdown/index.md", "# Library\n")
            try snapshot.set("markdown/books/1-dune.md", "---\nid: 1\ntitle: Dune\n---\n\nSpice.\n")
            try snapshot.set("markdown/books/2-emma.md", "---\nid: 2\ntitle: Emma\n---\n\nMatchmaking.\n")
            try snapshot.set("covers/abc.jpg", "JPEG")
        }
        func read(_ path: String) -> String? {
            (try? Data(contentsOf: vault.root.appendingPathComponent(path))).map { String(decoding: $0, as: UTF8.self) }
        }
        func write(_ path: String, _ text: String) throws {
            try Data(text.utf8).write(to: vault.root.appendingPathComponent(path))
        }
        func sync(restore: Bool = false) throws -> Vault.Report {
            var vault = self.vault
            vault.restore = restore
            return try vault.sync(from: snapshot.root)
        }
    }

    /// A file of the user's that cannot be read is never taken for none, and so never written
    /// over: the sync stops and says which. Only a user other than root sees it: root reads every file.
    @Test(.enabled(if: getuid() != 0, "root may read any file"))
    func aFileThatCannotBeReadStopsTheSyncAndIsKept() throws {
        let setup = try Setup()
        let theirs = setup.vault.root.appendingPathComponent("markdown/books/1-dune.md")
        defer {
            chmod(theirs.path, 0o644)
            setup.folder.remove()
        }
        try FileManager.default.createDirectory(at: theirs.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("my own Dune".utf8).write(to: theirs)
        #expect(chmod(theirs.path, 0o000) == 0)
        let error = #expect(throws: (any Error).self) { try setup.sync() }
        #expect(error.map { "\($0)" }?.contains("markdown/books/1-dune.md could not be read") == true, "\(String(describing: error))")
        #expect(chmod(theirs.path, 0o644) == 0)
        #expect(setup.read("markdown/books/1-dune.md") == "my own Dune")
    }

    @Test func theFirstSyncWritesTheTreeAndTheNextOneNothing() throws {
        let setup = try Setup()
        defer { setup.folder.remove() }
        let mine = setup.folder.path("vault/my-own-note.md")
        try FileManager.default.createDirectory(at: mine.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: mine)
        let first = try setup.sync()
        #expect(first.written.sorted() == ["markdown/books/1-dune.md", "markdown/books/2-emma.md", "markdown/index.md"])
        #expect(setup.read("markdown/books/1-dune.md")?.contains("Spice.") == true)
        #expect(setup.read("covers/abc.jpg") == "JPEG")
        // Nothing outside DIR/Reader/ is touched.
        #expect(try String(contentsOf: mine, encoding: .utf8) == "mine")
        let second = try setup.sync()
        #expect(second.written.isEmpty && second.conflicts.isEmpty && second.unchanged == 3)
    }

    @Test func aFileNotEditedFollowsTheServer() throws {
        let setup = try Setup()
        defer { setup.folder.remove() }
        _ = try setup.sync()
        try setup.snapshot.set("markdown/books/1-dune.md", "---\nid: 1\ntitle: Dune\n---\n\nSpice, again.\n")
        // Renamed on the server (its title changed): the file moves with it.
        try setup.snapshot.remove("markdown/books/2-emma.md")
        try setup.snapshot.set("markdown/books/2-emma-revised.md", "---\nid: 2\ntitle: Emma (revised)\n---\n\nMatchmaking.\n")
        let report = try setup.sync()
        #expect(report.conflicts.isEmpty)
        #expect(setup.read("markdown/books/1-dune.md")?.contains("Spice, again.") == true)
        #expect(setup.read("markdown/books/2-emma.md") == nil)
        #expect(setup.read("markdown/books/2-emma-revised.md")?.contains("revised") == true)
    }

    @Test func anEditIsKeptAndTheServersNewVersionGoesBesideItOnce() throws {
        let setup = try Setup()
        defer { setup.folder.remove() }
        _ = try setup.sync()
        let edited = "---\nid: 1\ntitle: Dune\n---\n\nSpice.\n\nMy own thoughts.\n"
        try setup.write("markdown/books/1-dune.md", edited)
        // The server unchanged: the edit is simply kept.
        var report = try setup.sync()
        #expect(report.conflicts.isEmpty && setup.read("markdown/books/1-dune.md") == edited)
        // The server changed too: a conflict, the server's version beside the user's.
        try setup.snapshot.set("markdown/books/1-dune.md", "---\nid: 1\ntitle: Dune\n---\n\nSpice, from the server.\n")
        report = try setup.sync()
        #expect(report.conflicts == ["markdown/books/1-dune.reader.md"])
        #expect(setup.read("markdown/books/1-dune.md") == edited)
        #expect(setup.read("markdown/books/1-dune.reader.md")?.contains("from the server") == true)
        // Said once a version.
        report = try setup.sync()
        #expect(report.conflicts.isEmpty && setup.read("markdown/books/1-dune.md") == edited)
    }

    @Test func aDeletedFileStaysDeletedUntilRestore() throws {
        let setup = try Setup()
        defer { setup.folder.remove() }
        _ = try setup.sync()
        try FileManager.default.removeItem(at: setup.vault.root.appendingPathComponent("markdown/books/2-emma.md"))
        var report = try setup.sync()
        #expect(report.keptDeleted == ["markdown/books/2-emma.md"] && setup.read("markdown/books/2-emma.md") == nil)
        try setup.snapshot.set("markdown/books/2-emma.md", "---\nid: 2\ntitle: Emma\n---\n\nChanged on the server.\n")
        report = try setup.sync()
        #expect(report.keptDeleted.isEmpty && report.stillDeleted == 1 && setup.read("markdown/books/2-emma.md") == nil, "named once, counted after")
        report = try setup.sync(restore: true)
        #expect(report.restored == ["markdown/books/2-emma.md"])
        #expect(setup.read("markdown/books/2-emma.md")?.contains("Changed on the server.") == true)
    }

    @Test func aRenamedFileIsFollowedEditedOrNot() throws {
        let setup = try Setup()
        defer { setup.folder.remove() }
        _ = try setup.sync()
        let books = setup.vault.root.appendingPathComponent("markdown/books")
        // Renamed, not edited: found by its content, and it follows the server under its new name.
        try FileManager.default.moveItem(at: books.appendingPathComponent("1-dune.md"), to: books.appendingPathComponent("Dune.md"))
        // Renamed and edited: found by the id in its front matter.
        try FileManager.default.moveItem(at: books.appendingPathComponent("2-emma.md"), to: books.appendingPathComponent("Emma.md"))
        try setup.write("markdown/books/Emma.md", "---\nid: 2\ntitle: Emma\n---\n\nMine now.\n")
        try setup.snapshot.set("markdown/books/1-dune.md", "---\nid: 1\ntitle: Dune\n---\n\nSpice, again.\n")
        try setup.snapshot.set("markdown/books/2-emma.md", "---\nid: 2\ntitle: Emma\n---\n\nServer's.\n")
        let report = try setup.sync()
        #expect(Set(report.followed) == ["markdown/books/Dune.md", "markdown/books/Emma.md"])
        #expect(setup.read("markdown/books/1-dune.md") == nil && setup.read("markdown/books/2-emma.md") == nil, "not written again")
        #expect(setup.read("markdown/books/Dune.md")?.contains("Spice, again.") == true)
        #expect(setup.read("markdown/books/Emma.md")?.contains("Mine now.") == true)
        #expect(report.conflicts == ["markdown/books/Emma.reader.md"])
        #expect(try setup.sync().followed.isEmpty, "remembered under its new name")
    }

    @Test func aBookGoneFromTheServerTakesItsFileOnlyIfNeverEdited() throws {
        let setup = try Setup()
        defer { setup.folder.remove() }
        _ = try setup.sync()
        try setup.write("markdown/books/2-emma.md", "---\nid: 2\n---\n\nMy notes on Emma.\n")
        try setup.snapshot.remove("markdown/books/1-dune.md")
        try setup.snapshot.remove("markdown/books/2-emma.md")
        let report = try setup.sync()
        #expect(report.removed == ["markdown/books/1-dune.md"] && setup.read("markdown/books/1-dune.md") == nil)
        #expect(report.keptRemoved == ["markdown/books/2-emma.md"])
        #expect(setup.read("markdown/books/2-emma.md")?.contains("My notes on Emma.") == true)
    }

    @Test func aFileOfTheUsersByTheSameNameIsNotOverwritten() throws {
        let setup = try Setup()
        defer { setup.folder.remove() }
        try FileManager.default.createDirectory(at: setup.vault.root.appendingPathComponent("markdown/books"), withIntermediateDirectories: true)
        try setup.write("markdown/books/1-dune.md", "my file")
        let report = try setup.sync()
        #expect(setup.read("markdown/books/1-dune.md") == "my file")
        #expect(report.conflicts == ["markdown/books/1-dune.reader.md"])
    }
}
