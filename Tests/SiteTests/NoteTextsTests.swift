import Foundation
import TestSupport
import Testing
@testable import LibraryArchive
@testable import Notes
@testable import Site
@testable import SnapshotStore

/// A note is read and parsed once a render, and every output shows what that one parse made: the
/// book page and the feeds its HTML, the search, the lookup, the link preview and the OPDS catalog
/// its plain text.
struct NoteTextsTests {
    static let base = "https://example.org/books/"

    /// The thirty-three books and one whose note links an edition, with struck-out words.
    static func library() -> Library {
        var library = RenderTests.libraryOfThirtyThree()
        library.books.append(Book(id: 50, title: "Persuasion", author: "Jane Austen", isbn: "9780141439686", shelfID: 1,
                                  createdAt: "2024-09-30T00:00:00.000Z",
                                  note: Note(receiving: "<div>Read <a href=\"https://editions.example.com/penguin\">the Penguin edition</a> first. "
                                      + "<s>Old</s> New.</div>")))
        library.shelves[0].bookIDs.append(50)
        return library
    }

    static func notes(in library: Library) -> Int {
        library.books.filter { !$0.note.markdown.isEmpty }.count
    }

    @Test func everyOutputShowsWhatOneParseOfTheNoteMade() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let library = Self.library()
        let rendered = try SiteRenderer(templates: try await TemplateSet.bundled(), siteURL: URL(string: Self.base))
            .render(library, into: SnapshotWriter(root: folder.url))
        #expect(rendered.notesParsed == Self.notes(in: library) && rendered.notesParsed > 10, "\(rendered.notesParsed)")

        let site = SiteInspector(root: folder.url)
        let page = try #require(site.text("books/50-persuasion.html"))
        let html = #"<p>Read <a href="https://editions.example.com/penguin">the Penguin edition</a> first. <del>Old</del> New.</p>"#
        #expect(page.contains(html))
        // The feed shows the HTML the page does, from the same parse.
        #expect(try #require(site.text("feed.xml")).contains(AtomFeed.escape(html)))
        #expect(try #require(site.text("shelves/1-sci-fi-b-more-b.xml")).contains(AtomFeed.escape(html)))

        // The plain text: a link's words without its address, wherever it is shown.
        let text = "Read the Penguin edition first. ~Old~ New."
        #expect(SiteInspector.metaTags(page)["og:description"] == "By Jane Austen, on the shelf Sci-Fi &lt;b&gt;&amp; more&lt;/b&gt;. Read the Penguin edition first.")
        #expect(try #require(site.text("opds/books.xml")).contains("<summary type=\"text\">\(text)</summary>"))
        let lookup = site.files().filter { $0.hasPrefix("assets/lookup/l-") }.compactMap(site.text).joined()
        #expect(lookup.contains("\"\(text)\"") && !lookup.contains("editions.example.com"))
        let search = site.files().filter { $0.hasPrefix("assets/search/t-") }.compactMap(site.text).joined()
        #expect(search.contains("\"penguin\"") && !search.contains("\"editions\""))
    }

    /// A night whose pages are all linked from the last snapshot still parses each note once, for
    /// the plain text the search and the OPDS catalog show; formats that show only the Markdown
    /// parse none.
    @Test func aNoteIsParsedOnlyForAnOutputThatShowsMoreThanItsMarkdown() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let library = Self.library()
        let templates = try await TemplateSet.bundled()
        var renderer = SiteRenderer(templates: templates)
        renderer.pages = PageDigests(seed: "this build")
        let first = try renderer.render(library, into: SnapshotWriter(root: folder.path("first")))
        renderer.pages = PageDigests(previous: first.digests, seed: "this build")
        let second = try renderer.render(library, into: SnapshotWriter(root: folder.path("second"), previous: folder.path("first")))
        #expect(second.linked == second.pages && second.pages > 0)
        #expect(first.notesParsed == Self.notes(in: library) && second.notesParsed == first.notesParsed)
        #expect(try SiteInspector(root: folder.path("second")).text("feed.xml") == SiteInspector(root: folder.path("first")).text("feed.xml"))

        let markdownOnly = try SiteRenderer(templates: templates, formats: [.markdown, .csv, .bibtex, .json])
            .render(library, into: SnapshotWriter(root: folder.path("markdown")))
        #expect(markdownOnly.notesParsed == 0)
        let csv = try #require(SiteInspector(root: folder.path("markdown")).text("library.csv"))
        #expect(csv.contains("[the Penguin edition](https://editions.example.com/penguin) first. ~~Old~~ New."))
    }
}
