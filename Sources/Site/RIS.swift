import Foundation
import LibraryArchive
import SnapshotStore
import Support

/// `library.ris`: every book as a RIS record (`TY  - BOOK`), the format Zotero, EndNote and
/// Mendeley import. The note is the record's `N1`, the shelf its keyword (`KW`), the book's page
/// its `UR` with `--site-url`; the year and the publisher are Open Library's where
/// `--enrich openlibrary` found them (the server has neither).
enum RIS {
    static let file = "library.ris"
    /// A host serves it as the type reference managers register for RIS; a catalog for friends
    /// leaves it out (a reference manager runs no script to open it sealed).
    static let files = FormatFiles(words: "the RIS file", sealed: false, holds: { $0 == file },
                                   mediaType: { _ in "application/x-research-info-systems" })

    @Sendable static func jobs(_ model: SiteModel, notes: NoteTexts, into writer: SnapshotWriter) -> [SiteRenderer.Job] {
        [{ try writer.writeStream(to: file) { try write(model, notes: notes, to: $0) } }]
    }

    /// A record at a time, in the order of the books' ids, so that a night that changes one book
    /// changes one record. Lines end in CR LF, as the format's own description has them.
    static func write(_ model: SiteModel, notes: NoteTexts, to sink: (Data) throws -> Void) throws {
        try model.forEachReferenceBook(notes: notes) { book in
            var lines = [line("TY", "BOOK"), line("TI", book.entry.shownTitle)]
            if let author = book.author { lines.append(line("AU", author)) }
            if let isbn = book.isbn { lines.append(line("SN", isbn)) }
            if let year = book.year { lines.append(line("PY", String(year))) }
            if let publisher = book.publisher { lines.append(line("PB", publisher)) }
            if let shelf = book.shelf { lines.append(line("KW", shelf)) }
            if let page = book.page { lines.append(line("UR", page)) }
            if !book.note.isEmpty { lines.append(noteLines(book.note)) }
            lines.append("ER  - ")
            try sink(Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8))
        }
    }

    /// A tag's line: its value on one line, without control characters.
    static func line(_ tag: String, _ value: String) -> String {
        "\(tag)  - " + oneLine(value)
    }

    static func oneLine(_ value: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            if scalar == "\n" || scalar == "\r" || scalar == "\t" { out.append(" "); continue }
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { continue }
            out.append(scalar)
        }
        return String(out).trimmingCharacters(in: .whitespaces)
    }

    /// The note: its first line on the `N1` line, the others after it, as readers take the lines
    /// that follow a tag. A line that would read as a tag of its own ("ER  - " ends a record) is
    /// written a space in, which readers strip: a note cannot end its record or add a field.
    static func noteLines(_ note: String) -> String {
        let lines = note.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var kept = String.UnicodeScalarView()
            for scalar in line.unicodeScalars where scalar == "\t" || !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)) {
                kept.append(scalar)
            }
            let text = String(kept)
            return text.range(of: #"^[A-Z][A-Z0-9] *-"#, options: .regularExpression) == nil ? text : " " + text
        }
        return "N1  - " + lines.joined(separator: "\r\n")
    }
}
