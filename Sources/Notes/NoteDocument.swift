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
    /// The same block with relative link targets made absolute: a note's relative link pointed
    /// into the Reader web app, and means nothing inside a snapshot.
    func resolvingLinks(against base: URL) -> NoteBlock {
        switch self {
        case .paragraph(let inlines): return .paragraph(inlines.map { $0.resolvingLinks(against: base) })
        case .heading(let level, let inlines): return .heading(level: level, inlines.map { $0.resolvingLinks(against: base) })
        case .quote(let blocks): return .quote(blocks.map { $0.resolvingLinks(against: base) })
        case .list(let ordered, let items): return .list(ordered: ordered, items: items.map { $0.map { $0.resolvingLinks(against: base) } })
        case .codeBlock, .rule: return self
        }
    }
}

extension NoteInline {
    func resolvingLinks(against base: URL) -> NoteInline {
        switch self {
        case .link(let destination, let children):
            let children = children.map { $0.resolvingLinks(against: base) }
            let trimmed = destination.trimmingCharacters(in: .whitespaces)
            // Only plain relative paths: anything with a scheme (safe or not) stays as written.
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#"), URL(string: trimmed)?.scheme == nil,
                  let absolute = URL(string: trimmed, relativeTo: base)?.absoluteString
            else { return .link(destination: destination, children) }
            return .link(destination: absolute, children)
        case .strong(let children): return .strong(children.map { $0.resolvingLinks(against: base) })
        case .emphasis(let children): return .emphasis(children.map { $0.resolvingLinks(against: base) })
        case .strikethrough(let children): return .strikethrough(children.map { $0.resolvingLinks(against: base) })
        case .text, .code, .lineBreak: return self
        }
    }
}
