import LibraryArchive
import Support

/// What a reference manager's file (BibTeX, RIS) says of a book, as both say it: the values shown
/// as they may be shown, empty ones left out.
struct ReferenceBook {
    let place: Int
    let entry: BookEntry
    let author: String?
    /// ISBN-13 when the book's ISBN is one, else as the server gave it.
    let isbn: String?
    let year: Int?
    let publisher: String?
    let shelf: String?
    /// The book's page, with `--site-url` and the HTML pages.
    let page: String?
    /// The note in Markdown, without its last line break.
    let note: String
}

extension SiteModel {
    /// Each book for a reference file, in the order of the books' ids: a night that changes one
    /// book changes one record.
    func forEachReferenceBook(notes: NoteTexts, _ body: (ReferenceBook) throws -> Void) throws {
        let entries = library.entries
        let base = formats.contains(.html) ? site.url : nil
        func shown(_ text: String?) -> String? { text.map(UntrustedText.displayable).flatMap { $0.isEmpty ? nil : $0 } }
        for place in entries.indices.sorted(by: { entries.id(at: $0) < entries.id(at: $1) }) {
            let entry = entries[place]
            try body(ReferenceBook(
                place: place, entry: entry, author: shown(entry.author), isbn: ISBN.forms(entry.isbn).isbn13 ?? shown(entry.isbn),
                year: entry.openLibrary?.year, publisher: shown(entry.openLibrary?.publisher), shelf: shown(shelfName(of: place)),
                page: base.map { $0 + "books/\(fileNames[place]).html" },
                note: try notes.markdown(of: place).trimmingCharacters(in: .newlines)))
        }
    }
}
