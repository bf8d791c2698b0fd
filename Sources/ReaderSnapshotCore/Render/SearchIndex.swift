import Foundation

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
                              n: String(MarkdownPlainText.text(note).prefix(noteCharacters)), h: view.href)
            var piece = try encoder.encode(entry)
            if position > 0 { piece.insert(UInt8(ascii: ","), at: 0) }
            try sink(piece)
        }
        try sink(Data("];\n".utf8))
    }
}

/// Markdown as the words a reader would search for: escapes and markup characters dropped.
enum MarkdownPlainText {
    static func text(_ markdown: String) -> String {
        var result = ""
        result.reserveCapacity(markdown.utf8.count)
        var escaped = false
        for character in markdown {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if "*_~`#>[]".contains(character) {
                continue
            } else if character == "\n" {
                result.append(" ")
            } else {
                result.append(character)
            }
        }
        return result
    }
}
