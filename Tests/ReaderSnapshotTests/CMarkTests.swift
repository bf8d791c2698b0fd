import Foundation
import Testing
@testable import Notes
@testable import Site

/// cmark-gfm through the C library: the GFM extensions attached, safe mode on.
struct CMarkTests {
    @Test func gfmExtensionsAreAttached() {
        let html = CMark.html(fromMarkdown: """
        | a | b |
        |---|---|
        | 1 | 2 |

        ~~gone~~ and https://example.org and www.example.com

        - [x] done
        - [ ] to do
        """)
        #expect(html.contains("<table>"))
        #expect(html.contains("<td>1</td>"))
        #expect(html.contains("<del>gone</del>"))
        #expect(html.contains("<a href=\"https://example.org\">https://example.org</a>"))
        #expect(html.contains("<a href=\"http://www.example.com\">www.example.com</a>"))
        #expect(html.contains("<input type=\"checkbox\" checked=\"\" disabled=\"\" /> done"))
    }

    @Test func safeModeDropsRawHTMLAndUnsafeLinks() {
        let html = CMark.html(fromMarkdown: """
        <script>alert(1)</script>

        Text <img src=x onerror=alert(1)> and [click](javascript:alert(1)) and [data](data:text/html,<b>x</b>).
        """)
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img"))
        #expect(!html.contains("javascript:"))
        #expect(html.contains("<!-- raw HTML omitted -->"))
        #expect(html.contains("<a href=\"\">click</a>"))
    }

    @Test func concurrentCallsGiveTheSameOutputAsOneThread() async {
        let markdown = "Visit https://example.org/\\(i) and www.example.com, ~~old~~ **new**.\n\n| x |\n|---|\n| y |\n"
        let expected = CMark.html(fromMarkdown: markdown)
        let outputs = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<300).map { _ in CMark.html(fromMarkdown: markdown) } }
            }
            var all: [String] = []
            for await batch in group { all += batch }
            return all
        }
        #expect(outputs.count == 2400)
        #expect(outputs.allSatisfy { $0 == expected })
    }

    @Test func emptyAndInvalidUTF8Input() {
        #expect(CMark.html(fromMarkdown: "") == "")
        #expect(CMark.html(fromMarkdown: "a\u{0}b").contains("a\u{FFFD}b"))
    }
}
