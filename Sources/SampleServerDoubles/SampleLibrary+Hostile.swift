import Foundation
import SampleServer

extension SampleLibrary {
    /// Every kind of hostile input a server could send: markup in names and notes, scripts in link
    /// targets, control characters and direction overrides, a 1 MB title, a 10 MB note, markup
    /// nested 10,000 deep, bytes that are not UTF-8, and cover URLs that lead where they must not.
    public static func hostile() throws -> SampleLibrary {
        let base = try bundled()
        let wrap = { (inner: String) in "<div class=\"trix-content\">\n  <div>\(inner)</div>\n</div>\n" }
        let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" onload="alert('svg')"><script>alert('svg')</script></svg>"#.utf8)
        var covers = base.coverFiles
        covers["evil.svg"] = svg
        let markupNote = wrap("""
            <script>alert('note')</script><p onclick="alert('click')">Click me</p>\
            <a href="javascript:alert('js')">js link</a> <a href="vbscript:msgbox(1)">vb link</a> \
            <a href="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;">data link</a> \
            <a href="JaVaScRiPt:alert(2)">mixed case</a> <a href="&#106;avascript:alert(3)">entity link</a> \
            <a href=" javascript:alert(4)">spaced link</a> <img src=x onerror="alert('img')"> \
            <iframe src="javascript:alert('frame')"></iframe><style>body{display:none}</style>\
            &lt;script&gt;alert('entity')&lt;/script&gt; <svg><script>alert('inner svg')</script></svg>\
            <object data="evil.swf"></object><embed src="evil.swf"><form action="https://evil.example/"><input name=q></form>\
            <base href="https://evil.example/"><meta http-equiv="refresh" content="0;url=https://evil.example/">Words after all that.
            """)
        let deep = String(repeating: "<div><em>", count: 10_000) + "deep words" + String(repeating: "</em></div>", count: 10_000)
        let bigNote = wrap(String(repeating: "A long note line with <strong>markup</strong> &amp; entities.<br>", count: 160_000))
        let shelves = [
            Shelf(id: 1, name: "Hostile <b>shelf</b> & \"quotes\""),
            Shelf(id: 2, name: "</title><script>alert('shelf')</script>"),
            Shelf(id: 3, name: "\u{202E}desreveR shelf\u{0007}"),
            Shelf(id: 4, name: "../../etc"),
        ]
        func book(_ id: Int, _ title: String, author: JSONScalar = .string("Mallory"), isbn: JSONScalar = .string("9780000000000"),
                  shelf: Int, comments: String, cover: Cover?) -> Book {
            Book(id: id, title: title, author: author, isbn: isbn, shelfID: shelf, createdAt: "2024-06-01T10:00:00.000Z",
                 updatedAt: "2024-06-01T10:00:00.000Z", comments: comments, cover: cover)
        }
        let books = [
            book(1, "<script>alert(\"title\")</script>", author: .string("\"><img src=x onerror=alert('author')>"),
                 isbn: .string("<svg onload=alert('isbn')>"), shelf: 1, comments: markupNote, cover: .external("javascript:alert('cover')")),
            book(2, "Harmless \u{202E}gpj.exe\u{0007}\u{001B}[31m red", shelf: 3, comments: wrap("Bidi and control characters in the title."),
                 cover: .external("file:///etc/passwd")),
            book(3, String(repeating: "Long title ", count: 100_000), shelf: 1, comments: wrap("A 1 MB title."),
                 cover: .external("http://169.254.169.254/latest/meta-data/")),
            book(4, "Ten megabytes of notes", shelf: 2, comments: bigNote, cover: .external("http://10.0.0.1/cover.jpg")),
            book(5, "Nested ten thousand deep", shelf: 2, comments: deep, cover: .external("http://[::1]:1/cover.jpg")),
            book(6, "Not UTF-8: \(invalidUTF8Marker) here", shelf: 4, comments: wrap("The title has bytes that are not UTF-8."),
                 cover: .disk(file: "evil.svg")),
            // Numbers a real server stores that are not ISBNs: a bookseller's own (290–299), a UPC
            // as an EAN-13, and a shop's EAN written with hyphens. "Do I have it?" finds them as stored.
            book(7, "A redirect loop", isbn: .string("2940012026620"), shelf: 4, comments: wrap("<a href=\"https://example.org/ok?a=1&amp;b=2\">a fine link</a>"),
                 cover: .redirectLoop),
            book(8, "../../../etc/passwd", isbn: .string("0785342657883"), shelf: 4, comments: wrap("A path in the title."),
                 cover: .external("data:image/png;base64,iVBORw0KGgo=")),
            book(9, "# Heading\n---\n[link](javascript:alert(1))\ntitle: \"x\"\n", author: .string("---\nmalicious: yaml"),
                 shelf: 3, comments: "Plain text <script>alert('plain')</script> [x](javascript:alert(1))", cover: .external("http://localhost:1/x.jpg")),
            // A note with what TeX and BibTeX read as commands, a lone brace and an entry of its own.
            book(10, "A fine book", isbn: .string("400-6381-33393-1"), shelf: 1, comments: wrap("Nothing wrong here, but for TeX: } a lone brace, \\end{document}, 100% &amp; #1 and_x^2~3.<br>@book{evil, title = {x}}"),
                 cover: .disk(file: "moby-dick.png")),
            // A combining mark after a quote or a bracket makes one character of the two: an escaper
            // that looks at characters, not at the quote itself, lets the quote through.
            book(11, "Breakout \"\u{301} onmouseover=alert('title') x=\"", author: .string("'\u{301} onfocus=alert('author') x='"),
                 shelf: 1, comments: wrap("Combining marks after quotes."), cover: .disk(file: "moby-dick.png")),
        ]
        return SampleLibrary(account: base.account, shelves: shelves, books: books, coverFiles: covers)
    }
}
