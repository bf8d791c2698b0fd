import Notes
import Support

/// The whole snapshot as data: every shelf, every book, its note and cover, and what could not be
/// fetched. Written as `library.json`, and all that `render` needs.
package struct Library: Codable, Sendable, Equatable {
    package static let currentSchemaVersion = 1

    package var schemaVersion: Int
    /// When the snapshot was taken (ISO 8601, UTC); honours SOURCE_DATE_EPOCH.
    package var generatedAt: String
    /// The catalog's name, as `--title` gives it; nil in snapshots written before it existed.
    package var title: String?
    /// The pages' language (`--language`), which `render` keeps; nil in snapshots written before.
    package var language: String?
    /// A stable name for the catalog that says nothing of the account: feeds' and catalogs' ids are
    /// made from it (a digest of the server's address and the account's id).
    package var catalogID: String?
    /// The server's URL and the account (its e-mail and id): only in snapshots written before
    /// they were kept private (read as before), never written now. Which server and account a
    /// snapshot came from is kept in the private state (`SnapshotState.origin`).
    package var server: String?
    package var user: String?
    package var userID: Int?
    package var shelves: [Shelf]
    package var books: [Book]
    package var problems: [Problem]

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", generatedAt = "generated_at", title, language, catalogID = "catalog_id", server, user
        case userID = "user_id", shelves, books, problems
    }

    package init(generatedAt: String, title: String? = nil, catalogID: String? = nil, server: String? = nil, user: String? = nil,
                 userID: Int? = nil, shelves: [Shelf], books: [Book], problems: [Problem]) {
        self.schemaVersion = Self.currentSchemaVersion
        self.generatedAt = generatedAt
        self.title = title
        self.catalogID = catalogID
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

    /// Fields of the server's that name where things are kept or whose account this is: the
    /// cover's storage address (it holds the server's) and the account's id. A run needs them;
    /// a catalog shared with friends must not show them, so `library.json` never holds them and
    /// the private state keeps the covers' addresses (`CoverAddresses`).
    package static let privateFields: Set<String> = ["image_url", "user_id"]

    /// The book as `library.json` holds it: without its private fields.
    package var withoutPrivateFields: Book {
        var book = self
        book.imageURL = nil
        for name in Self.privateFields { book.serverFields[name] = nil }
        return book
    }

    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encodeIfPresent(author, forKey: .author)
        try container.encodeIfPresent(isbn, forKey: .isbn)
        try container.encodeIfPresent(shelfID, forKey: .shelfID)
        try container.encodeIfPresent(shelfName, forKey: .shelfName)
        try container.encodeIfPresent(createdAt, forKey: .createdAt)
        try container.encodeIfPresent(updatedAt, forKey: .updatedAt)
        try container.encodeIfPresent(cover, forKey: .cover)
        try container.encode(note, forKey: .note)
        try container.encode(complete, forKey: .complete)
        try container.encode(serverFields.filter { !Self.privateFields.contains($0.key) }, forKey: .serverFields)
        try container.encodeIfPresent(openLibrary, forKey: .openLibrary)
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
    /// What a visitor reads: what is missing, in words, never an address. Snapshots written before
    /// hold the technical detail here; the run's output and the private state have it now.
    package var message: String
    /// The day ("2026-11-25") it first happened: fixed while it lasts, so that a night that changes
    /// nothing on the server changes no file.
    package var since: String?
    /// The book is shown as the last snapshot had it (its details or cover could not be had tonight).
    package var kept: Bool?

    enum CodingKeys: String, CodingKey { case kind, bookID = "book_id", shelfID = "shelf_id", message, since, kept }

    package init(kind: Kind, bookID: Int? = nil, shelfID: Int? = nil, message: String, since: String? = nil, kept: Bool? = nil) {
        self.kind = kind
        self.bookID = bookID
        self.shelfID = shelfID
        self.message = message
        self.since = since
        self.kept = kept
    }

    /// The same gap on another night: the same kind, for the same book or shelf.
    package var gapKey: String { Self.gapKey(kind, bookID: bookID, shelfID: shelfID) }

    package static func gapKey(_ kind: Kind, bookID: Int? = nil, shelfID: Int? = nil) -> String {
        "\(kind.rawValue):\(bookID ?? -1):\(shelfID ?? -1)"
    }

    /// What a visitor reads of a gap, in words: what is missing and since when.
    package static func words(_ kind: Kind, since: String?, kept: Bool) -> String {
        let date = since.map { " since \($0)" } ?? ""
        switch (kind, kept) {
        case (.bookDetails, true): return "Not refreshed\(date): the server did not give this book's details; shown as they were."
        case (.bookDetails, false): return "The details could not be fetched\(date)."
        case (.cover, true): return "The cover was not refreshed\(date); shown as it was."
        case (.cover, false): return "The cover could not be fetched\(date)."
        case (.shelfDetails, _): return "The shelf's page could not be fetched\(date)."
        }
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
