import Foundation
import LibraryArchive
import Notes
import SnapshotStore
import Support

/// `library.csv` in Goodreads' export layout, so that the library imports into Goodreads or
/// StoryGraph: their header row, ISBNs as `="…"` (spreadsheets keep the leading zeros), the shelf
/// in Bookshelves and Exclusive Shelf, the note in Private Notes. Not in My Review: Goodreads
/// publishes a review on import, and a note is the reader's own.
enum GoodreadsCSV {
    static let header = [
        "Book Id", "Title", "Author", "Author l-f", "Additional Authors", "ISBN", "ISBN13", "My Rating",
        "Average Rating", "Publisher", "Binding", "Number of Pages", "Year Published", "Original Publication Year",
        "Date Read", "Date Added", "Bookshelves", "Bookshelves with positions", "Exclusive Shelf", "My Review",
        "Spoiler", "Private Notes", "Read Count", "Owned Copies",
    ]

    /// A row at a time, in the order of the books' ids.
    static func write(_ model: SiteModel, notes: NoteTexts, to sink: (Data) throws -> Void) throws {
        try sink(Data((header.map(field).joined(separator: ",") + "\r\n").utf8))
        let entries = model.library.entries
        for place in entries.indices.sorted(by: { entries.id(at: $0) < entries.id(at: $1) }) {
            let book = entries[place]
            let note = try notes.markdown(of: place)
            let shelf = model.shelfName(of: place).map(Slug.make).flatMap { $0.isEmpty ? nil : $0 } ?? ""
            let (isbn10, isbn13) = ISBN.forms(book.isbn)
            let author: String = book.author ?? ""
            let authorLastFirst: String = book.author.map(lastFirst) ?? ""
            let isbn10Cell: String = isbn10.map { "=\"\($0)\"" } ?? ""
            let isbn13Cell: String = isbn13.map { "=\"\($0)\"" } ?? ""
            let added: String = book.createdAt.map { String($0.prefix(10)).replacingOccurrences(of: "-", with: "/") } ?? ""
            let positions: String = shelf.isEmpty ? "" : "\(shelf) (#1)"
            var row: [String] = [String(book.id), book.title, author, authorLastFirst, ""]
            // Publisher, pages and year are Open Library's (`--enrich openlibrary`): the server has none.
            let found = book.openLibrary
            row += [isbn10Cell, isbn13Cell, "0", "", found?.publisher ?? "", "", found?.pages.map(String.init) ?? "",
                    found?.year.map(String.init) ?? "", "", ""]
            // Date Added, Bookshelves, positions, Exclusive Shelf, My Review, Spoiler, Private Notes, Read Count, Owned Copies.
            row += [added, shelf, positions, shelf, "", "", note, "0", "0"]
            let line = row.enumerated().map { index, value in
                // The ISBN columns are formulas on purpose; anything else that looks like one is text.
                index == 5 || index == 6 ? field(value) : field(defused(value))
            }.joined(separator: ",")
            try sink(Data((line + "\r\n").utf8))
        }
    }

    /// RFC 4180: quoted when it holds a comma, a quote or a line break; quotes doubled. Looked for
    /// as bytes, as a spreadsheet reads them: as characters, "\r\n" is one character that is neither
    /// "\r" nor "\n", and a comma with an accent on it is not a comma, and both went out unquoted.
    static func field(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }) else { return value }
        var quoted: [UInt8] = [UInt8(ascii: "\"")]
        quoted.reserveCapacity(value.utf8.count + 8)
        for byte in value.utf8 {
            if byte == UInt8(ascii: "\"") { quoted.append(byte) }
            quoted.append(byte)
        }
        quoted.append(UInt8(ascii: "\""))
        return String(decoding: quoted, as: UTF8.self)
    }

    /// A spreadsheet runs a cell that starts with = + - @ as a formula: such text gets a leading '.
    static func defused(_ value: String) -> String {
        guard let first = value.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return value }
        return "'" + value
    }

    /// "Frank Herbert" → "Herbert, Frank"
    static func lastFirst(_ name: String) -> String {
        let parts = name.split(separator: " ")
        guard parts.count > 1, let last = parts.last else { return name }
        return "\(last), \(parts.dropLast().joined(separator: " "))"
    }
}
