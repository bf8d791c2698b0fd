import Foundation
import Notes
import Support

/// A book as lists show it: what pages of many books need, without its notes or the server's
/// fields. A big library's entries fit in memory where its books do not.
package struct BookEntry: Sendable, Equatable {
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
    package var openLibrary: OpenLibraryFields?

    package init(id: Int, title: String, author: String?, isbn: String?, shelfID: Int?, shelfName: String?, createdAt: String?,
                updatedAt: String?, imageURL: String?, cover: CoverCard?, hasNote: Bool, complete: Bool,
                openLibrary: OpenLibraryFields? = nil) {
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
        self.openLibrary = openLibrary
    }

    package init(_ book: Book) {
        self.init(id: book.id, title: book.title, author: book.author, isbn: book.isbn, shelfID: book.shelfID, shelfName: book.shelfName,
                  createdAt: book.createdAt, updatedAt: book.updatedAt, imageURL: book.imageURL, cover: book.cover.map(CoverCard.init),
                  hasNote: !book.note.isEmpty, complete: book.complete, openLibrary: book.openLibrary)
    }
}

extension BookEntry {
    /// The title pages, cards and lists show: a book without one is named by its id.
    package var shownTitle: String { title.isEmpty ? "Untitled (book \(id))" : title }
}

/// What pages show of a cover file.
package struct CoverCard: Sendable, Equatable, Decodable {
    package var path: String
    package var width: Int?
    package var height: Int?
    /// Whether the cover has thumbnails (`ThumbnailBox.all`), and of which kind: nil, none.
    package var thumbnailsArePNG: Bool?
    package var fromOpenLibrary = false

    package init(path: String, width: Int?, height: Int?, thumbnailsArePNG: Bool? = nil, fromOpenLibrary: Bool = false) {
        self.path = path
        self.width = width
        self.height = height
        self.thumbnailsArePNG = thumbnailsArePNG
        self.fromOpenLibrary = fromOpenLibrary
    }

    package init(_ file: CoverFile) {
        self.init(path: file.path, width: file.width, height: file.height,
                  thumbnailsArePNG: Self.thumbnailKind(file.thumbnails?.map(\.path)), fromOpenLibrary: file.source == .openLibrary)
    }

    /// A set of thumbnails counts only whole and well named: pages link every size.
    static func thumbnailKind(_ paths: [String]?) -> Bool? {
        guard let paths, paths.count == ThumbnailBox.all.count,
              paths.allSatisfy(CoverFile.isWellFormed(thumbnailPath:)) else { return nil }
        let png = paths[0].hasSuffix(".png")
        return paths.allSatisfy { $0.hasSuffix(png ? ".png" : ".jpg") } ? png : nil
    }

    /// The thumbnail that fills `box`, when the cover has thumbnails.
    package func thumbnail(_ box: ThumbnailBox) -> String? {
        thumbnailsArePNG.map { box.path(forCover: path, png: $0) }
    }

    private struct Named: Decodable { var path: String }
    private enum Keys: String, CodingKey { case path, width, height, thumbnails, source }

    package init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        path = try container.decode(String.self, forKey: .path)
        width = try container.decodeIfPresent(Int.self, forKey: .width)
        height = try container.decodeIfPresent(Int.self, forKey: .height)
        thumbnailsArePNG = Self.thumbnailKind(try container.decodeIfPresent([Named].self, forKey: .thumbnails)?.map(\.path))
        fromOpenLibrary = try container.decodeIfPresent(CoverSource.self, forKey: .source) == .openLibrary
    }
}

extension BookEntry: Decodable {
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
        openLibrary = try container.decodeIfPresent(OpenLibraryFields.self, forKey: .openLibrary)
    }
}
