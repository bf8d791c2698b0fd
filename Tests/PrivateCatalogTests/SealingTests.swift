import Foundation
import PrivateCatalog
import Site
import SnapshotStore
import TestSupport
import Testing

/// The private catalog's keys, sealed files and writer, without the tool around them.
@Suite struct SealingTests {
    /// A key made quickly: 1,000 rounds instead of 600,000 (the rounds are PBKDF2's, unchanged in kind).
    static func key(_ password: String = "correct horse battery", salt: Data = Data(0..<16)) throws -> CatalogKey {
        try CatalogKey(password: try SharePassword(password), salt: salt, iterations: 1_000)
    }

    /// The figures a second implementation makes (Python's hashlib and hmac, RFC 5869 by hand), as
    /// the browser's Web Crypto must: the same check, the same name.
    @Test func theKeysAreTheOnesAnotherImplementationMakes() throws {
        let key = try Self.key()
        #expect(key.check == "7bf42bcea10fadd114d52278d9214f75")
        #expect(SealedFile.name(of: "books/101-pride-and-prejudice.html", key: key) == "c/8b481545b96a1dcac0c3021a10596433")
        #expect(try Self.key("correct horse battery!").check != key.check)
        #expect(try Self.key(salt: Data(1..<17)).check != key.check)
        let password = try SharePassword("correct horse battery")
        #expect(!"\(key)".contains("correct") && !"\(password)".contains("correct"))
    }

    /// The salt kept between nights is read, or the night stops and says why: one that is there
    /// but cannot be read is not replaced by a new one, which would seal every file anew.
    @Test func aKeptSaltThatCannotBeReadIsNotReplaced() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let password = try SharePassword("correct horse battery")
        let file = folder.path(CatalogKey.lockFile)
        // A folder where the file should be: there, and nothing to read.
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
        let error = #expect(throws: SharePasswordError.self) { try CatalogKey.make(password: password, stateFolder: folder.url) }
        #expect(error?.description == "The private catalog's state \(file.path) could not be read (Is a directory): "
            + "make it readable, or delete it to encrypt the catalog anew under a new salt.")
        try FileManager.default.removeItem(at: file)
        try Data("{\"salt\": 1}".utf8).write(to: file)
        #expect(throws: SharePasswordError.self) { try CatalogKey.make(password: password, stateFolder: folder.url) }
    }

    @Test func aPasswordIsItsFirstLineComposedAndNeitherShortNorOpenToOthers() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        func file(_ text: String, mode: Int = 0o600) throws -> String {
            let url = folder.path(UUID().uuidString)
            try Data(text.utf8).write(to: url)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
            return url.path
        }
        // "é" as one character or as e and a combining accent: one password.
        let composed = try CatalogKey(password: SharePassword.read(from: file("caf\u{E9} au lait\r\nsecond line")), salt: Data(0..<16), iterations: 1_000)
        let decomposed = try CatalogKey(password: SharePassword.read(from: file("cafe\u{301} au lait\n")), salt: Data(0..<16), iterations: 1_000)
        #expect(composed.check == decomposed.check)
        #expect(throws: SharePasswordError.self) { try SharePassword.read(from: file("seven77\n")) }
        #expect(throws: SharePasswordError.self) { try SharePassword.read(from: file("\nthe password on line two")) }
        #expect(throws: SharePasswordError.self) { try SharePassword.read(from: file("long enough but open", mode: 0o640)) }
        #expect(throws: SharePasswordError.self) { try SharePassword.read(from: folder.path("none").path) }
    }

    @Test func aSealedFileOpensOnlyWithItsKeyAtItsPathAndTheSameFileSealsTheSame() throws {
        let key = try Self.key()
        let page = Data("<h1>Pride and Prejudice</h1>".utf8)
        let sealed = try SealedFile.seal(page, path: "books/101.html", key: key)
        #expect(try SealedFile.open(sealed, path: "books/101.html", key: key) == page)
        #expect(sealed.count == SealedFile.sealedSize(of: page.count))
        #expect(try SealedFile.seal(page, path: "books/101.html", key: key) == sealed, "the same file under the same key: the same bytes")
        #expect(sealed.range(of: Data("Pride".utf8)) == nil)
        // Another file, another nonce; the same file at another path, another nonce too.
        let other = try SealedFile.seal(Data("<h1>Emma</h1>".utf8), path: "books/101.html", key: key)
        #expect(other.prefix(12) != sealed.prefix(12))
        #expect(try SealedFile.seal(page, path: "books/102.html", key: key).prefix(12) != sealed.prefix(12))
        // Refused by GCM's tag, each: another path, another key, a flipped bit.
        #expect { try SealedFile.open(sealed, path: "books/102.html", key: key) } throws: { refusedByTheTag($0) }
        #expect { try SealedFile.open(sealed, path: "books/101.html", key: try Self.key("another password")) } throws: { refusedByTheTag($0) }
        var tampered = sealed
        tampered[20] ^= 1
        #expect { try SealedFile.open(tampered, path: "books/101.html", key: key) } throws: { refusedByTheTag($0) }
        // The empty file, and one that ends in zeros or in the padding's own byte.
        for plain in [Data(), Data([0, 0, 0]), Data([0x80]), Data([0x80, 0])] {
            #expect(try SealedFile.open(try SealedFile.seal(plain, path: "x", key: key), path: "x", key: key) == plain)
        }
    }

    /// Padmé: sizes round up to buckets that grow with the size, at a cost of at most 12%.
    @Test func sizesArePaddedToBuckets() {
        #expect((0...4).map(SealedFile.paddedSize) == [0, 1, 2, 3, 4])
        #expect(SealedFile.paddedSize(9) == 10 && SealedFile.paddedSize(1000) == 1024 && SealedFile.paddedSize(1025) == 1088)
        var last = 0
        for size in 1...70_000 {
            let padded = SealedFile.paddedSize(size)
            #expect(padded >= size && padded >= last && Double(padded) <= Double(size) * 1.12 + 2, "\(size) → \(padded)")
            last = padded
        }
        // Book pages of 9 to 10 kB (one note a little longer than another) share a handful of sizes.
        #expect(Set((9_000...10_000).map(SealedFile.paddedSize)).count <= 4)
    }

    @Test func theWriterSealsWhatVisitorsOpenLeavesOutTheRestAndLinksWhatIsAsItWas() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let key = try Self.key()
        let files = ["index.html": "<h1>Library</h1>", "books/1-emma.html": "<h1>Emma</h1>", "assets/style.css": "body{}",
                     "covers/ab-64.jpg": "jpeg", "library.json": "{}", "feed.xml": "<feed/>", "shelves/1-read.xml": "<feed/>",
                     "markdown/index.md": "# Library", "library.csv": "a,b", "changes.json": "{}", "sw.js": "const SEALED = false;",
                     "opds/index.json": "{}", "library.bib": "@book{a-1}", "sitemap.xml": "<urlset/>", "cards/ab.png": "png", ".reader-snapshot/state": "private"]
        func night(_ name: String, _ files: [String: String], previous: URL?) throws -> (URL, PrivateCatalogWriter.Written) {
            let root = folder.path(name)
            for (path, text) in files {
                let url = root.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                if let previous, FileManager.default.fileExists(atPath: previous.appendingPathComponent(path).path),
                   (try? String(contentsOf: previous.appendingPathComponent(path), encoding: .utf8)) == text {
                    try FileManager.default.linkItem(at: previous.appendingPathComponent(path), to: url)
                } else {
                    try Data(text.utf8).write(to: url)
                }
            }
            let door = Dictionary(uniqueKeysWithValues: PrivateCatalogWriter.door.map { ($0, Data("door \($0)".utf8)) })
            return (root, try PrivateCatalogWriter(key: key, doorFiles: door, formats: OutputFormat.files).write(snapshot: root, previous: previous,
                                                                                                        lastSealed: previous?.appendingPathComponent(PrivateCatalogWriter.folder)))
        }
        let (first, written) = try night("one", files, previous: nil)
        let shared = ["index.html", "books/1-emma.html", "assets/style.css", "covers/ab-64.jpg"]
        #expect(written.files == 4 && written.sealedAnew == 4)
        let sealed = SiteInspector(root: first.appendingPathComponent(PrivateCatalogWriter.folder)).contents()
        #expect(Set(sealed.keys) == Set(shared.map { SealedFile.name(of: $0, key: key) } + PrivateCatalogWriter.door))
        for path in shared {
            #expect(try SealedFile.open(try #require(sealed[SealedFile.name(of: path, key: key)]), path: path, key: key) == Data(files[path]!.utf8))
        }
        #expect(sealed["lock.json"] == key.lock && sealed["sw.js"] == Data("door sw.js".utf8))

        // The next night: one page changed; the rest sealed as it was, linked, not sealed again.
        var next = files
        next["books/1-emma.html"] = "<h1>Emma</h1><p>A note.</p>"
        let (second, again) = try night("two", next, previous: first)
        #expect(again.files == 4 && again.sealedAnew == 1)
        func inode(_ root: URL, _ path: String) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(PrivateCatalogWriter.folder)
                .appendingPathComponent(SealedFile.name(of: path, key: key)).path)[.systemFileNumber] as? Int)
        }
        #expect(try inode(first, "index.html") == inode(second, "index.html"))
        #expect(try inode(first, "books/1-emma.html") != inode(second, "books/1-emma.html"))
    }
}
