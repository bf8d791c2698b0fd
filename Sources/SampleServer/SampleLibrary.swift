import Foundation

/// The library the sample server serves: its own types, not the client's, so that a
/// misunderstanding of the contract on one side is not silently shared by the other.
public struct SampleLibrary: Sendable {
    public struct Account: Sendable {
        public var id: Int
        public var email: String
        public var password: String
    }

    public struct Shelf: Sendable {
        public var id: Int
        public var name: String
        public init(id: Int, name: String) {
            self.id = id
            self.name = name
        }
    }

    public enum Cover: Sendable, Equatable {
        /// Served by the server's own disk service after a redirect.
        case disk(file: String)
        /// Redirected to another host with a signed URL that expires.
        case objectStorage(file: String)
        /// The blob redirect leads to a file that is gone (404, empty body, image type).
        case missing
        /// A third-party URL whose host no longer answers.
        case thirdPartyGone
        /// A third-party URL that answers with an HTML page.
        case thirdPartyNotImage
        /// `image_url` exactly as given (hostile libraries: javascript:, file:, private addresses).
        case external(String)
        /// A blob URL that redirects to itself, for ever.
        case redirectLoop
    }

    public struct Book: Sendable {
        public var id: Int
        public var title: String
        /// null, "" or a string, as the server stores it (kept as JSON).
        public var author: JSONScalar
        public var isbn: JSONScalar
        public var shelfID: Int
        public var createdAt: String
        public var updatedAt: String
        public var comments: String
        public var cover: Cover?
        public init(id: Int, title: String, author: JSONScalar, isbn: JSONScalar, shelfID: Int, createdAt: String, updatedAt: String,
                    comments: String, cover: Cover?) {
            (self.id, self.title, self.author, self.isbn, self.shelfID) = (id, title, author, isbn, shelfID)
            (self.createdAt, self.updatedAt, self.comments, self.cover) = (createdAt, updatedAt, comments, cover)
        }
    }

    public var account: Account
    public var shelves: [Shelf] { didSet { reindex() } }
    public var books: [Book] { didSet { reindex() } }
    /// Cover files by name.
    public var coverFiles: [String: Data]

    /// Positions by id, and books by shelf: the routes answer in constant time at any size.
    private(set) var bookIndex: [Int: Int] = [:]
    private(set) var shelfIndex: [Int: Int] = [:]
    private(set) var booksByShelf: [Int: [Int]] = [:]

    public init(account: Account, shelves: [Shelf], books: [Book], coverFiles: [String: Data]) {
        self.account = account
        self.shelves = shelves
        self.books = books
        self.coverFiles = coverFiles
        reindex()
    }

    private mutating func reindex() {
        bookIndex = Dictionary(books.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        shelfIndex = Dictionary(shelves.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        booksByShelf = Dictionary(grouping: books.indices, by: { books[$0].shelfID })
    }

    /// Stands in a name for bytes that are not UTF-8 (JSON cannot carry them; the server swaps them in).
    public static let invalidUTF8Marker = "<<not-utf-8>>"

    public func book(id: Int) -> Book? { bookIndex[id].map { books[$0] } }
    public func shelf(id: Int) -> Shelf? { shelfIndex[id].map { shelves[$0] } }
    func books(onShelf id: Int) -> [Book] { (booksByShelf[id] ?? []).map { books[$0] } }
    public func bookCount(onShelf id: Int) -> Int { booksByShelf[id]?.count ?? 0 }

    /// Changes a book in place (tests: an edited note, a moved book). As in Rails, a saved change
    /// moves the book's `updated_at`: its notes (rich text) and its cover (an attachment) touch it too.
    public mutating func updateBook(id: Int, _ change: (inout Book) -> Void) {
        guard let index = bookIndex[id] else { return }
        let before = books[index].updatedAt
        change(&books[index])
        if books[index].updatedAt == before {
            books[index].updatedAt = Self.touchedAt.string(from: Date())
            if books[index].updatedAt <= before { books[index].updatedAt = before + "1" }
        }
    }

    /// Adds a book to a shelf, as its owner would in the web app; returns its id.
    @discardableResult
    public mutating func addBook(title: String, shelfID: Int) -> Int {
        let id = (books.map(\.id).max() ?? 0) + 1
        let now = Self.touchedAt.string(from: Date())
        books.append(Book(id: id, title: title, author: .string("A. Newcomer"), isbn: .null, shelfID: shelfID, createdAt: now, updatedAt: now,
                          comments: "<div class=\"trix-content\">\n  <div>Added on the sample server.</div>\n</div>\n", cover: nil))
        return id
    }

    nonisolated(unsafe) private static let touchedAt: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()

    public static let demoEmail = "demo@reader.example"
    public static let demoPassword = "demo-password"

    /// The bundled sample library: about 30 public-domain books on a few shelves.
    public static func bundled() throws -> SampleLibrary {
        guard let url = bundledLibraryURL else {
            throw SampleLibraryError(message: "the bundled sample library is missing: reader-snapshot_SampleServer.resources should sit beside the executable")
        }
        return try load(from: url)
    }

    /// Looked up beside the running executable, where SwiftPM builds it and `make install` puts
    /// it; a missing bundle is an error to report, not a crash (as `Bundle.module` would make it).
    static var bundledLibraryURL: URL? {
        var folders: [URL] = []
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            folders.append(executable.deletingLastPathComponent())
        }
        folders.append(Bundle.main.bundleURL)
        let names = ["reader-snapshot_SampleServer.resources", "reader-snapshot_SampleServer.bundle/Contents/Resources"]
        for folder in folders {
            for name in names {
                let url = folder.appendingPathComponent(name).appendingPathComponent("Library/sample-library.json")
                if FileManager.default.fileExists(atPath: url.path) { return url }
            }
        }
        return nil
    }

    /// Reads a library file in the sample format (see `Library/sample-library.json`); cover files
    /// are looked up in `covers/` beside it.
    public static func load(from url: URL) throws -> SampleLibrary {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw SampleLibraryError(message: "\(url.path): \(error.localizedDescription)")
        }
        // Not JSON, or not of the sample's shape: one message says both.
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let user = root["user"] as? [String: Any],
              let shelves = root["shelves"] as? [[String: Any]],
              let books = root["books"] as? [[String: Any]]
        else {
            throw SampleLibraryError(message: "\(url.path): not a sample library (expected user, shelves and books)")
        }
        let account = Account(id: user["id"] as? Int ?? 1,
                              email: user["email"] as? String ?? demoEmail,
                              password: user["password"] as? String ?? demoPassword)
        let coversDirectory = url.deletingLastPathComponent().appendingPathComponent("covers")
        var coverFiles: [String: Data] = [:]
        var parsedBooks: [Book] = []
        for entry in books {
            guard let id = entry["id"] as? Int else { continue }
            var cover: Cover?
            if let spec = entry["cover"] as? [String: Any], let kind = spec["kind"] as? String {
                let file = spec["file"] as? String ?? ""
                switch kind {
                case "disk": cover = .disk(file: file)
                case "object-storage": cover = .objectStorage(file: file)
                case "missing": cover = .missing
                case "third-party-gone": cover = .thirdPartyGone
                case "third-party-not-image": cover = .thirdPartyNotImage
                default: cover = nil
                }
                if !file.isEmpty, coverFiles[file] == nil {
                    // A cover file the sample lacks is served as Active Storage serves one gone: a 404.
                    coverFiles[file] = try? Data(contentsOf: coversDirectory.appendingPathComponent(file))
                }
            }
            parsedBooks.append(Book(id: id, title: entry["title"] as? String ?? "",
                                    author: JSONScalar(entry["author"]), isbn: JSONScalar(entry["isbn"]),
                                    shelfID: entry["shelf_id"] as? Int ?? 0,
                                    createdAt: entry["created_at"] as? String ?? "2024-01-01T00:00:00.000Z",
                                    updatedAt: entry["updated_at"] as? String ?? "2024-01-01T00:00:00.000Z",
                                    comments: entry["comments"] as? String ?? "", cover: cover))
        }
        return SampleLibrary(account: account,
                             shelves: shelves.compactMap { shelf in
                                 (shelf["id"] as? Int).map { Shelf(id: $0, name: shelf["name"] as? String ?? "") }
                             },
                             books: parsedBooks, coverFiles: coverFiles)
    }
}

/// A JSON null, string or number, as a sample library stores `author` and `isbn`.
public enum JSONScalar: Sendable, Equatable {
    case null
    case string(String)
    case number(Int)

    init(_ value: Any?) {
        switch value {
        case let text as String: self = .string(text)
        case let number as Int: self = .number(number)
        default: self = .null
        }
    }

    var jsonObject: Any {
        switch self {
        case .null: return NSNull()
        case .string(let text): return text
        case .number(let number): return number
        }
    }
}

public struct SampleLibraryError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
