import Foundation
import SampleServer

/// How long each answer takes the real Reader server (one Rails process), from the times measured
/// on a library of 1,062 books on 12 shelves (`docs/reader-api.md`): a shelf's page grows with its
/// books, the list with the library, and a 304 costs what a 200 costs, because Rails renders the
/// whole answer before it compares the ETag. With these, the sample server makes a crawl pay what
/// a real one pays, so that the benchmarks and the tests see which requests are worth saving.
public struct ServerCosts: Sendable, Equatable {
    /// `GET /api/v1/shelves`.
    public var shelves: Duration = .milliseconds(11)
    /// `GET /api/v1/books`: a base and a share for each book (180 ms for 1,062 books).
    public var booksBase: Duration = .milliseconds(10)
    public var booksPerBook: Duration = .microseconds(160)
    /// `GET /api/v1/shelves/:id`: a base and a share for each book on it (every book with a signed
    /// cover URL: twelve shelves of 1,062 books took 4 s).
    public var shelfBase: Duration = .milliseconds(30)
    public var shelfPerBook: Duration = .microseconds(3_400)
    /// `GET /api/v1/books/:id`, and its 500 when the book's shelf was deleted.
    public var detail: Duration = .milliseconds(7)
    public var detailCrash: Duration = .milliseconds(4)
    /// A cover's redirect, and the file behind it.
    public var coverRedirect: Duration = .milliseconds(3)
    public var coverFile: Duration = .milliseconds(1)

    /// The real server's costs, as measured.
    public static let reader = ServerCosts()

    public init() {}

    /// The time an answer to `path` takes, for the library as it is.
    func cost(of path: String, in library: SampleLibrary) -> Duration {
        let parts = path.split(separator: "/")
        switch parts.count {
        // bcrypt's quarter of a second is the login's own delay (`Options.loginDelay`).
        case 3 where path == "/api/v1/sessions": return .zero
        case 3 where path == "/api/v1/shelves": return shelves
        case 3 where path == "/api/v1/books": return booksBase + booksPerBook * library.books.count
        case 4 where path.hasPrefix("/api/v1/shelves/"):
            return shelfBase + shelfPerBook * (Int(parts[3]).map { library.bookCount(onShelf: $0) } ?? 0)
        case 4 where path.hasPrefix("/api/v1/books/"):
            guard let book = Int(parts[3]).flatMap(library.book(id:)) else { return detailCrash }
            return library.shelf(id: book.shelfID) == nil ? detailCrash : detail
        default:
            if path.hasPrefix("/rails/active_storage/blobs/redirect/") { return coverRedirect }
            if path.hasPrefix("/api/") { return detail }
            return coverFile
        }
    }
}
