import Foundation
import TestSupport
import Testing
@testable import Notes

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

    static func markdown(_ task: Int, _ index: Int) -> String {
        "Visit https://example.org/\(task)/\(index) and www.example.com, ~~old~~ **new \(index)**.\n\n| x |\n|---|\n| \(task) |\n"
    }

    /// Each call on eight tasks at once renders its own input: the output of every one equals the
    /// single-threaded rendering of the same Markdown (the extensions are registered once, and no
    /// call sees another's document).
    @Test func concurrentCallsGiveTheSameOutputAsOneThread() async {
        let expected = (0..<8).map { task in (0..<300).map { CMark.html(fromMarkdown: Self.markdown(task, $0)) } }
        let outputs = await withTaskGroup(of: (Int, [String]).self) { group in
            for task in 0..<8 {
                group.addTask { (task, (0..<300).map { CMark.html(fromMarkdown: Self.markdown(task, $0)) }) }
            }
            var all = [[String]](repeating: [], count: 8)
            for await (task, batch) in group { all[task] = batch }
            return all
        }
        #expect(Set(expected.joined()).count == 8 * 300, "every input renders differently")
        #expect(expected[3][7].contains("<del>old</del>") && expected[3][7].contains("<td>3</td>"), "\(expected[3][7])")
        for task in 0..<8 {
            #expect(outputs[task] == expected[task], "task \(task)")
        }
    }

    @Test func emptyAndInvalidUTF8Input() {
        #expect(CMark.html(fromMarkdown: "") == "")
        #expect(CMark.html(fromMarkdown: "a\u{0}b").contains("a\u{FFFD}b"))
    }
}
