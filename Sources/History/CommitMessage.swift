import LibraryArchive
import Support

/// A night's commit message: the change report in short, then one line a book.
///
///     2026-11-24: 1 added, 2 edited, 1 moved
///
///     added: Hyperion
///     edited: Dune (note)
///     edited: Emma (title, note)
///     moved: Persuasion (To read → Read)
package struct CommitMessage: Codable, Sendable, Equatable {
    package var text: String

    package init(text: String) { self.text = text }

    /// Beyond this many books, the message says how many more: a first run of 100,000 books
    /// needs no 100,000-line message.
    static let mostLines = 500

    package init(changes: ChangeReport, date: String, books: Int) {
        let day = String(date.prefix(10))
        if changes.firstRun {
            text = "\(day): first snapshot, \(books) books\n"
            return
        }
        var counts: [String] = []
        if !changes.added.isEmpty { counts.append("\(changes.added.count) added") }
        if !changes.removed.isEmpty { counts.append("\(changes.removed.count) removed") }
        if !changes.edited.isEmpty { counts.append("\(changes.edited.count) edited") }
        if !changes.moved.isEmpty { counts.append("\(changes.moved.count) moved") }
        guard !counts.isEmpty else {
            // The same books, other files: templates, formats, a cover fetched at last.
            text = "\(day): the files changed, no book did\n"
            return
        }
        var lines = changes.added.map { "added: \(Self.name($0.title))" }
        lines += changes.removed.map { "removed: \(Self.name($0.title))" }
        lines += changes.edited.map { "edited: \(Self.name($0.title)) (\($0.fields.joined(separator: ", ")))" }
        lines += changes.moved.map {
            "moved: \(Self.name($0.title)) (\($0.from.map(Self.name).joined(separator: ", ")) → \($0.to.map(Self.name).joined(separator: ", ")))"
        }
        if lines.count > Self.mostLines {
            let more = lines.count - Self.mostLines
            lines = Array(lines.prefix(Self.mostLines)) + ["… and \(more) more"]
        }
        text = "\(day): \(counts.joined(separator: ", "))\n\n" + lines.joined(separator: "\n") + "\n"
    }

    /// A title on one line, whatever the server sent.
    private static func name(_ title: String) -> String {
        let shown = UntrustedText.displayable(title)
        return shown.isEmpty ? "(untitled)" : shown
    }

    /// The first line.
    package var subject: String { String(text.prefix { $0 != "\n" }) }
}
