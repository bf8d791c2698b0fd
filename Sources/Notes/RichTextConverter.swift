import Support

/// Turns parsed rich-text HTML (what Reader's Trix editor stores) into a note document.
///
/// Trix writes paragraphs as `<br><br>` inside one `<div>`, so inline runs are split into
/// paragraphs at two or more line breaks. Elements we do not know keep their text: a note's words
/// are never dropped, only the markup around them. Script and style bodies are not words.
enum RichTextConverter {
    static func blocks(from nodes: [HTMLNode]) -> [NoteBlock] {
        var output: [NoteBlock] = []
        var pending: [NoteInline] = []
        func flush() {
            output += paragraphs(from: pending)
            pending = []
        }
        for node in nodes {
            guard case .element(let name, let attributes, let children) = node else {
                pending += inlines(from: [node])
                continue
            }
            switch name {
            case "h1", "h2", "h3", "h4", "h5", "h6":
                flush()
                let level = Int(name.dropFirst()) ?? 1
                let content = trimmed(inlines(from: children).map { $0 == .lineBreak ? .text(" ") : $0 })
                if !content.isEmpty { output.append(.heading(level: level, content)) }
            case "pre":
                flush()
                let code = plainText(children)
                if !code.isEmpty { output.append(.codeBlock(code)) }
            case "blockquote":
                flush()
                let inner = blocks(from: children)
                if !inner.isEmpty { output.append(.quote(inner)) }
            case "ul", "ol":
                flush()
                let list = listBlock(ordered: name == "ol", children: children)
                if let list { output.append(list) }
            case "li":
                flush()
                let item = blocks(from: children)
                if !item.isEmpty { output.append(.list(ordered: false, items: [item])) }
            case "hr":
                flush()
                output.append(.rule)
            case _ where ignoredElements.contains(name):
                continue
            case _ where containerElements.contains(name):
                flush()
                output += blocks(from: children)
            default:
                pending += inlines(from: [.element(name: name, attributes: attributes, children: children)])
            }
        }
        flush()
        return output
    }

    /// Elements that hold blocks (paragraphs) rather than inline text.
    static let containerElements: Set<String> = [
        "div", "p", "section", "article", "main", "body", "html", "header", "footer", "aside", "nav",
        "figure", "figcaption", "center", "table", "thead", "tbody", "tfoot", "tr", "dl", "dt", "dd",
        "address", "details", "summary", "form", "fieldset",
    ]
    static let blockElements: Set<String> = containerElements.union([
        "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "ul", "ol", "li", "hr",
    ])
    /// Bodies that are code or metadata, never the user's words. Everything else keeps its text,
    /// escaped: libxml2 may nest what follows an unknown or unclosed tag inside it.
    static let ignoredElements: Set<String> = ["script", "style", "head", "title", "template"]

    private static func listBlock(ordered: Bool, children: [HTMLNode]) -> NoteBlock? {
        var items: [[NoteBlock]] = []
        var stray: [HTMLNode] = []
        func flushStray() {
            let item = blocks(from: stray)
            if !item.isEmpty { items.append(item) }
            stray = []
        }
        for child in children {
            if case .element("li", _, let liChildren) = child {
                flushStray()
                let item = blocks(from: liChildren)
                items.append(item.isEmpty ? [.paragraph([])] : item)
            } else {
                stray.append(child)
            }
        }
        flushStray()
        return items.isEmpty ? nil : .list(ordered: ordered, items: items)
    }

    static func inlines(from nodes: [HTMLNode]) -> [NoteInline] {
        var result: [NoteInline] = []
        for node in nodes {
            switch node {
            case .text(let text):
                result.append(.text(text))
            case .element(let name, let attributes, let children):
                switch name {
                case "br":
                    result.append(.lineBreak)
                case "strong", "b":
                    result.append(.strong(inlines(from: children)))
                case "em", "i", "cite", "var", "dfn":
                    result.append(.emphasis(inlines(from: children)))
                case "del", "s", "strike":
                    result.append(.strikethrough(inlines(from: children)))
                case "code", "kbd", "samp", "tt":
                    result.append(.code(plainText(children)))
                case "a":
                    let content = inlines(from: children)
                    if let href = attributes["href"], !href.isEmpty {
                        result.append(.link(destination: href, content))
                    } else {
                        result += content
                    }
                case "img":
                    // Kept as a link, not an image: a shared catalog must not load third-party pictures.
                    let alt = attributes["alt"] ?? ""
                    if let source = attributes["src"], !source.isEmpty {
                        result.append(.link(destination: source, [.text(alt.isEmpty ? "image" : alt)]))
                    } else if !alt.isEmpty {
                        result.append(.text(alt))
                    }
                case _ where ignoredElements.contains(name):
                    continue
                case "pre":
                    result.append(.lineBreak)
                    result.append(.code(plainText(children)))
                    result.append(.lineBreak)
                case _ where blockElements.contains(name):
                    result.append(.lineBreak)
                    result += inlines(from: children)
                    result.append(.lineBreak)
                default:
                    result += inlines(from: children)
                }
            }
        }
        return result
    }

    /// Splits an inline run into paragraphs at two or more line breaks, as Trix writes them.
    static func paragraphs(from inlines: [NoteInline]) -> [NoteBlock] {
        var paragraphs: [[NoteInline]] = []
        var current: [NoteInline] = []
        var breaks = 0
        var held: [NoteInline] = [] // whitespace text seen between breaks
        for inline in inlines {
            if inline == .lineBreak {
                breaks += 1
                held = []
                continue
            }
            if breaks > 0, case .text(let text) = inline, isBlank(text) {
                held.append(inline)
                continue
            }
            if breaks >= 2 {
                paragraphs.append(current)
                current = []
            } else if breaks == 1 {
                current.append(.lineBreak)
            }
            current += held
            held = []
            breaks = 0
            current.append(inline)
        }
        paragraphs.append(current)
        return paragraphs.map(trimmed).filter { !$0.isEmpty }.map { .paragraph($0) }
    }

    /// Drops leading and trailing breaks and blank text, which carry no words.
    static func trimmed(_ inlines: [NoteInline]) -> [NoteInline] {
        // One slice, not removeFirst in a loop: a note of 250,000 <br> must not take quadratic time.
        guard let start = inlines.firstIndex(where: { !isSpace($0) }),
              let end = inlines.lastIndex(where: { !isSpace($0) })
        else { return [] }
        return Array(inlines[start...end])
    }

    private static func isSpace(_ inline: NoteInline) -> Bool {
        switch inline {
        case .lineBreak: return true
        case .text(let text): return isBlank(text)
        default: return false
        }
    }

    static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" || $0 == "\u{0C}" }
    }

    /// Text as written, for `<pre>` and `<code>`: line breaks become newlines, markup is dropped.
    static func plainText(_ nodes: [HTMLNode]) -> String {
        var result = ""
        for node in nodes {
            switch node {
            case .text(let text): result += text
            case .element("br", _, _): result += "\n"
            case .element(let name, _, _) where ignoredElements.contains(name): continue
            case .element(let name, _, let children):
                let inner = plainText(children)
                if blockElements.contains(name), !result.isEmpty, !result.hasSuffix("\n") { result += "\n" }
                result += inner
            }
        }
        return result
    }
}
