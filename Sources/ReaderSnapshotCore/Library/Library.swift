/// The whole snapshot as data: every shelf, every book, its note and cover, and what could not be
/// fetched. Written as `library.json`, and all that `render` needs.
public struct Library: Codable, Sendable, Equatable {
    public static let currentSchemaVersion = 1

    public var schemaVersion: Int
    /// When the snapshot was taken (ISO 8601, UTC); honours SOURCE_DATE_EPOCH.
    public var generatedAt: String
    /// The server's URL, without credentials.
    public var server: String
    /// The account, as the server names it (its e-mail).
    public var user: String?
    public var userID: Int?
    public var shelves: [Shelf]
    public var books: [Book]
    public var problems: [Problem]

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", generatedAt = "generated_at", server, user
        case userID = "user_id", shelves, books, problems
    }

    public init(generatedAt: String, server: String, user: String?, userID: Int?, shelves: [Shelf], books: [Book], problems: [Problem]) {
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

public struct Shelf: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String
    /// The count the server reported, which may differ from the books it listed.
    public var bookCount: Int?
    public var bookIDs: [Int]
    /// False when the shelf's own page could not be read (its books come from `/books`).
    public var complete: Bool

    enum CodingKeys: String, CodingKey {
        case id, name, bookCount = "book_count", bookIDs = "book_ids", complete
    }

    public init(id: Int, name: String, bookCount: Int?, bookIDs: [Int], complete: Bool = true) {
        self.id = id
        self.name = name
        self.bookCount = bookCount
        self.bookIDs = bookIDs
        self.complete = complete
    }
}

public struct Book: Codable, Sendable, Equatable {
    public var id: Int
    public var title: String
    public var author: String?
    public var isbn: String?
    /// The shelf the book says it sits on; it may name a shelf that no longer exists.
    public var shelfID: Int?
    public var shelfName: String?
    public var createdAt: String?
    public var updatedAt: String?
    public var imageURL: String?
    public var cover: CoverFile?
    public var note: Note
    /// False when the book's details could not be read: it is here from what `/books` said of it.
    public var complete: Bool
    /// Every field the server gave for this book (list and detail merged; notes are under `note`).
    public var serverFields: [String: JSONValue]

    enum CodingKeys: String, CodingKey {
        case id, title, author, isbn, shelfID = "shelf_id", shelfName = "shelf_name"
        case createdAt = "created_at", updatedAt = "updated_at", imageURL = "image_url"
        case cover, note, complete, serverFields = "server_fields"
    }

    public init(id: Int, title: String, author: String? = nil, isbn: String? = nil, shelfID: Int? = nil,
                shelfName: String? = nil, createdAt: String? = nil, updatedAt: String? = nil,
                imageURL: String? = nil, cover: CoverFile? = nil, note: Note = Note(receiving: nil),
                complete: Bool = true, serverFields: [String: JSONValue] = [:]) {
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
    }
}

/// Something the snapshot could not fetch; the run goes on without it.
public struct Problem: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case bookDetails = "book-details"
        case shelfDetails = "shelf-details"
        case cover
    }
    public var kind: Kind
    public var bookID: Int?
    public var shelfID: Int?
    public var message: String

    enum CodingKeys: String, CodingKey { case kind, bookID = "book_id", shelfID = "shelf_id", message }

    public init(kind: Kind, bookID: Int? = nil, shelfID: Int? = nil, message: String) {
        self.kind = kind
        self.bookID = bookID
        self.shelfID = shelfID
        self.message = message
    }
}
