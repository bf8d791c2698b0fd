import Notes
import Support

/// The whole snapshot as data: every shelf, every book, its note and cover, and what could not be
/// fetched. Written as `library.json`, and all that `render` needs.
package struct Library: Codable, Sendable, Equatable {
    package static let currentSchemaVersion = 1

    package var schemaVersion: Int
    /// When the snapshot was taken (ISO 8601, UTC); honours SOURCE_DATE_EPOCH.
    package var generatedAt: String
    /// The server's URL, without credentials.
    package var server: String
    /// The account, as the server names it (its e-mail).
    package var user: String?
    package var userID: Int?
    package var shelves: [Shelf]
    package var books: [Book]
    package var problems: [Problem]

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", generatedAt = "generated_at", server, user
        case userID = "user_id", shelves, books, problems
    }

    package init(generatedAt: String, server: String, user: String?, userID: Int?, shelves: [Shelf], books: [Book], problems: [Problem]) {
        self.schemaVersion = Self.currentSchemaVersion
        self.generatedAt = generatedAt
        self.server = server
        self.user = user
        self.userID = userID
        self.shelves = shelves
        self.books = books
        self.problems = problems
    }
}

package struct Shelf: Codable, Sendable, Equatable {
    package var id: Int
    package var name: String
    /// The count the server reported, which may differ from the books it listed.
    package var bookCount: Int?
    package var bookIDs: [Int]
    /// False when the shelf's own page could not be read (its books come from `/books`).
    package var complete: Bool

    enum CodingKeys: String, CodingKey {
        case id, name, bookCount = "book_count", bookIDs = "book_ids", complete
    }

    package init(id: Int, name: String, bookCount: Int?, bookIDs: [Int], complete: Bool = true) {
        self.id = id
        self.name = name
        self.bookCount = bookCount
        self.bookIDs = bookIDs
        self.complete = complete
    }
}

package struct Book: Codable, Sendable, Equatable {
    package var id: Int
    package var title: String
    package var author: String?
    package var isbn: String?
    /// The shelf the book says it sits on; it may name a shelf that no longer exists.
    package var shelfID: Int?
    package var shelfName: String?
    package var createdAt: String?
    package var updatedAt: String?
    package var imageURL: String?
    package var cover: CoverFile?
    package var note: Note
    /// False when the book's details could not be read: it is here from what `/books` said of it.
    package var complete: Bool
    /// Every field the server gave for this book (list and detail merged; notes are under `note`).
    package var serverFields: [String: JSONValue]
    /// What Open Library knows of the book by its ISBN and the server did not say (`--enrich openlibrary`).
    package var openLibrary: OpenLibraryFields?

    enum CodingKeys: String, CodingKey {
        case id, title, author, isbn, shelfID = "shelf_id", shelfName = "shelf_name"
        case createdAt = "created_at", updatedAt = "updated_at", imageURL = "image_url"
        case cover, note, complete, serverFields = "server_fields", openLibrary = "open_library"
    }

    package init(id: Int, title: String, author: String? = nil, isbn: String? = nil, shelfID: Int? = nil,
                shelfName: String? = nil, createdAt: String? = nil, updatedAt: String? = nil,
                imageURL: String? = nil, cover: CoverFile? = nil, note: Note = Note(receiving: nil),
                complete: Bool = true, serverFields: [String: JSONValue] = [:], openLibrary: OpenLibraryFields? = nil) {
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
        self.note = note
        self.complete = complete
        self.serverFields = serverFields
        self.openLibrary = openLibrary
    }
}

/// Something the snapshot could not fetch; the run goes on without it.
package struct Problem: Codable, Sendable, Equatable {
    package enum Kind: String, Codable, Sendable {
        case bookDetails = "book-details"
        case shelfDetails = "shelf-details"
        case cover
    }
    package var kind: Kind
    package var bookID: Int?
    package var shelfID: Int?
    package var message: String

    enum CodingKeys: String, CodingKey { case kind, bookID = "book_id", shelfID = "shelf_id", message }

    package init(kind: Kind, bookID: Int? = nil, shelfID: Int? = nil, message: String) {
        self.kind = kind
        self.bookID = bookID
        self.shelfID = shelfID
        self.message = message
    }
}

/// What Open Library's Books API says of an edition, for the fields the Reader server does not
/// have. Everything here came from Open Library; nothing the server gave is ever replaced.
package struct OpenLibraryFields: Codable, Sendable, Equatable {
    /// The edition's key, like "/books/OL22853304M": its page is openlibrary.org + key.
    package var key: String?
    package var publisher: String?
    /// The year of `publish_date`, which Open Library keeps as free text.
    package var year: Int?
    package var pages: Int?
    package var subjects: [String]

    enum CodingKeys: String, CodingKey { case key, publisher, year, pages, subjects }

    package init(key: String? = nil, publisher: String? = nil, year: Int? = nil, pages: Int? = nil, subjects: [String] = []) {
        self.key = key
        self.publisher = publisher
        self.year = year
        self.pages = pages
        self.subjects = subjects
    }

    package var isEmpty: Bool { publisher == nil && year == nil && pages == nil && subjects.isEmpty }
}
