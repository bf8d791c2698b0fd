import LibraryArchive
import Support

/// A night's commit message: the change report in short, then one line a book.
///
///     2026-11-24: 1 added, 1 moved, 2 edited
///
///     added: Hyperion
///     moved: Persuasion (To read → Read)
///     edited: Dune (note)
///     edited: Emma (title, note)
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
        guard !changes.isEmpty else {
            // The same books, other files: templates, formats, a cover fetched at last.
            text = "\(day): the files changed, no book did\n"
            return
        }
        var lines = changes.added.map { "added: \(Self.name($0.title))" }
        lines += changes.removed.map { "removed: \(Self.name($0.title))" }
        lines += changes.moved.map {
            "moved: \(Self.name($0.title)) (\($0.from.map(Self.name).joined(separator: ", ")) → \($0.to.map(Self.name).joined(separator: ", ")))"
        }
        lines += changes.edited.map { edit in
            let fields = edit.fields.map { $0 == "title" ? edit.formerTitle.map { "title, was \(Self.name($0))" } ?? $0 : $0 }
            return "edited: \(Self.name(edit.title)) (\(fields.joined(separator: ", ")))"
        }
        if lines.count > Self.mostLines {
            let more = lines.count - Self.mostLines
            lines = Array(lines.prefix(Self.mostLines)) + ["… and \(more) more"]
        }
        text = "\(day): \(changes.counts)\n\n" + lines.joined(separator: "\n") + "\n"
    }

    /// A title on one line, whatever the server sent.
    private static func name(_ title: String) -> String {
        let shown = UntrustedText.displayable(title)
        return shown.isEmpty ? "(untitled)" : shown
    }

    /// The first line.
    package var subject: String { String(text.prefix { $0 != "\n" }) }
}
