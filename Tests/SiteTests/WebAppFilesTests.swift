import Foundation
import LibraryArchive
import Notes
import SnapshotStore
import TestSupport
import Testing
@testable import Site

/// What makes the catalog a web app: the manifest, its icons, the worker at the top, and the list
/// of what the worker keeps, each file with the version it is fetched again by.
@Suite struct WebAppFilesTests {
    static func object(_ text: String?) throws -> [String: Any] {
        let text = try #require(text)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func theManifestIconsWorkerAndOfflineListAreWrittenWithTheSite() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var library = RenderTests.libraryOfThirtyThree()
        library.title = "Our \"books\" & more"
        try SiteRenderer(templates: try await TemplateSet.bundled()).render(library, into: SnapshotWriter(root: folder.url))
        let site = SiteInspector(root: folder.url)

        let manifest = try Self.object(site.text("manifest.webmanifest"))
        #expect(manifest["name"] as? String == "Our \"books\" & more")
        #expect(manifest["short_name"] as? String == "Our \"books\"…", "at most twelve characters under an icon")
        // Relative: the catalog works under any path of any host.
        #expect(manifest["start_url"] as? String == "index.html" && manifest["scope"] as? String == "./" && manifest["display"] as? String == "standalone")
        let icons = try #require(manifest["icons"] as? [[String: String]])
        #expect(icons.map { $0["sizes"] } == ["192x192", "512x512"])
        for icon in icons {
            let source = try #require(icon["src"])
            let png = try #require(site.data(source))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(icon)")
            let side = Int(png[16..<20].reduce(0) { $0 << 8 | UInt32($1) })
            #expect("\(side)x\(side)" == icon["sizes"])
        }
        #expect(site.text("sw.js")?.contains("addEventListener(\"fetch\"") == true, "the worker is at the top, where its scope starts")
        #expect(site.text("assets/sw.js") == nil)
        #expect(site.text("index.html")?.contains("assets/offline.js") == true)

        let list = try Self.object(site.text("offline.json"))
        #expect(list["snapshot"] as? String == library.generatedAt && list["books"] as? Int == 33 && list["whole"] as? Bool == true)
        // The worker asks for the id alone at every page opened.
        let id = try #require(list["id"] as? String)
        #expect(id.count == 16 && site.text("offline-id.json") == "{\"id\":\"\(id)\"}\n")
        let shell = try #require(list["shell"] as? [[String]])
        let pages = try #require(list["pages"] as? [[String]])
        let shellPaths = Set(shell.map { $0[0] })
        for path in ["index.html", "books.html", "authors.html", "stats.html", "lookup.html", "manifest.webmanifest", "assets/style.css",
                     "assets/search.js", "assets/lookup.js", "assets/offline.js", "assets/search/manifest.js", "assets/lookup/manifest.js"] {
            #expect(shellPaths.contains(path), "\(path) is not in the shell")
        }
        // Every file listed is there; every book's page is listed once, with its cover.
        for entry in shell + pages {
            #expect(FileManager.default.fileExists(atPath: folder.url.appendingPathComponent(entry[0]).path), "\(entry[0])")
            if entry.count > 2 { #expect(FileManager.default.fileExists(atPath: folder.url.appendingPathComponent(entry[2]).path), "\(entry[2])") }
        }
        let bookPages = pages.filter { $0[0].hasPrefix("books/") }
        #expect(bookPages.count == 33 && Set(bookPages.map { $0[0] }).count == 33)
        #expect(bookPages.allSatisfy { !$0[1].isEmpty })
        #expect(pages.contains { $0[0].hasPrefix("shelves/") } && pages.contains { $0[0].hasPrefix("authors/") } && pages.contains { $0[0].hasPrefix("years/") })
    }

    /// Above `--offline-books`, the list says the catalog is not kept whole, which the worker reads
    /// (then it keeps pages as they are opened); at the count, it is whole.
    @Test(arguments: [(32, false), (33, true)])
    func aLibraryAboveTheBooksKeptForOfflineIsKeptAsItIsOpened(_ count: Int, _ whole: Bool) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var site = SiteIdentity(templates: try await TemplateSet.bundled())
        site.offlineBooks = count
        try SiteRenderer(site: site).render(RenderTests.libraryOfThirtyThree(), into: SnapshotWriter(root: folder.url))
        let list = try Self.object(SiteInspector(root: folder.url).text("offline.json"))
        #expect(list["books"] as? Int == 33 && list["whole"] as? Bool == whole)
    }

    /// A file linked from the last snapshot keeps the version its list gave it, unread; a file
    /// written again is read and gets the digest of its bytes.
    @Test func aFileLinkedFromTheLastSnapshotKeepsItsVersionUnread() async throws {
        let templates = try await TemplateSet.bundled()
        let library = RenderTests.libraryOfThirtyThree()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let first = folder.url.appendingPathComponent("first"), second = folder.url.appendingPathComponent("second")
        try SiteRenderer(templates: templates).render(library, into: SnapshotWriter(root: first))
        let written = try #require(SiteInspector(root: first).text("offline.json"))
        let page = try #require(written.split(separator: "\n").first { $0.hasPrefix("[\"books/") })
        let version = try #require(page.split(separator: "\"").dropFirst(3).first)
        // The last list says what no digest of these bytes gives: the next render takes it as it is.
        let planted = version == "0123456789abcdef" ? "fedcba9876543210" : "0123456789abcdef"
        try Data(written.replacingOccurrences(of: String(page), with: String(page).replacingOccurrences(of: String(version), with: planted)).utf8)
            .write(to: first.appendingPathComponent("offline.json"))
        try SiteRenderer(templates: templates).render(library, into: SnapshotWriter(root: second, previous: first))
        let again = try #require(SiteInspector(root: second).text("offline.json"))
        #expect(again.contains("\"\(planted)\""))
        // Apart from that version, and the id of the whole it is part of, the same list.
        #expect(again.replacingOccurrences(of: planted, with: String(version)).split(separator: "\n").dropFirst()
                == written.split(separator: "\n").dropFirst())

        // A version that is not one this tool writes is not taken: the page is read and digested.
        let third = folder.url.appendingPathComponent("third")
        try Data(written.replacingOccurrences(of: String(page), with: String(page).replacingOccurrences(of: String(version), with: "as-the-last-list-said")).utf8)
            .write(to: second.appendingPathComponent("offline.json"))
        try SiteRenderer(templates: templates).render(library, into: SnapshotWriter(root: third, previous: second))
        #expect(try #require(SiteInspector(root: third).text("offline.json")) == written)
    }

    /// A version read back from a list is the one written: 16 lowercase hexadecimal digits, and
    /// nothing else (not capitals, a sign, or another length).
    @Test func aVersionIsSixteenLowercaseHexDigits() {
        for text in ["0123456789abcdef", "ffffffffffffffff", "0000000000000000"] {
            #expect(WebApp.Version(text: text)?.text == text, "\(text)")
        }
        for text in ["0123456789ABCDEF", "+123456789abcdef", "-123456789abcdef", "0123456789abcde", "0123456789abcdef0", "0123456789abcdeg", ""] {
            #expect(WebApp.Version(text: text) == nil, "\(text)")
        }
    }

    /// The last list is read a line at a time: every entry's version is found by its path, the
    /// first and last of each part among them (their lines also close the lists around them).
    @Test func theLastListsVersionsAreReadEntryByEntry() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try SiteRenderer(templates: try await TemplateSet.bundled()).render(RenderTests.libraryOfThirtyThree(), into: SnapshotWriter(root: folder.url))
        let url = folder.url.appendingPathComponent("offline.json")
        let list = try Self.object(SiteInspector(root: folder.url).text("offline.json"))
        let shell = try #require(list["shell"] as? [[String]]), pages = try #require(list["pages"] as? [[String]])
        let last = try #require(WebApp.LastVersions(list: url))
        let versioned = (shell + pages).filter { !$0[1].isEmpty }
        #expect(versioned.count > 40 && versioned.first?[0] == shell.first?[0] && versioned.last?[0] == pages.last?[0])
        for entry in versioned { #expect(last.version(of: entry[0])?.text == entry[1], "\(entry[0])") }
        #expect(last.version(of: "books/no-such-book.html") == nil)

        // Laid out otherwise (here on one line), the list gives no version at all.
        let text = try String(contentsOf: url, encoding: .utf8)
        try Data(text.replacingOccurrences(of: "\n", with: "").utf8).write(to: url)
        let flat = try #require(WebApp.LastVersions(list: url))
        #expect(versioned.allSatisfy { flat.version(of: $0[0]) == nil })
        // Not JSON where an entry should be: none either.
        try Data(text.replacingOccurrences(of: "[\"index.html\",", with: "[index.html,").utf8).write(to: url)
        #expect(WebApp.LastVersions(list: url) == nil)
    }

    /// The icons drawn with the same letter are linked from the last snapshot, not drawn again,
    /// whichever build drew them (a night that makes no image, the first after an upgrade too, then
    /// never loads libvips); another letter draws them, and so does a render that reuses nothing.
    /// Told by bytes planted in the last snapshot's icons: a link carries them over, a drawing does not.
    @Test func theIconsOfTheLastSnapshotAreLinkedWhileTheirLetterIsTheSame() async throws {
        let templates = try await TemplateSet.bundled()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let icons = WebApp.iconSizes.map(WebApp.iconFile)
        func render(_ name: String, title: String, build: String?, after last: (URL, PageDigestTable)?) throws -> (URL, PageDigestTable) {
            let root = folder.url.appendingPathComponent(name)
            var library = RenderTests.libraryOfThirtyThree()
            library.title = title
            var renderer = SiteRenderer(templates: templates)
            renderer.pages = PageDigests(previous: last?.1 ?? PageDigestTable(), seed: build)
            return (root, try renderer.render(library, into: SnapshotWriter(root: root, previous: last?.0)).digests)
        }
        func icon(_ root: URL, _ path: String) throws -> Data { try Data(contentsOf: root.appendingPathComponent(path)) }
        let first = try render("first", title: "Books", build: "this build", after: nil)
        for path in icons {
            let size = try icon(first.0, path).count
            #expect(size > 100, "\(path): \(size) bytes")
            try Data(repeating: 0x42, count: size).write(to: first.0.appendingPathComponent(path))
        }
        let planted = try icons.map { try icon(first.0, $0) }
        for (name, title, build) in [("linked", "Bookshelf", "this build"), ("upgraded", "Books", "another build")] {
            let linked = try render(name, title: title, build: build, after: first)
            #expect(try icons.map { try icon(linked.0, $0) } == planted, "the same letter, \(name): linked")
        }
        for (name, title, build) in [("letter", "Catalog", "this build"), ("full", "Books", nil)] {
            let drawn = try render(name, title: title, build: build, after: first)
            for (path, bytes) in zip(icons, planted) {
                #expect(try icon(drawn.0, path) != bytes, "\(name): \(path) drawn")
            }
        }
        // Another drawing, like another letter or size, is another icon: it is drawn, not linked.
        let digest = WebApp.iconDigest(letter: "B", size: 192)
        #expect(WebApp.iconDigest(letter: "B", size: 192, drawing: WebApp.iconDrawing + " changed") != digest)
        #expect(WebApp.iconDigest(letter: "C", size: 192) != digest && WebApp.iconDigest(letter: "B", size: 512) != digest)
    }

    /// A page's version follows what it shows: the same library gives the same list, and one note
    /// changed changes its book's version and not another book's.
    @Test func versionsChangeWithWhatAPageShowsAndNothingElse() async throws {
        let templates = try await TemplateSet.bundled()
        func list(_ library: Library) throws -> [String: String] {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            try SiteRenderer(templates: templates).render(library, into: SnapshotWriter(root: folder.url))
            let list = try Self.object(SiteInspector(root: folder.url).text("offline.json"))
            let pages = try #require(list["pages"] as? [[String]])
            let shell = try #require(list["shell"] as? [[String]])
            let entries = pages + shell
            return Dictionary(entries.map { ($0[0], $0[1]) }, uniquingKeysWith: { first, _ in first })
        }
        let library = RenderTests.libraryOfThirtyThree()
        let first = try list(library)
        #expect(try list(library) == first)
        var edited = library
        let index = try #require(edited.books.firstIndex { $0.id == 12 })
        edited.books[index].note = Note(receiving: "<div>A new thought.</div>")
        let second = try list(edited)
        let changed = Set(second.keys.filter { second[$0] != first[$0] })
        let book = try #require(changed.first { $0.hasPrefix("books/12-") }, "\(changed.sorted())")
        #expect(!changed.contains { $0.hasPrefix("books/") && $0 != book }, "\(changed.sorted())")
        #expect(changed.count < 15, "\(changed.sorted())")
    }
}

