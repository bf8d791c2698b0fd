import Foundation
import LibraryArchive
import Notes
import SnapshotStore
import Support

/// `assets/search-index.js`: what the site's search looks through, as a script that sets
/// `window.READER_SEARCH`, so that it loads from file:// where fetching a JSON file would not.
enum SearchIndex {
    /// Notes are searched on their first characters: enough to find a book, bounded for 10,000 of them.
    static let noteCharacters = 2000

    struct Entry: Encodable {
        var t: String  // title
        var a: String  // author
        var i: String  // isbn
        var s: String  // shelf
        var n: String  // notes, as text
        var h: String  // page, relative to the site's root
        var j: String?  // subjects, from Open Library
    }

    /// The same bytes as encoding every entry at once, an entry at a time.
    static func write(_ model: SiteModel, to sink: (Data) throws -> Void) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try sink(Data("window.READER_SEARCH = [".utf8))
        for (position, place) in model.books.enumerated() {
            let view = model.bookView(place)
            let note = try model.catalog.noteMarkdown(at: place)
            let entry = Entry(t: view.title, a: view.author ?? "", i: view.isbn ?? "", s: model.shelfName(of: place) ?? "",
                              n: MarkdownPlainText.text(note, upTo: noteCharacters), h: view.href,
                              j: view.openLibrary.flatMap { $0.hasSubjects ? $0.subjectList : nil })
            var piece = try encoder.encode(entry)
            if position > 0 { piece.insert(UInt8(ascii: ","), at: 0) }
            try sink(piece)
        }
        try sink(Data("];\n".utf8))
    }
}

/// Markdown as the words a reader would search for: escapes and markup characters dropped.
enum MarkdownPlainText {
    /// The first `limit` characters of the text: a long note is not read past them.
    static func text(_ markdown: String, upTo limit: Int = .max) -> String {
        var result = ""
        result.reserveCapacity(min(markdown.utf8.count, limit))
        var escaped = false
        var appended = 0
        var nextCheck = limit
        for character in markdown {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
                continue
            } else if "*_~`#>[]".contains(character) {
                continue
            } else if character == "\n" {
                result.append(" ")
            } else {
                result.append(character)
            }
            appended += 1
            // Once more than `limit` characters are there, the first `limit` are settled: what is
            // appended can join only the last one. (Characters appended can join, so count them.)
            if appended > nextCheck {
                if result.count > limit { return String(result.prefix(limit)) }
                nextCheck = appended * 2
            }
        }
        return limit == .max ? result : String(result.prefix(limit))
    }
}
