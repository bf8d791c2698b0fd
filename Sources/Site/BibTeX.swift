import Foundation
import LibraryArchive
import SnapshotStore
import Support

/// `library.bib`: every book as a BibTeX `@book` entry, for Zotero, JabRef and LaTeX. The year and
/// the publisher are Open Library's where `--enrich openlibrary` found them (the server has
/// neither); the note is the entry's `annote`, the shelf its `keywords`.
enum BibTeX {
    /// The format's description: its file, and what the tool that moves files knows of it. A host
    /// serves it as the type reference managers and browsers know for BibTeX; a catalog for friends
    /// leaves it out, as it does the CSV (a reference manager runs no script to open it sealed).
    static let file = "library.bib"
    static let files = FormatFiles(words: "the BibTeX file", sealed: false, holds: { $0 == file },
                                   mediaType: { _ in "application/x-bibtex; charset=utf-8" })

    static func jobs(_ model: SiteModel, notes: NoteTexts, into writer: SnapshotWriter) -> [SiteRenderer.Job] {
        [{ try writer.writeStream(to: file) { try write(model, notes: notes, to: $0) } }]
    }

    /// An entry at a time, in the order of the books' ids, so that a night that changes one book
    /// changes one entry.
    static func write(_ model: SiteModel, notes: NoteTexts, to sink: (Data) throws -> Void) throws {
        try model.forEachReferenceBook(notes: notes) { book in
            var fields: [(String, String)] = [("title", text(book.entry.shownTitle))]
            if let author = book.author { fields.append(("author", text(author))) }
            if let isbn = book.isbn { fields.append(("isbn", text(isbn))) }
            if let year = book.year { fields.append(("year", String(year))) }
            if let publisher = book.publisher { fields.append(("publisher", text(publisher))) }
            if let shelf = book.shelf { fields.append(("keywords", text(shelf))) }
            if let page = book.page { fields.append(("url", text(page))) }
            // The note without its last line break, which would put the closing brace on a line of its own.
            if !book.note.isEmpty { fields.append(("annote", text(book.note, keepingLines: true))) }
            let body = fields.map { "  \($0.0) = {\($0.1)}" }.joined(separator: ",\n")
            try sink(Data("@book{\(key(book.entry)),\n\(body)\n}\n\n".utf8))
        }
    }

    /// The entry's citation key: the author's last name and the book's id ("austen-12"), so that it
    /// stays the same as long as the book has that author, and no two books share one.
    static func key(_ book: BookEntry) -> String {
        let last = book.author.flatMap { $0.split(separator: " ").last }.map { Slug.make(String($0)) } ?? ""
        return (last.isEmpty ? "book" : last) + "-\(book.id)"
    }

    /// A field's text, inside its braces: what TeX reads as a command or a comment is written as
    /// the character, braces included. A brace is written as `\textbraceleft{}` rather than `\{`:
    /// BibTeX counts braces with or without a backslash, so a lone one would end the field early.
    /// An `@` is written `{@}`: some readers take an `@` anywhere for an entry's start. Control
    /// characters are left out; a note keeps its lines.
    static func text(_ value: String, keepingLines: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out += "\\textbackslash{}"
            case "{": out += "\\textbraceleft{}"
            case "}": out += "\\textbraceright{}"
            case "%", "&", "$", "#", "_": out += "\\" + String(scalar)
            case "^": out += "\\textasciicircum{}"
            case "~": out += "\\textasciitilde{}"
            case "@": out += "{@}"
            case "\n": out += keepingLines ? "\n" : " "
            case "\t", "\r": out += " "
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
