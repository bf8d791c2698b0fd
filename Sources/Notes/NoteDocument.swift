import Foundation
import Support

/// A note as a small document tree: what rich text and plain text both become before they are
/// written out as Markdown.
indirect enum NoteInline: Equatable, Sendable {
    case text(String)
    case strong([NoteInline])
    case emphasis([NoteInline])
    case strikethrough([NoteInline])
    case code(String)
    case link(destination: String, [NoteInline])
    case lineBreak
}

indirect enum NoteBlock: Equatable, Sendable {
    case paragraph([NoteInline])
    case heading(level: Int, [NoteInline])
    case codeBlock(String)
    case quote([NoteBlock])
    case list(ordered: Bool, items: [[NoteBlock]])
    case rule
}

extension NoteBlock {
    /// The same block with the links into the Reader web app (a relative path, or the server's
    /// own address) reduced to their words: such a link means nothing inside a snapshot, and a
    /// catalog shared with friends must not name the server.
    func withoutServerLinks(server: URL) -> NoteBlock {
        func inlines(_ list: [NoteInline]) -> [NoteInline] { list.flatMap { $0.withoutServerLinks(server: server) } }
        switch self {
        case .paragraph(let list): return .paragraph(inlines(list))
        case .heading(let level, let list): return .heading(level: level, inlines(list))
        case .quote(let blocks): return .quote(blocks.map { $0.withoutServerLinks(server: server) })
        case .list(let ordered, let items): return .list(ordered: ordered, items: items.map { $0.map { $0.withoutServerLinks(server: server) } })
        case .codeBlock, .rule: return self
        }
    }
}

extension NoteInline {
    func withoutServerLinks(server: URL) -> [NoteInline] {
        func inner(_ list: [NoteInline]) -> [NoteInline] { list.flatMap { $0.withoutServerLinks(server: server) } }
        switch self {
        case .link(let destination, let children):
            let children = inner(children)
            let trimmed = destination.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return [.link(destination: destination, children)] }
            // Anything with a scheme of its own stays as written, unless it is the server's address.
            if let url = URL(string: trimmed), url.scheme != nil {
                let sameServer = WebAddress(server)?.isSameOrigin(url) == true
                return sameServer ? children : [.link(destination: destination, children)]
            }
            return children
        case .strong(let children): return [.strong(inner(children))]
        case .emphasis(let children): return [.emphasis(inner(children))]
        case .strikethrough(let children): return [.strikethrough(inner(children))]
        case .text, .code, .lineBreak: return [self]
        }
    }
}
