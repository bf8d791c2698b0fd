import Foundation
import Support

/// A book's notes: what the server sent, and the Markdown that the snapshot keeps.
package struct Note: Codable, Equatable, Sendable {
    package enum Format: String, Codable, Sendable {
        /// No notes (the server sent `""` or null).
        case none
        /// HTML from Reader's rich-text editor (what the real server sends).
        case richText = "rich-text"
        /// Plain text (what older documents promise).
        case plainText = "plain-text"
    }

    /// Notes longer than this many bytes are shown cut (`--max-note-kb`).
    package static let defaultLimit = 1 << 20

    /// The notes exactly as the server sent them; nil when it sent null.
    package var source: String?
    package var format: Format
    /// The notes as GitHub-flavoured Markdown: the body of the Markdown snapshot, and what the HTML
    /// is rendered from.
    package var markdown: String

    package init(source: String?, format: Format, markdown: String) {
        self.source = source
        self.format = format
        self.markdown = markdown
    }

    /// Reads the notes in whichever form they arrive. Past `limit` bytes only the start is
    /// converted, followed by a notice: the source stays whole.
    /// Links in rich text into the Reader web app (relative, or on `linkBase`, the Reader server)
    /// keep their words and lose their address.
    package init(receiving source: String?, limit: Int = Note.defaultLimit, linkBase: URL? = nil) {
        self.source = source
        var text = source ?? ""
        var cut: Int?
        if text.utf8.count > limit {
            cut = text.utf8.count
            text = String(decoding: text.utf8.prefix(limit), as: UTF8.self)
        }
        defer {
            if let cut {
                markdown += (markdown.isEmpty ? "" : "\n") + "*The rest of this note is not shown: it has \(cut) bytes, over the limit of \(limit). library.json keeps it whole.*\n"
            }
        }
        if text.trimmingSpaces().isEmpty {
            self.format = .none
            self.markdown = ""
        } else if Self.looksLikeHTML(text) {
            self.format = .richText
            var blocks = RichTextConverter.blocks(from: RichTextParser.parse(text))
            if let linkBase { blocks = blocks.map { $0.withoutServerLinks(server: linkBase) } }
            self.markdown = MarkdownWriter.markdown(blocks)
        } else {
            self.format = .plainText
            self.markdown = Self.markdown(fromPlainText: text)
        }
    }

    package var isEmpty: Bool { markdown.isEmpty }

    /// cmark-gfm's rendering of the Markdown, safe to place in a page.
    package var html: String { markdown.isEmpty ? "" : CMark.html(fromMarkdown: markdown) }

    static func looksLikeHTML(_ text: String) -> Bool {
        let trimmed = text.drop(while: { $0.isWhitespace })
        guard trimmed.first == "<", let second = trimmed.dropFirst().first else { return false }
        return second.isLetter || second == "!" || second == "/"
    }

    /// Plain text keeps its line breaks and every character: escaped so that none of it turns into syntax.
    static func markdown(fromPlainText text: String) -> String {
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        var blocks: [NoteBlock] = []
        var lines: [NoteInline] = []
        for line in normalized.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingSpaces().isEmpty {
                if !lines.isEmpty { blocks.append(.paragraph(lines)) }
                lines = []
            } else {
                if !lines.isEmpty { lines.append(.lineBreak) }
                lines.append(.text(String(line)))
            }
        }
        if !lines.isEmpty { blocks.append(.paragraph(lines)) }
        return MarkdownWriter.markdown(blocks)
    }
}
