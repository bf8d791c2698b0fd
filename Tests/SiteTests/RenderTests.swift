import Foundation
import SampleServer
import TestSupport
import Testing
@testable import LibraryArchive
@testable import Notes
@testable import Site
@testable import SnapshotStore
@testable import Support

/// Rendering a small Library with the bundled templates, no network.
struct RenderTests {
    @Test func rendersEveryPageWithTextEscaped() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let templates = try await TemplateSet.bundled()
        try SiteRenderer(templates: templates).render(SmallLibrary.hostile(), into: SnapshotWriter(root: folder.url))
        let site = SiteInspector(root: folder.url)
        let files = site.files()
        #expect(files.contains("index.html") && files.contains("books.html") && files.contains("library.json"))
        #expect(files.contains("shelves/1-sci-fi-b-more-b.html") && files.contains("shelves/2.html"))
        #expect(files.contains("books/7-dune-script-alert-1-script.html") && files.contains("books/9-lost.html"))
        #expect(files.contains("markdown/books/8-not-a-heading.md") && files.contains("assets/style.css"))

        let book = try #require(site.text("books/7-dune-script-alert-1-script.html"))
        #expect(!book.contains("<script>"))
        #expect(book.contains("Dune &quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;"))
        #expect(book.contains("<p>Loved <em>it</em>.</p>"))
        #expect(book.contains("<a href=\"\">x</a>"))
        let shelf = try #require(site.text("shelves/1-sci-fi-b-more-b.html"))
        #expect(shelf.contains("Sci-Fi &lt;b&gt;&amp; more&lt;/b&gt;"))
        let index = try #require(site.text("index.html"))
        #expect(index.contains("Not on any shelf") && index.contains("books/9-lost.html"))
        #expect(index.contains("2024-05-06 07:08 UTC"))

        let markdown = try #require(site.text("markdown/books/8-not-a-heading.md"))
        #expect(markdown.hasPrefix("---\nid: 8\ntitle: \"# Not: a heading\\n---\"\nauthor: null\n"))
        #expect(markdown.contains("\n# \\# Not: a heading ---\n"), "\(markdown)")
        let markdownIndex = try #require(site.text("markdown/index.md"))
        #expect(markdownIndex.hasPrefix("# Library of me+\\<img src=x onerror=alert(1)\\>@example.com\n"), "\(markdownIndex.prefix(80))")
        let lost = try #require(site.text("markdown/books/9-lost.md"))
        #expect(lost.contains("could not be read"))
    }

    /// A book whose details the server did not give says so once on its page, with the day it
    /// began, where its details would be: not again under its notes nor among its gaps. Its footer
    /// has the snapshot's date as the index's has it, from `assets/taken.js`: the page itself stays
    /// undated, so that a night links it from the last snapshot while the book is unchanged.
    @Test func aBookWithoutDetailsSaysSoOnceAndItsFooterIsDated() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var library = SmallLibrary.hostile()
        library.problems = [Problem(kind: .bookDetails, bookID: 9, message: Problem.words(.bookDetails, since: "2024-05-01", kept: false), since: "2024-05-01"),
                            Problem(kind: .cover, bookID: 9, message: Problem.words(.cover, since: "2024-05-02", kept: false), since: "2024-05-02")]
        try SiteRenderer(templates: try await TemplateSet.bundled()).render(library, into: SnapshotWriter(root: folder.url))
        let site = SiteInspector(root: folder.url)
        let page = try #require(site.text("books/9-lost.html"))
        let warnings = SiteInspector.matches(of: #"<p class="warning">([^<]*)</p>"#, in: page)
        #expect(warnings == ["The server could not give this book&#39;s details since 2024-05-01; what is shown comes from its list of books, without its notes.",
                             "The cover could not be fetched since 2024-05-02."], "\(warnings)")
        #expect(!page.contains("The notes could not be read") && !page.contains("id=\"note-heading\""), "\(page)")
        // The index names the gap as before: it is the book's page that says it once.
        #expect(site.text("index.html")?.contains("The details could not be fetched since 2024-05-01.") == true)

        #expect(page.contains(", <span id=\"taken\" hidden></span>with reader-snapshot.</p>"), "\(page)")
        #expect(page.contains("<script src=\"../assets/taken.js\" defer></script>"), "\(page)")
        #expect(site.text("index.html")?.contains(", taken 2024-05-06 07:08 UTC with reader-snapshot.</p>") == true)
        let script = try #require(site.text("assets/taken.js"))
        #expect(script.contains(#"taken.textContent = "taken 2024-05-06 07:08 UTC ";"#), "\(script)")
        // A book with its details keeps its notes section.
        #expect(site.text("books/8-not-a-heading.html")?.contains("id=\"note-heading\"") == true)
    }

    /// Rendering from `library.json` reads each book again from the file: every format must come
    /// out byte for byte as it does from the library in memory.
    /// `SmallLibrary.hostile()` and 30 books more, on both shelves, by four authors and none, over nine months.
    static func libraryOfThirtyThree() -> Library {
        var library = SmallLibrary.hostile()
        for id in 10..<40 {
            library.books.append(Book(id: id, title: "Book \(40 - id) ü", author: id % 3 == 0 ? nil : "Author \(id % 4)", shelfID: id % 2 == 0 ? 1 : 2,
                                      createdAt: "2024-0\(id % 9 + 1)-01T00:00:00.000Z",
                                      note: Note(receiving: id % 2 == 0 ? "<div>Note <strong>\(id)</strong></div>" : nil)))
            library.shelves[id % 2 == 0 ? 0 : 1].bookIDs.append(id)
        }
        return library
    }

    /// The chart of books added per year keeps every year on its axis: 2025, when no book was
    /// added, stands between 2024 and 2026, with no bar and no link (it has no page).
    @Test func theStatsChartKeepsAYearWithoutBooksInItsPlace() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var library = SmallLibrary.hostile()
        for (id, year) in [(40, 2024), (41, 2026), (42, 2026)] {
            library.books.append(Book(id: id, title: "Book \(id)", author: "Author", shelfID: 1, createdAt: "\(year)-03-01T00:00:00.000Z"))
            library.shelves[0].bookIDs.append(id)
        }
        try SiteRenderer(templates: try await TemplateSet.bundled()).render(library, into: SnapshotWriter(root: folder.url))
        let site = SiteInspector(root: folder.url)
        let stats = try #require(site.text("stats.html"))
        let chart = try #require(stats.range(of: "<svg class=\"chart\" viewBox=\"0 0 ").map { String(stats[$0.lowerBound...]) })
        let labels = chart.components(separatedBy: "text-anchor=\"middle\">").dropFirst().map { $0.prefix { $0 != "<" } }
        let years = labels.filter { $0.count == 4 && Int($0) != nil }.map(String.init)
        #expect(years.first == "2024" && years.last == "2026" && years.contains("2025"), "\(years)")
        #expect(Set(years) == Set((Int(years.first ?? "0")!...Int(years.last ?? "0")!).map(String.init)), "a year is missing: \(years)")
        #expect(!stats.contains("years/2025.html"), "an empty year links a page it does not have")
        #expect(!site.files().contains("years/2025.html"))
        #expect(stats.contains("years/2024.html") && stats.contains("years/2026.html"))
    }

    /// A shelf's page does not repeat the shelf's name on each of its cards; the lists of all books
    /// (and a shelf that lists a book kept on another) do say it, and every card still says its note.
    @Test func aShelfsCardsDoNotRepeatItsName() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var library = SmallLibrary.hostile()
        library.shelves[0].name = "Wintergarden"
        library.shelves[1].name = "Summerhouse"
        library.books.append(Book(id: 40, title: "Kept elsewhere", author: "Author", shelfID: 2, note: Note(receiving: "<div>A note.</div>")))
        library.shelves[1].bookIDs.append(40)
        library.books.append(Book(id: 41, title: "Listed twice", author: "Author", shelfID: 1))
        library.shelves[0].bookIDs.append(41)
        library.shelves[1].bookIDs.append(41)
        try SiteRenderer(templates: try await TemplateSet.bundled()).render(library, into: SnapshotWriter(root: folder.url))
        let site = SiteInspector(root: folder.url)
        func metas(_ page: String) -> [String] {
            (site.text(page) ?? "").components(separatedBy: "<span class=\"book-meta\">").dropFirst().map { String($0.prefix(200)) }
        }
        let first = try #require(site.files().first { $0.hasPrefix("shelves/1-") && $0.hasSuffix(".html") })
        let second = try #require(site.files().first { $0.hasPrefix("shelves/2-") && $0.hasSuffix(".html") })
        #expect(!metas(first).isEmpty && metas(first).allSatisfy { !$0.contains("Wintergarden") }, "\(metas(first))")
        #expect(metas(first).contains { $0.hasPrefix("notes") }, "a card still says its note: \(metas(first))")
        // The second shelf lists a book kept on the first: its cards say where each is.
        #expect(metas(second).contains { $0.contains("Wintergarden") } && metas(second).contains { $0.contains("Summerhouse") }, "\(metas(second))")
        #expect(metas("books.html").contains { $0.contains("Wintergarden") })
    }

    /// Pages of many books (a year's at 100,000 books) are made one after another in one job, not
    /// two at once: the same pages, whichever way they are made.
    @Test func bigPagesMadeOneAfterAnotherAreTheSamePages() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let library = Self.libraryOfThirtyThree()
        var renderer = SiteRenderer(templates: try await TemplateSet.bundled(), siteURL: URL(string: "https://books.example.org/"))
        try renderer.render(library, into: SnapshotWriter(root: folder.path("apart")))
        // Every shelf's, author's and year's page is big now.
        renderer.bigPageBooks = 0
        try renderer.render(library, into: SnapshotWriter(root: folder.path("together")))
        let apart = SiteInspector(root: folder.path("apart")), together = SiteInspector(root: folder.path("together"))
        #expect(apart.files() == together.files())
        for kind in ["years/", "authors/", "shelves/", "markdown/years/", "markdown/authors/", "markdown/shelves/"] {
            #expect(apart.files().contains { $0.hasPrefix(kind) }, "\(kind)")
        }
        for path in apart.files() {
            #expect(apart.data(path) == together.data(path), "\(path)")
        }
    }

    @Test func aLibraryReadFromItsFileRendersTheSameFiles() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let templates = try await TemplateSet.bundled()
        let library = Self.libraryOfThirtyThree()
        var previous = library
        previous.books.removeLast(3)
        previous.generatedAt = "2024-05-01T00:00:00Z"
        let changes = ChangeReport.compare(previous: previous, current: library)
        let renderer = SiteRenderer(templates: templates, siteURL: URL(string: "https://books.example.org/mine/"))
        try renderer.render(library, changes: changes, into: SnapshotWriter(root: folder.path("memory")))
        let read = try LibraryFile.read(from: folder.path("memory").appendingPathComponent("library.json"))
        #expect(Array(read.entries) == library.books.map(BookEntry.init))
        #expect(try read.library() == library)
        try renderer.render(read, changes: changes, into: SnapshotWriter(root: folder.path("file")))

        let memory = SiteInspector(root: folder.path("memory")), file = SiteInspector(root: folder.path("file"))
        #expect(memory.files() == file.files())
        #expect(memory.files().count > 80)
        for path in memory.files() {
            #expect(memory.data(path) == file.data(path), "\(path)")
        }
    }

    @Test func theListOfAllBooksIsSplitIntoPages() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var renderer = SiteRenderer(templates: try await TemplateSet.bundled(), siteURL: URL(string: "https://books.example.org/"))
        renderer.booksPerPage = 2
        try renderer.render(SmallLibrary.hostile(), into: SnapshotWriter(root: folder.url))
        let site = SiteInspector(root: folder.url)
        #expect(site.files().filter { $0.hasPrefix("books") && $0.hasSuffix(".html") && !$0.contains("/") } == ["books-2.html", "books.html"])
        let first = try #require(site.text("books.html")), second = try #require(site.text("books-2.html"))
        let links = { (html: String) in SiteInspector.links(inHTML: html).filter { $0.hasPrefix("books/") } }
        // Every book once, in title order, across the pages.
        #expect(links(first) == ["books/8-not-a-heading.html", "books/7-dune-script-alert-1-script.html"])
        #expect(links(second) == ["books/9-lost.html"])
        #expect(first.contains("href=\"books-2.html\" rel=\"next\"") && !first.contains("rel=\"prev\""))
        #expect(second.contains("href=\"books.html\" rel=\"prev\"") && second.contains("<span aria-current=\"page\">2</span>"))
        #expect(second.contains("Books 3–3 on page 2 of 2"))
        let sitemap = try #require(site.text("sitemap.xml"))
        #expect(sitemap.contains("<loc>https://books.example.org/books-2.html</loc>"))
    }

    @Test func missingAndBrokenTemplatesAreNamed() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        await #expect(throws: SnapshotError.self) { try await TemplateSet.load(from: folder.path("nowhere")) }

        let bundled = try #require(TemplateSet.bundledDirectory)
        let copy = folder.path("copy")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        for part in ["html", "markdown", "assets"] {
            try FileManager.default.copyItem(at: bundled.appendingPathComponent(part), to: copy.appendingPathComponent(part))
        }
        try FileManager.default.removeItem(at: copy.appendingPathComponent("markdown/shelf.mustache"))
        do {
            _ = try await TemplateSet.load(from: copy)
            Issue.record("a missing template was accepted")
        } catch let error as SnapshotError {
            #expect(error.description.contains("markdown/shelf.mustache is missing"))
        }
        try "line one\nline {{#two}} open\n".write(to: copy.appendingPathComponent("markdown/shelf.mustache"), atomically: true, encoding: .utf8)
        do {
            _ = try await TemplateSet.load(from: copy)
            Issue.record("a broken template was accepted")
        } catch let error as SnapshotError {
            #expect(error.description.contains("markdown/shelf.mustache:"), "\(error)")
        }
    }

    @Test func writesStayInsideTheSnapshot() throws {
        let writer = SnapshotWriter(root: URL(fileURLWithPath: "/tmp/snapshot-root"))
        for bad in ["../x", "a/../../x", "/etc/passwd", "", "a//b", "./x", "a/", "a/.", "a/..", "/", "x\0y", "a/./b", "..", "."] {
            #expect(throws: SnapshotError.self, "\(bad)") { _ = try writer.url(for: bad) }
            #expect(throws: SnapshotError.self, "\(bad)") { try writer.write(Data("x".utf8), to: bad) }
        }
        #expect(try writer.url(for: "books/1-dune.html").path == "/tmp/snapshot-root/books/1-dune.html")
        for good in ["...", ".hidden", "a..b", "a/.../b", "é.́/x"] {
            #expect(try writer.path(for: good) == "/tmp/snapshot-root/" + good)
        }
    }

    @Test func libraryJSONRoundTrips() throws {
        let library = SmallLibrary.hostile()
        let data = try library.jsonData()
        let decoded = try JSONDecoder().decode(Library.self, from: data)
        #expect(decoded == library)
        #expect(try decoded.jsonData() == data)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"schema_version\" : 1"))
    }
}
