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
