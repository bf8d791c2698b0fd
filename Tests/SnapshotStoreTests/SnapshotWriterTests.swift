import Foundation
@testable import SnapshotStore
import Support
import TestSupport
import Testing

/// A snapshot's files are written under its folder and nowhere else, and a file whose bytes are
/// the previous snapshot's is that file, hard-linked. What a planted link points at is never
/// written or taken.
@Suite struct SnapshotWriterTests {
    let folder: TemporaryFolder
    let root: URL
    let previous: URL
    /// A file outside both snapshots, which nothing may write or link.
    let outside: URL

    init() throws {
        folder = try TemporaryFolder()
        root = folder.path("staging")
        previous = folder.path("library")
        outside = folder.path("outside.html")
        try Self.put("outside", at: outside)
    }

    static func put(_ text: String, at file: URL) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    func text(_ file: URL) -> String? {
        (try? Data(contentsOf: file)).map { String(decoding: $0, as: UTF8.self) }
    }

    func inode(_ file: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: file.path))?[.systemFileNumber] as? Int
    }

    var writer: SnapshotWriter { SnapshotWriter(root: root, previous: previous) }

    @Test func aFileIsWrittenUnderTheRootWithItsFoldersMade() throws {
        defer { folder.remove() }
        try writer.write("<h1>Moby-Dick</h1>", to: "books/7-moby-dick.html")
        try writer.write(Data([0, 1, 2]), to: "covers/deep/a.bin")
        #expect(text(root.appendingPathComponent("books/7-moby-dick.html")) == "<h1>Moby-Dick</h1>")
        #expect(try Data(contentsOf: root.appendingPathComponent("covers/deep/a.bin")) == Data([0, 1, 2]))
        #expect(try writer.url(for: "books/7-moby-dick.html").path == root.path + "/books/7-moby-dick.html")
        // Written again, the file is replaced.
        try writer.write("<h1>Moby-Dick; or, The Whale</h1>", to: "books/7-moby-dick.html")
        #expect(text(root.appendingPathComponent("books/7-moby-dick.html")) == "<h1>Moby-Dick; or, The Whale</h1>")
    }

    @Test(arguments: ["../outside.html", "/etc/passwd", "books/../../outside.html", "books//x.html", "./x.html", "books/.", "..",
                      "", "books/", "a\u{0}b", "books/..", "../staging/x.html"])
    func aPathThatCouldLeaveTheRootIsRefused(_ path: String) throws {
        defer { folder.remove() }
        let refused = #expect(throws: SnapshotError.self) { try writer.write("written", to: path) }
        #expect(refused?.description.contains("refusing to write outside the snapshot") == true, "\(String(describing: refused))")
        #expect(refused?.path == root.path)
        #expect(throws: SnapshotError.self) { try writer.url(for: path) }
        #expect(throws: SnapshotError.self) { try writer.writeOnce(Data("written".utf8), to: path) }
        #expect(throws: SnapshotError.self) { try writer.writeStream(to: path) { try $0(Data("written".utf8)) } }
        #expect(throws: SnapshotError.self) { try writer.copy(outside, to: path) }
        #expect(!writer.linkFromPrevious(path))
        #expect(text(outside) == "outside")
        #expect(!FileManager.default.fileExists(atPath: root.path), "something was written for \(path)")
    }

    @Test func namesWithDotsThatStayInsideAreTaken() throws {
        defer { folder.remove() }
        for path in ["...", ".hidden", "a..b/c.html", "books/..x", "books/x..", "café/ünïcode.html"] {
            try writer.write(path, to: path)
            #expect(text(root.appendingPathComponent(path)) == path)
        }
    }

    @Test func aFileTheSameAsInThePreviousSnapshotIsThatFileLinked() throws {
        defer { folder.remove() }
        try Self.put("same", at: previous.appendingPathComponent("books/same.html"))
        try Self.put("old", at: previous.appendingPathComponent("books/changed.html"))
        try writer.write("same", to: "books/same.html")
        try writer.write("new", to: "books/changed.html")
        #expect(inode(root.appendingPathComponent("books/same.html")) == inode(previous.appendingPathComponent("books/same.html")))
        // Bytes of the same size that differ: a file of its own, and the previous one as it was.
        #expect(inode(root.appendingPathComponent("books/changed.html")) != inode(previous.appendingPathComponent("books/changed.html")))
        #expect(text(root.appendingPathComponent("books/changed.html")) == "new")
        #expect(text(previous.appendingPathComponent("books/changed.html")) == "old")

        // The same for a file written piece by piece, and for one written once by its content's name.
        try Self.put("library, piece by piece", at: previous.appendingPathComponent("library.json"))
        try writer.writeStream(to: "library.json") { sink in
            for piece in ["library, ", "piece ", "by piece"] { try sink(Data(piece.utf8)) }
        }
        #expect(inode(root.appendingPathComponent("library.json")) == inode(previous.appendingPathComponent("library.json")))
        try writer.writeStream(to: "other.json") { try $0(Data("other".utf8)) }
        #expect(text(root.appendingPathComponent("other.json")) == "other")
        try Self.put("cover", at: previous.appendingPathComponent("covers/abc.jpg"))
        try writer.writeOnce(Data("cover".utf8), to: "covers/abc.jpg")
        #expect(inode(root.appendingPathComponent("covers/abc.jpg")) == inode(previous.appendingPathComponent("covers/abc.jpg")))
    }

    @Test func aLinkPlantedInThePreviousSnapshotIsNeverTaken() throws {
        defer { folder.remove() }
        // A file and a folder of the previous snapshot that are links out of it, to bytes that match.
        try FileManager.default.createDirectory(at: previous, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: previous.appendingPathComponent("index.html"), withDestinationURL: outside)
        try FileManager.default.createSymbolicLink(at: previous.appendingPathComponent("books"), withDestinationURL: folder.url)
        #expect(writer.previousFile("index.html") == nil)
        #expect(writer.previousFile("books/outside.html") == nil)
        #expect(!writer.linkFromPrevious("index.html") && !writer.linkFromPrevious("books/outside.html"))
        try writer.write("outside", to: "index.html")
        #expect(inode(root.appendingPathComponent("index.html")) != inode(outside))
        try writer.linkTree(from: previous)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["index.html"])
    }

    @Test func aLinkAtAFilesPlaceInTheSnapshotIsNotFollowed() throws {
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("index.html"), withDestinationURL: outside)
        #expect(throws: SnapshotError.self) { try writer.write("<html>", to: "index.html") }
        #expect(throws: SnapshotError.self) { try writer.writeStream(to: "index.html") { try $0(Data("<html>".utf8)) } }
        #expect(text(outside) == "outside")
    }

    @Test func thePreviousSnapshotsFilesAreLinkedOnlyWhenTheyAreTheSizeSaid() throws {
        defer { folder.remove() }
        try Self.put("12345", at: previous.appendingPathComponent("books/a.html"))
        #expect(writer.previousFile("books/a.html")?.path == previous.appendingPathComponent("books/a.html").path)
        #expect(writer.previousFile("books/none.html") == nil)
        // A file changed by hand since its size was kept is made again, not linked.
        #expect(!writer.linkFromPrevious("books/a.html", size: 4))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("books/a.html").path))
        #expect(writer.linkFromPrevious("books/a.html", size: 5))
        #expect(inode(root.appendingPathComponent("books/a.html")) == inode(previous.appendingPathComponent("books/a.html")))
        #expect(!writer.linkFromPrevious("books/none.html"))
    }

    @Test func aWholeSnapshotIsLinkedWithoutItsLinksOrState() throws {
        defer { folder.remove() }
        try Self.put("index", at: previous.appendingPathComponent("index.html"))
        try Self.put("book", at: previous.appendingPathComponent("books/deep/7.html"))
        try Self.put("{}", at: previous.appendingPathComponent(".reader-snapshot/state.json"))
        try FileManager.default.createSymbolicLink(at: previous.appendingPathComponent("linked.html"), withDestinationURL: outside)
        try writer.linkTree(from: previous)
        #expect(inode(root.appendingPathComponent("index.html")) == inode(previous.appendingPathComponent("index.html")))
        #expect(inode(root.appendingPathComponent("books/deep/7.html")) == inode(previous.appendingPathComponent("books/deep/7.html")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() == ["books", "index.html"])
    }

    @Test func aDownloadIsMovedIntoPlaceOnceAndAWrittenOnceFileIsNotReplaced() throws {
        defer { folder.remove() }
        let download = folder.path("download.part")
        try Self.put("cover bytes", at: download)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("covers"), withIntermediateDirectories: true)
        try writer.place(download, at: "covers/abc.jpg")
        #expect(text(root.appendingPathComponent("covers/abc.jpg")) == "cover bytes")
        #expect(!FileManager.default.fileExists(atPath: download.path))
        // Named by its content: a second download of it is dropped, the first stays.
        try Self.put("other bytes", at: download)
        try writer.place(download, at: "covers/abc.jpg")
        #expect(text(root.appendingPathComponent("covers/abc.jpg")) == "cover bytes")
        #expect(!FileManager.default.fileExists(atPath: download.path))
        try writer.writeOnce(Data("other bytes".utf8), to: "covers/abc.jpg")
        #expect(text(root.appendingPathComponent("covers/abc.jpg")) == "cover bytes")
        try writer.writeOnce(Data("new cover".utf8), to: "covers/new/def.jpg")
        #expect(text(root.appendingPathComponent("covers/new/def.jpg")) == "new cover")
    }
}
