import Support

/// The answers of the Reader API, decoded leniently where the real server and the older documents
/// disagree, strictly where a missing field would make the snapshot wrong.

/// `POST /api/v1/sessions`
package struct ReaderSession: Sendable, Equatable {
    package var userID: Int
    package var apiKey: String
    package init(userID: Int, apiKey: String) {
        self.userID = userID
        self.apiKey = apiKey
    }
}

/// `POST /sessions`: the keys in this order.
struct LoginRequest: Encodable {
    var email: String
    var password: String
}

struct LoginAnswer: Decodable {
    var user_id: FlexibleInt
    var api_key: String
}

/// An id that arrives as a number, or as a numeric string.
struct FlexibleInt: Decodable, Sendable {
    var value: Int
    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Each form in turn: what is neither is said below.
        if let value = try? container.decode(Int.self) {
            self.value = value
        } else if let text = try? container.decode(String.self), let value = Int(text) {
            self.value = value
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a whole number")
        }
    }
}

/// One entry of `GET /api/v1/shelves`.
package struct ShelfSummary: Decodable, Sendable, Equatable {
    package var id: Int
    package var name: String
    package var bookCount: Int?

    package init(id: Int, name: String, bookCount: Int? = nil) {
        self.id = id
        self.name = name
        self.bookCount = bookCount
    }

    enum CodingKeys: String, CodingKey { case id, name, book_count }
    package init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(FlexibleInt.self, forKey: .id).value
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        bookCount = try c.decodeIfPresent(FlexibleInt.self, forKey: .book_count)?.value
    }
}

package struct ShelvesAnswer: Decodable {
    package var user: String?
    package var shelves: [ShelfSummary]
}

/// `GET /api/v1/shelves/:id`, in either shape: the server nests `books` inside `shelf`; the older
/// documents put them beside it.
package struct ShelfAnswer: Decodable, Sendable {
    var user: String?
    package var shelf: ShelfSummary
    package var books: [BookFields]

    enum CodingKeys: String, CodingKey { case user, shelf, books }
    enum ShelfKeys: String, CodingKey { case books }
    package init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        user = try c.decodeIfPresent(String.self, forKey: .user)
        shelf = try c.decode(ShelfSummary.self, forKey: .shelf)
        let nested = try c.nestedContainer(keyedBy: ShelfKeys.self, forKey: .shelf)
        if let inside = try nested.decodeIfPresent([BookFields].self, forKey: .books) {
            books = inside
        } else {
            books = try c.decodeIfPresent([BookFields].self, forKey: .books) ?? []
        }
    }
}

/// `GET /api/v1/books`
struct BooksAnswer: Decodable, Sendable {
    var user: String?
    var books: [BookFields]
}

/// `GET /api/v1/books/:id`
package struct BookAnswer: Decodable {
    package var book: BookFields
}

/// A book as one endpoint describes it: the fields the snapshot uses, typed, and every field as sent.
package struct BookFields: Decodable, Sendable, Equatable {
    package var id: Int
    package var fields: [String: JSONValue]

    package init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        id = try c.decode(FlexibleInt.self, forKey: AnyKey("id")).value
        // "title" must be text; everything else is kept as it came.
        if c.contains(AnyKey("title")) {
            _ = try c.decodeNil(forKey: AnyKey("title")) ? nil : c.decode(String.self, forKey: AnyKey("title"))
        }
        var fields: [String: JSONValue] = [:]
        for key in c.allKeys {
            fields[key.stringValue] = try c.decode(JSONValue.self, forKey: key)
        }
        self.fields = fields
    }

    package init(id: Int, fields: [String: JSONValue]) {
        self.id = id
        self.fields = fields
    }

    package func text(_ key: String) -> String? { fields[key]?.text }
    package func int(_ key: String) -> Int? { fields[key]?.intValue }
}

package struct AnyKey: CodingKey {
    package var stringValue: String
    package var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    package init?(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { return nil }
}

struct ErrorAnswer: Decodable {
    var error: String
}
