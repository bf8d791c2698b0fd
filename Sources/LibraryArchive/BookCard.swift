import Foundation
import Notes
import Support

/// A book as lists show it: what pages of many books need, without its notes or the server's
/// fields. A big library's cards fit in memory where its books do not.
package struct BookCard: Sendable, Equatable {
    package var id: Int
    package var title: String
    package var author: String?
    package var isbn: String?
    package var shelfID: Int?
    package var shelfName: String?
    package var createdAt: String?
    package var updatedAt: String?
    package var imageURL: String?
    package var cover: CoverCard?
    package var hasNote: Bool
    package var complete: Bool

    package init(id: Int, title: String, author: String?, isbn: String?, shelfID: Int?, shelfName: String?, createdAt: String?,
                updatedAt: String?, imageURL: String?, cover: CoverCard?, hasNote: Bool, complete: Bool) {
        self.id = id
        self.title = title
        self.author = author
        self.isbn = isbn
        self.shelfID = shelfID
        self.shelfName = shelfName
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.imageURL = imageURL
        self.cover = cover
        self.hasNote = hasNote
        self.complete = complete
    }

    package init(_ book: Book) {
        self.init(id: book.id, title: book.title, author: book.author, isbn: book.isbn, shelfID: book.shelfID, shelfName: book.shelfName,
                  createdAt: book.createdAt, updatedAt: book.updatedAt, imageURL: book.imageURL, cover: book.cover.map(CoverCard.init), hasNote: !book.note.isEmpty, complete: book.complete)
    }
}

/// What pages show of a cover file.
package struct CoverCard: Sendable, Equatable, Decodable {
    package var path: String
    package var width: Int?
    package var height: Int?

    package init(path: String, width: Int?, height: Int?) {
        self.path = path
        self.width = width
        self.height = height
    }

    package init(_ file: CoverFile) {
        self.init(path: file.path, width: file.width, height: file.height)
    }
}

extension BookCard: Decodable {
    /// Only the card's fields of a book's JSON: the rest is skipped, not built.
    private struct NoteMarkdown: Decodable { var markdown: String }

    package init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: Book.CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        author = try container.decodeIfPresent(String.self, forKey: .author)
        isbn = try container.decodeIfPresent(String.self, forKey: .isbn)
        shelfID = try container.decodeIfPresent(Int.self, forKey: .shelfID)
        shelfName = try container.decodeIfPresent(String.self, forKey: .shelfName)
        createdAt = try container.decodeIfPresent(String.self, forKey: .createdAt)
        updatedAt = try container.decodeIfPresent(String.self, forKey: .updatedAt)
        imageURL = try container.decodeIfPresent(String.self, forKey: .imageURL)
        cover = try container.decodeIfPresent(CoverCard.self, forKey: .cover)
        hasNote = !(try container.decode(NoteMarkdown.self, forKey: .note).markdown.isEmpty)
        complete = try container.decode(Bool.self, forKey: .complete)
    }
}
