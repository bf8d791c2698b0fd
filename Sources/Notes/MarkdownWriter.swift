import Support

/// Writes a note document as CommonMark/GFM text that renders back to the same words, links and
/// structure, and reads well as a plain file.
package enum MarkdownWriter {
    static func markdown(_ blocks: [NoteBlock]) -> String {
        let text = blocks.map(block).filter { !$0.isEmpty }.joined(separator: "\n\n")
        return text.isEmpty ? "" : text + "\n"
    }

    static func block(_ block: NoteBlock) -> String {
        switch block {
        case .paragraph(let inlines):
            return escapeLineStarts(paragraph(inlines))
        case .heading(let level, let inlines):
            let text = collapseSpaces(inlines.map(inline).joined()).trimmingSpaces()
            return String(repeating: "#", count: min(max(level, 1), 6)) + " " + text
        case .codeBlock(let code):
            var body = code
            while body.hasSuffix("\n") { body.removeLast() }
            let fence = String(repeating: "`", count: max(3, longestRun(of: "`", in: body) + 1))
            return fence + "\n" + body + "\n" + fence
        case .quote(let blocks):
            return markdown(blocks).split(separator: "\n", omittingEmptySubsequences: false)
                .dropLast() // the trailing newline
                .map { $0.isEmpty ? ">" : "> " + $0 }
                .joined(separator: "\n")
        case .list(let ordered, let items):
            return items.enumerated().map { index, item in
                let marker = ordered ? "\(index + 1). " : "- "
                let indent = String(repeating: " ", count: marker.count)
                let body = tightListItem(item)
                let lines = body.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                guard !lines.isEmpty else { return marker.trimmingSpaces() }
                return lines.enumerated().map { lineIndex, line in
                    lineIndex == 0 ? marker + line : (line.isEmpty ? "" : indent + line)
                }.joined(separator: "\n")
            }.joined(separator: "\n")
        case .rule:
            return "---"
        }
    }

    /// A paragraph followed by a nested list stays tight ("- item" / "  - nested"), as people write it.
    private static func tightListItem(_ blocks: [NoteBlock]) -> String {
        var text = ""
        for (index, item) in blocks.enumerated() {
            let rendered = block(item)
            guard !rendered.isEmpty else { continue }
            if !text.isEmpty {
                if case .list = item, index > 0, case .paragraph = blocks[index - 1] { text += "\n" } else { text += "\n\n" }
            }
            text += rendered
        }
        return text.isEmpty ? "" : text + "\n"
    }

    private static func paragraph(_ inlines: [NoteInline]) -> String {
        let text = collapseSpaces(inlines.map(inline).joined())
        // A hard break is written as a backslash before the newline; spaces around it are noise.
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { String($0).trimmingSpaces() }
            .joined(separator: "\n")
            .trimmingSpaces()
    }

    static func inline(_ inline: NoteInline) -> String {
        switch inline {
        case .text(let text):
            return escape(text)
        case .lineBreak:
            return "\\\n"
        case .strong(let children):
            return delimited(children, by: "**")
        case .emphasis(let children):
            return delimited(children, by: "*")
        case .strikethrough(let children):
            return delimited(children, by: "~~")
        case .code(let code):
            let flat = code.replacingOccurrences(of: "\n", with: " ")
            guard !flat.isEmpty else { return "" }
            let fence = String(repeating: "`", count: longestRun(of: "`", in: flat) + 1)
            let pad = flat.hasPrefix("`") || flat.hasSuffix("`") || flat.hasPrefix(" ") ? " " : ""
            return fence + pad + flat + pad + fence
        case .link(let destination, let children):
            var text = collapseSpaces(children.map(Self.inline).joined()).trimmingSpaces()
            if text == escape(destination), isAutolinkable(destination) {
                return "<" + destination + ">"
            }
            if text.isEmpty { text = escape(destination) }
            return "[" + text + "](" + linkDestination(destination) + ")"
        }
    }

    /// Emphasis delimiters only work hugging non-space text: move the spaces outside them.
    private static func delimited(_ children: [NoteInline], by delimiter: String) -> String {
        let inner = children.map(inline).joined()
        let core = inner.trimmingSpaces()
        guard !core.isEmpty else { return inner.isEmpty ? "" : " " }
        let leading = inner.hasPrefix(core) ? "" : " "
        let trailing = inner.hasSuffix(core) ? "" : " "
        return leading + delimiter + core + delimiter + trailing
    }

    private static func isAutolinkable(_ destination: String) -> Bool {
        let lower = destination.lowercased()
        return (lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("mailto:"))
            && !destination.contains(where: { $0 == " " || $0 == "<" || $0 == ">" || $0.isNewline || $0 == "\\" })
    }

    /// A plain destination where it can be; `<…>` keeps spaces and parentheses, and only `<`, `>`
    /// and `\` need escaping there.
    static func linkDestination(_ destination: String) -> String {
        var depth = 0
        var plain = !destination.isEmpty
        for character in destination where plain {
            switch character {
            case "(": depth += 1
            case ")": depth -= 1; if depth < 0 { plain = false }
            case " ", "<", ">", "\\": plain = false
            default: if character.isWhitespace || character.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { plain = false }
            }
        }
        if plain && depth == 0 { return destination }
        var result = "<"
        for character in destination {
            switch character {
            case "<", ">", "\\": result += "\\" + String(character)
            case "\n", "\r": result += "%0A"
            default: result.append(character)
            }
        }
        return result + ">"
    }

    static let escapedCharacters: Set<Character> = ["\\", "`", "*", "_", "[", "]", "<", ">", "~", "|", "$"]

    /// Backslash-escapes what Markdown would read as syntax, so that text stays text.
    package static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var characters = text.makeIterator()
        var next = characters.next()
        while let character = next {
            next = characters.next()
            // "&" is literal unless it could start an entity ("&amp;", "&#38;").
            if escapedCharacters.contains(character) || (character == "&" && (next?.isLetter == true || next == "#")) {
                result.append("\\")
            }
            if character == "\t" || character == "\n" || character == "\r" {
                result.append(" ")
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// At the start of a line, `#`, `-`, `+`, `=` and `1.` would start a heading or a list.
    package static func escapeLineStarts(_ text: String) -> String {
        // A title or a name is one line (`escape` made its breaks spaces): nothing to split or join.
        guard text.utf8.contains(0x0A) else { return escapedLineStart(text[...]) ?? text }
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { escapedLineStart($0) ?? String($0) }
            .joined(separator: "\n")
    }

    /// The line with its start escaped, or nil when it starts nothing.
    private static func escapedLineStart(_ line: Substring) -> String? {
        guard let first = line.first else { return nil }
        if "#-+=".contains(first) { return "\\" + line }
        let digits = line.prefix(while: { $0.isASCII && $0.isNumber })
        if !digits.isEmpty, digits.count <= 9, let next = line.dropFirst(digits.count).first, next == "." || next == ")" {
            return digits + "\\" + line.dropFirst(digits.count)
        }
        return nil
    }

    /// Runs of ASCII spaces become one. On the UTF-8 bytes: a space is one byte and never part of
    /// another character's encoding.
    static func collapseSpaces(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var lastWasSpace = false
        for byte in text.utf8 {
            if byte == 0x20 {
                if !lastWasSpace { bytes.append(byte) }
                lastWasSpace = true
            } else {
                bytes.append(byte)
                lastWasSpace = false
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func longestRun(of character: Character, in text: String) -> Int {
        var longest = 0, current = 0
        for c in text {
            if c == character { current += 1; longest = max(longest, current) } else { current = 0 }
        }
        return longest
    }
}

extension StringProtocol {
    /// Trims ASCII spaces only: a no-break space is the user's own. On the UTF-8 bytes, as above.
    package func trimmingSpaces() -> String {
        let bytes = utf8
        guard let start = bytes.firstIndex(where: { $0 != 0x20 }) else { return "" }
        var end = start
        var index = start
        while index != bytes.endIndex {
            let next = bytes.index(after: index)
            if bytes[index] != 0x20 { end = next }
            index = next
        }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
