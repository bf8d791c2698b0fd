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

    static func render(_ model: SiteModel) throws -> Data {
        let entries = model.books.map { book in
            let view = model.bookView(book)
            return Entry(t: view.title, a: view.author ?? "", i: view.isbn ?? "", s: model.shelfName(of: book) ?? "",
                         n: String(MarkdownPlainText.text(book.note.markdown).prefix(noteCharacters)), h: view.href)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var data = Data("window.READER_SEARCH = ".utf8)
        data.append(try encoder.encode(entries))
        data.append(Data(";\n".utf8))
        return data
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
