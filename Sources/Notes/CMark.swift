import CCmarkGFM
import Foundation
import Support

/// Markdown → HTML through Debian's cmark-gfm, in safe mode, with the GFM extensions.
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
        let options = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8 | CMARK_OPT_GITHUB_PRE_LANG
        return render(markdown, options: options) { document, parser in
            // Without the parser's extension list, tagfilter is silently skipped.
            cmark_render_html(document, options, cmark_parser_get_syntax_extensions(parser))
        }
    }

    /// The text of the Markdown without its markup, for a catalog's summary: no line wrapping.
    package static func plainText(fromMarkdown markdown: String) -> String {
        let options = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8
        return render(markdown, options: options) { document, _ in cmark_render_plaintext(document, options, 0) }
    }

    private static func render(_ markdown: String, options: Int32,
                               _ renderer: (OpaquePointer, OpaquePointer) -> UnsafeMutablePointer<CChar>?) -> String {
        lock.lock()
        defer { lock.unlock() }
        if !registered {
            cmark_gfm_core_extensions_ensure_registered()
            registered = true
        }
        guard let parser = cmark_parser_new(options) else { return "" }
        defer { cmark_parser_free(parser) }
        for name in extensionNames {
            if let ext = cmark_find_syntax_extension(name) {
                cmark_parser_attach_syntax_extension(parser, ext)
            }
        }
        let length = markdown.utf8.count
        markdown.withCString { cmark_parser_feed(parser, $0, length) }
        guard let document = cmark_parser_finish(parser) else { return "" }
        defer { cmark_node_free(document) }
        guard let rendered = renderer(document, parser) else { return "" }
        defer { cmark_get_default_mem_allocator().pointee.free(rendered) }
        return String(cString: rendered)
    }
}
