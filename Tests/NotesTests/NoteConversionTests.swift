import Foundation
import TestSupport
import Testing
@testable import Notes

/// Rich-text notes as Reader's Trix editor stores them → Markdown, on real-world shapes.
struct NoteConversionTests {
    /// Links into the Reader web app keep their words and lose their address: a shared catalog
    /// names no server. Links elsewhere stay.
    @Test func linksIntoTheServerBecomeTheirWords() {
        let server = URL(string: "https://reader.example.com/")!
        let html = Self.wrap("See <a href=\"/books/12\">Dune</a>, <a href=\"https://reader.example.com/shelves/3\">my shelf</a>, "
                             + "<a href=\"HTTPS://READER.EXAMPLE.COM:443/x\"><em>this</em></a> and <a href=\"https://example.org/\">elsewhere</a>.")
        let note = Note(receiving: html, linkBase: server)
        #expect(note.markdown == "See Dune, my shelf, *this* and [elsewhere](https://example.org/).\n", "\(note.markdown)")
        #expect(!note.markdown.contains("reader.example.com"))
        // Another port is another server.
        let other = Note(receiving: Self.wrap("<a href=\"https://reader.example.com:8443/a\">x</a>"), linkBase: server)
        #expect(other.markdown == "[x](https://reader.example.com:8443/a)\n", "\(other.markdown)")
    }

    static func wrap(_ inner: String) -> String { "<div class=\"trix-content\">\n  <div>\(inner)</div>\n</div>\n" }

    static let cases: [(name: String, html: String, markdown: String)] = [
        ("single line", wrap("Loved it."), "Loved it.\n"),
        ("paragraphs from <br><br>", wrap("Loved it.<br><br>Read again in 2024."), "Loved it.\n\nRead again in 2024.\n"),
        ("line break", wrap("one<br>two"), "one\\\ntwo\n"),
        ("trailing breaks dropped", wrap("Done.<br><br><br>"), "Done.\n"),
        ("link with &amp; in its target", wrap("See <a href=\"https://example.org/a?x=1&amp;y=2\">the guide</a>."),
         "See [the guide](https://example.org/a?x=1&y=2).\n"),
        ("pasted link as its own text", wrap("<a href=\"https://example.org/\">https://example.org/</a>"), "<https://example.org/>\n"),
        ("link target with spaces and parentheses", wrap("<a href=\"https://example.org/a b)\">x</a>"),
         "[x](<https://example.org/a b)>)\n"),
        ("strong, em, del", wrap("<strong>bold</strong> <em>it</em> <del>gone</del>"), "**bold** *it* ~~gone~~\n"),
        ("emphasis keeps its spaces outside", wrap("a<strong> b </strong>c"), "a **b** c\n"),
        ("blockquote with em", "<div class=\"trix-content\">\n  <blockquote>“<em>We learn from failure</em>”</blockquote>\n</div>\n",
         "> “*We learn from failure*”\n"),
        ("pre keeps its text as typed", "<div class=\"trix-content\"><pre>let a = *b*;\n  indented &lt;tag&gt;</pre></div>",
         "```\nlet a = *b*;\n  indented <tag>\n```\n"),
        ("pre with backticks gets a longer fence", "<pre>```</pre>", "````\n```\n````\n"),
        ("unordered list", "<ul><li>one</li><li>two <em>three</em></li></ul>", "- one\n- two *three*\n"),
        ("ordered list", "<ol><li>first</li><li>second</li></ol>", "1. first\n2. second\n"),
        ("nested list", "<ul><li>outer<ul><li>inner</li></ul></li></ul>", "- outer\n  - inner\n"),
        ("heading", "<div class=\"trix-content\"><h1>Reading group</h1><div>Thursdays</div></div>", "# Reading group\n\nThursdays\n"),
        ("entities and markup-like text stay text", wrap("Tom &amp; Jerry &lt;3 *stars* [1] _x_ &lt;script&gt;"),
         "Tom & Jerry \\<3 \\*stars\\* \\[1\\] \\_x\\_ \\<script\\>\n"),
        ("line-start syntax is escaped", wrap("# not a heading<br>- not a list<br>1. not a list"),
         "\\# not a heading\\\n\\- not a list\\\n1\\. not a list\n"),
        ("no-break space kept", wrap("p.&nbsp;112"), "p.\u{00A0}112\n"),
        ("emptied note", "<div class=\"trix-content\">\n  \n</div>\n", ""),
        ("doubly wrapped", "<div class=\"trix-content\">\n  <div class=\"trix-content\">\n  <div>Inner</div>\n</div>\n</div>\n", "Inner\n"),
        ("script and style bodies are not words", wrap("Hi<script>alert(1)</script><style>p{}</style> there"), "Hi there\n"),
        ("unknown elements keep their text", wrap("<span>kept</span> <font>too</font> <u>and</u> this"), "kept too and this\n"),
    ]

    @Test(arguments: cases.indices)
    func richTextBecomesMarkdown(_ index: Int) {
        let (name, html, markdown) = Self.cases[index]
        let note = Note(receiving: html)
        #expect(note.markdown == markdown, "\(name)")
    }

    @Test func emptyAndNullNotes() {
        #expect(Note(receiving: nil).format == .none)
        #expect(Note(receiving: nil).source == nil)
        #expect(Note(receiving: "").format == .none)
        #expect(Note(receiving: "").isEmpty)
        #expect(Note(receiving: "<div class=\"trix-content\">\n  \n</div>\n").format == .richText)
        #expect(Note(receiving: "<div class=\"trix-content\">\n  \n</div>\n").isEmpty)
    }

    @Test func plainTextKeepsItsLinesAndCharacters() {
        let note = Note(receiving: "First *line* & <b>\nsecond line\n\n# third")
        #expect(note.format == .plainText)
        #expect(note.markdown == "First \\*line\\* & \\<b\\>\\\nsecond line\n\n\\# third\n")
        let html = note.html
        #expect(html.contains("First *line* &amp; &lt;b&gt;<br />"))
        #expect(html.contains("<p># third</p>"))
    }

    /// The golden "everything" note: every construct at once, through Markdown to cmark-gfm's HTML.
    @Test func everythingNoteMatchesItsGoldenFiles() throws {
        let html = try Fixtures.text("everything-note.html")
        let note = Note(receiving: html)
        #expect(note.markdown == (try Fixtures.text("everything-note.md")))
        #expect(note.html == (try Fixtures.text("everything-note.rendered.html")))
    }

    @Test func deepNestingIsBoundedAndKeepsTheText() {
        let depth = 5000
        let html = String(repeating: "<div><em>", count: depth) + "deep words" + String(repeating: "</em></div>", count: depth)
        let note = Note(receiving: html)
        #expect(note.markdown.contains("deep words"))
    }
}
