import Foundation
import Publish
import Site
import Support
import TestSupport
import Testing

/// What a publish decides before it sends anything: the headers and order of each file, what goes
/// up, what is already there, and what is deleted; and the remote and record it works from.
struct PublishPlanTests {
    static func checked(_ path: String, _ md5: String, size: Int = 10, inode: UInt64 = 1) -> CheckedFile {
        CheckedFile(file: LocalFile(path: path, size: size, inode: inode, modified: 1), md5: md5)
    }

    @Test func eachFileKindGetsItsTypeAndTheContentNamedOnesACacheForAYear() {
        let cases: [(String, String, String)] = [
            ("index.html", "text/html; charset=utf-8", ContentHeaders.short),
            ("books/1-emma.html", "text/html; charset=utf-8", ContentHeaders.short),
            ("markdown/books/1-emma.md", "text/markdown; charset=utf-8", ContentHeaders.short),
            ("assets/style.css", "text/css; charset=utf-8", ContentHeaders.short),
            ("assets/search.js", "text/javascript; charset=utf-8", ContentHeaders.short),
            ("library.json", "application/json; charset=utf-8", ContentHeaders.short),
            ("library.csv", "text/csv; charset=utf-8", ContentHeaders.short),
            ("library.bib", "application/x-bibtex; charset=utf-8", ContentHeaders.short),
            ("feed.xml", "application/atom+xml; charset=utf-8", ContentHeaders.short),
            ("shelves/2-classics.xml", "application/atom+xml; charset=utf-8", ContentHeaders.short),
            ("sitemap.xml", "application/xml; charset=utf-8", ContentHeaders.short),
            ("opds/index.xml", "application/atom+xml;profile=opds-catalog;kind=navigation", ContentHeaders.short),
            ("opds/shelves.xml", "application/atom+xml;profile=opds-catalog;kind=navigation", ContentHeaders.short),
            ("opds/books-2.xml", "application/atom+xml;profile=opds-catalog;kind=acquisition", ContentHeaders.short),
            ("opds/shelves/2-classics.xml", "application/atom+xml;profile=opds-catalog;kind=acquisition", ContentHeaders.short),
            ("opds/index.json", "application/opds+json", ContentHeaders.short),
            ("covers/0a1b2c.jpg", "image/jpeg", ContentHeaders.immutable),
            ("covers/0a1b2c-192.jpg", "image/jpeg", ContentHeaders.immutable),
            ("covers/0a1b2c.PNG", "image/png", ContentHeaders.immutable),
            ("cards/books/1.png", "image/png", ContentHeaders.immutable),
            ("notes.bin", "application/octet-stream", ContentHeaders.short),
        ]
        for (path, type, cache) in cases {
            #expect(ContentHeaders(for: path, formats: OutputFormat.files) == ContentHeaders(contentType: type, cacheControl: cache), "\(path)")
        }
    }

    @Test func whatAPageLinksGoesUpBeforeThePage() {
        #expect(ContentHeaders.wave(for: "covers/ab.jpg", formats: OutputFormat.files) == .files)
        #expect(ContentHeaders.wave(for: "assets/style.css", formats: OutputFormat.files) == .files)
        #expect(ContentHeaders.wave(for: "books/1-emma.html", formats: OutputFormat.files) == .bookPages)
        #expect(ContentHeaders.wave(for: "markdown/books/1-emma.md", formats: OutputFormat.files) == .bookPages)
        #expect(ContentHeaders.wave(for: "shelves/2-classics.html", formats: OutputFormat.files) == .collectionPages)
        #expect(ContentHeaders.wave(for: "authors/austen.html", formats: OutputFormat.files) == .collectionPages)
        #expect(ContentHeaders.wave(for: "years/2024.html", formats: OutputFormat.files) == .collectionPages)
        #expect(ContentHeaders.wave(for: "markdown/shelves/2-classics.md", formats: OutputFormat.files) == .collectionPages)
        #expect(ContentHeaders.wave(for: "opds/shelves/2-classics.xml", formats: OutputFormat.files) == .collectionPages)
        for root in ["index.html", "books.html", "feed.xml", "library.json", "opds/index.xml", "opds/books.xml",
                     "assets/search/manifest.js", "assets/search/t-7468.js", "assets/search/b-0.js", "markdown/index.md"] {
            #expect(ContentHeaders.wave(for: root, formats: OutputFormat.files) == .entryPoints, "\(root)")
        }
        // A private catalog's sealed files before its door (index.html, lock.json, the scripts).
        #expect(ContentHeaders.wave(for: "c/8b481545b96a1dcac0c3021a10596433", formats: OutputFormat.files) == .sealedFiles)
        #expect(ContentHeaders.wave(for: "lock.json", formats: OutputFormat.files) == .entryPoints && ContentHeaders.wave(for: "unlock.js", formats: OutputFormat.files) == .entryPoints)
        #expect(Wave.allCases == [.files, .bookPages, .collectionPages, .sealedFiles, .entryPoints])
    }

    @Test func onlyFilesTheHostLacksOrHasOtherwiseGoUpInWaveOrder() {
        let local = [Self.checked("index.html", "aa"), Self.checked("books/1.html", "bb"), Self.checked("covers/c.jpg", "cc"),
                     Self.checked("books/2.html", "dd", size: 12), Self.checked("books/3.html", "ee")]
        let remote = ["books/1.html": RemoteFile(size: 10, md5: "bb"),      // the same: stays
                      "books/2.html": RemoteFile(size: 10, md5: "dd"),      // another size: goes up
                      "books/3.html": RemoteFile(size: 10, md5: "EF"),      // another MD5: goes up
                      "books/4.html": RemoteFile(size: 10, md5: "ff"),      // gone from the snapshot: deleted
                      ".well-known/security.txt": RemoteFile(size: 5, md5: "11")]  // hidden: never ours
        let plan = PublishPlan.make(local: local, remote: remote, record: PublishRecord(), formats: OutputFormat.files)
        #expect(plan.unchanged.map(\.file.path) == ["books/1.html"])
        #expect(plan.batches.map(\.wave) == [.files, .bookPages, .entryPoints])
        #expect(plan.batches.flatMap { $0.files.map(\.file.path) } == ["covers/c.jpg", "books/2.html", "books/3.html", "index.html"])
        #expect(plan.deletions == ["books/4.html"])
        #expect(plan.uploads == 4 && plan.uploadBytes == 42)
        #expect(plan.batches[0].headers.cacheControl == ContentHeaders.immutable)
    }

    @Test func aHostWithoutMD5IsTrustedOnlyWhereTheRecordVouchesForTheBytes() {
        var record = PublishRecord()
        record.entries["a.html"] = .init(md5: "aa", size: 10, inode: 1, modified: 1)
        record.entries["b.html"] = .init(md5: "old", size: 10, inode: 1, modified: 1)
        let local = [Self.checked("a.html", "aa"), Self.checked("b.html", "bb"), Self.checked("c.html", "cc")]
        let remote = ["a.html": RemoteFile(size: 10, md5: nil), "b.html": RemoteFile(size: 10, md5: nil), "c.html": RemoteFile(size: 10, md5: nil)]
        let plan = PublishPlan.make(local: local, remote: remote, record: record, formats: OutputFormat.files)
        #expect(plan.unchanged.map(\.file.path) == ["a.html"])
        // b: the record says other bytes went up; c: nothing says what is there.
        #expect(plan.batches.flatMap { $0.files.map(\.file.path) } == ["b.html", "c.html"])
    }

    @Test func theRecordKeepsChecksumsOfTheSameFileOnlyAndSurvivesARoundTrip() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let target = try #require(RemoteTarget("s3:bucket/books"))
        var record = PublishRecord(file: PublishRecord.file(for: target, in: folder.url))
        record.entries["books/1 emma.html"] = .init(md5: "aa", size: 10, inode: 7, modified: 99)
        record.finished = true
        try record.write()
        #expect(PublishRecord.read(try #require(record.file)).listedAt == nil)
        record.listedAt = 1_790_000_000
        try record.write()
        let read = PublishRecord.read(try #require(record.file))
        #expect(read.finished && read.entries == record.entries && read.listedAt == 1_790_000_000)
        let mode = try FileManager.default.attributesOfItem(atPath: record.file!.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(read.knownChecksum(of: LocalFile(path: "books/1 emma.html", size: 10, inode: 7, modified: 99)) == "aa")
        #expect(read.knownChecksum(of: LocalFile(path: "books/1 emma.html", size: 10, inode: 8, modified: 99)) == nil)
        #expect(read.knownChecksum(of: LocalFile(path: "books/1 emma.html", size: 10, inode: 7, modified: 100)) == nil)
        #expect(PublishRecord.file(for: try #require(RemoteTarget("s3:bucket/other")), in: folder.url) != record.file)
    }

    @Test func aRemoteIsANameAColonAndAPath() {
        #expect(RemoteTarget("s3:bucket//books/") == RemoteTarget("s3:bucket/books"))
        #expect(RemoteTarget("sftp:/var/www/books/")?.path == "/var/www/books")
        #expect(RemoteTarget("s3:bucket/books")?.description == "s3:bucket/books")
        #expect(RemoteTarget("my-dav.2:")?.path == "")
        // A folder of this machine: by its absolute path only, never the root itself.
        #expect(RemoteTarget("/var/www//books/")?.isLocalFolder == true)
        #expect(RemoteTarget("/var/www//books/")?.description == "/var/www/books")
        #expect(RemoteTarget("/srv/a:b")?.path == "/srv/a:b")
        #expect(RemoteTarget("s3:bucket")?.isLocalFolder == false)
        for wrong in ["books", "./books", "/", "//", "/var/../etc", "/var/./www", "/a\tb", ":s3:bucket", "-x:y", "s3:bucket/../etc", "s3:a\nb", "a/b:c"] {
            #expect(RemoteTarget(wrong) == nil, "\(wrong)")
        }
    }
}
