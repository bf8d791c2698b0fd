import CCmarkGFM
import Foundation
import Support

/// Markdown → HTML and plain text through Debian's cmark-gfm, in safe mode, with the GFM extensions.
///
/// Every C call of the project's cmark-gfm use lives in this file. cmark-gfm is not safe to call
/// from two threads at once (it silently dropped autolinks in a stress run), so every call goes
/// through one process-wide lock.
package enum CMark {
    static let extensionNames = ["table", "strikethrough", "autolink", "tagfilter", "tasklist"]

    private static let lock = NSLock()
    nonisolated(unsafe) private static var registered = false

    /// Renders GitHub-flavoured Markdown to an HTML fragment. Raw HTML in the input is replaced by
    /// a comment and unsafe link targets (`javascript:` …) are emptied: safe mode, no `CMARK_OPT_UNSAFE`.
    package static func html(fromMarkdown markdown: String) -> String {
        render(markdown, html: true, plainText: false).html
    }

    /// A note as the outputs show it: its HTML fragment and its plain text, each empty unless asked for.
    package struct Rendered: Sendable {
        package var html = ""
        package var plainText = ""

        package init() {}
    }

    /// The HTML and the plain text of the Markdown from one parse: a render that needs both (a book's
    /// page and the search) parses a note once.
    package static func render(_ markdown: String, html: Bool, plainText: Bool) -> Rendered {
        guard html || plainText, !markdown.isEmpty else { return Rendered() }
        // The parse is the same for both; the pre-language option is the HTML renderer's alone.
        let options = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8
        return parse(markdown, options: options) { document, parser in
            var rendered = Rendered()
            if html {
                // Without the parser's extension list, tagfilter is silently skipped.
                rendered.html = text(cmark_render_html(document, options | CMARK_OPT_GITHUB_PRE_LANG, cmark_parser_get_syntax_extensions(parser)))
            }
            if plainText { rendered.plainText = text(cmark_render_plaintext(document, options, 0)) }
            return rendered
        }
    }

    /// A rendered text as a Swift string, its C buffer freed.
    private static func text(_ rendered: UnsafeMutablePointer<CChar>?) -> String {
        guard let rendered else { return "" }
        defer { cmark_get_default_mem_allocator().pointee.free(rendered) }
        return String(cString: rendered)
    }

    private static func parse(_ markdown: String, options: Int32, _ renderer: (OpaquePointer, OpaquePointer) -> Rendered) -> Rendered {
        lock.lock()
        defer { lock.unlock() }
        if !registered {
            cmark_gfm_core_extensions_ensure_registered()
            registered = true
        }
        guard let parser = cmark_parser_new(options) else { return Rendered() }
        defer { cmark_parser_free(parser) }
        for name in extensionNames {
            if let ext = cmark_find_syntax_extension(name) {
                cmark_parser_attach_syntax_extension(parser, ext)
            }
        }
        let length = markdown.utf8.count
        markdown.withCString { cmark_parser_feed(parser, $0, length) }
        guard let document = cmark_parser_finish(parser) else { return Rendered() }
        defer { cmark_node_free(document) }
        return renderer(document, parser)
    }
}
