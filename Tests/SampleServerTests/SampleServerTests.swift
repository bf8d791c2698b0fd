import Foundation
import Hummingbird
import HummingbirdTesting
@testable import SampleServer
import TestSupport
import Testing

/// The sample server behaves as reader-api.md says the real one does.
struct SampleServerTests {
    static func makeServer() throws -> SampleServer {
        var options = SampleServer.Options()
        options.loginDelay = .zero
        options.apiKey = String(repeating: "c0ffee", count: 6) + "abcd"
        return SampleServer(library: try SampleLibrary.bundled(), options: options)
    }

    static func json(_ buffer: ByteBuffer) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any]
    }

    @Test func loginTakesJSONOrAFormAndRefusesTheRest() async throws {
        let server = try Self.makeServer()
        let app = Application(router: server.makeRouter())
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/v1/sessions", method: .post, headers: [.contentType: "application/json"],
                                     body: ByteBuffer(string: #"{"email":"demo@reader.example","password":"demo-password"}"#)) { response in
                #expect(response.status == .ok)
                let body = Self.json(response.body)
                #expect(body?["user_id"] as? Int == 1)
                #expect((body?["api_key"] as? String)?.count == 40)
            }
            try await client.execute(uri: "/api/v1/sessions", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                     body: ByteBuffer(string: "email=demo%40reader.example&password=demo-password")) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/api/v1/sessions", method: .post, headers: [.contentType: "application/json"],
                                     body: ByteBuffer(string: #"{"email":" demo@reader.example","password":"demo-password"}"#)) { response in
                #expect(response.status == .unauthorized)
                #expect(Self.json(response.body)?["error"] as? String == "Invalid email or password")
            }
            try await client.execute(uri: "/api/v1/sessions", method: .post, headers: [.contentType: "application/json"],
                                     body: ByteBuffer(string: "{not json")) { response in
                #expect(response.status == .badRequest)
                #expect(response.body.readableBytes == 0)
                #expect(response.headers[.contentType] == "text/html")
            }
        }
    }

    @Test func keysAreCheckedAndTheBooksEndpointEchoesTheRejectedOne() async throws {
        let server = try Self.makeServer()
        let app = Application(router: server.makeRouter())
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/v1/shelves", method: .get) { response in
                #expect(response.status == .unauthorized)
                #expect(Self.json(response.body)?["error"] as? String == "API Key and UserID Required")
            }
            try await client.execute(uri: "/api/v1/shelves?api_key=nope&user_id=1", method: .get) { response in
                #expect(Self.json(response.body)?["error"] as? String == "Invalid API Key")
            }
            try await client.execute(uri: "/api/v1/books?api_key=nope&user_id=1", method: .get) { response in
                #expect(Self.json(response.body)?["error"] as? String == "Invalid API Key: nope")
            }
        }
    }

    @Test func shelvesBooksETagsAndTheDeletedShelfCrash() async throws {
        let server = try Self.makeServer()
        let auth = "api_key=\(server.apiKey)&user_id=1"
        let app = Application(router: server.makeRouter())
        try await app.test(.router) { client in
            var etag = ""
            try await client.execute(uri: "/api/v1/shelves/1?\(auth)", method: .get) { response in
                #expect(response.status == .ok)
                let shelf = Self.json(response.body)?["shelf"] as? [String: Any]
                let books = shelf?["books"] as? [[String: Any]]
                #expect(books?.isEmpty == false)
                #expect((books?.first?["image_url"] as? String)?.contains("/rails/active_storage/blobs/redirect/") == true)
                etag = response.headers[.eTag] ?? ""
            }
            #expect(etag.hasPrefix("W/\""))
            try await client.execute(uri: "/api/v1/shelves/1?\(auth)", method: .get, headers: [.ifNoneMatch: etag]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
            // Without the W/ it does not match.
            try await client.execute(uri: "/api/v1/shelves/1?\(auth)", method: .get, headers: [.ifNoneMatch: String(etag.dropFirst(2))]) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/api/v1/shelves/999?\(auth)", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(Self.json(response.body)?["error"] as? String == "Shelf not found")
            }
            try await client.execute(uri: "/api/v1/books?\(auth)", method: .get) { response in
                let books = Self.json(response.body)?["books"] as? [[String: Any]]
                #expect(books?.count == 30)
                #expect(books?.first?["created_at"] is String)
            }
            try await client.execute(uri: "/api/v1/books/128?\(auth)", method: .get) { response in
                #expect(response.status == .internalServerError)
                #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
            }
            try await client.execute(uri: "/api/v1/books/101?\(auth)", method: .get) { response in
                let book = Self.json(response.body)?["book"] as? [String: Any]
                #expect((book?["comments"] as? String)?.hasPrefix("<div class=\"trix-content\">") == true)
                #expect(book?["shelf_name"] as? String == "Currently Reading 📖")
            }
        }
    }

    @Test func coversRedirectToDiskOrToAnotherHostThatExpires() async throws {
        let server = try Self.makeServer()
        let auth = "api_key=\(server.apiKey)&user_id=1"
        let app = Application(router: server.makeRouter())
        try await app.test(.router) { client in
            var urls: [Int: String] = [:]
            for id in [101, 102] {
                try await client.execute(uri: "/api/v1/books/\(id)?\(auth)", method: .get) { response in
                    urls[id] = (Self.json(response.body)?["book"] as? [String: Any])?["image_url"] as? String
                }
            }
            func pathAndQuery(_ url: String?) throws -> String {
                let components = try #require(url.flatMap { URLComponents(string: $0) })
                return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
            }
            let blobHost = URLComponents(string: urls[101] ?? "")?.host
            let disk = try pathAndQuery(urls[101])
            try await client.execute(uri: disk, method: .get) { response in
                #expect(response.status == .found)
                #expect(response.headers[.cacheControl] == "max-age=300, private")
                let location = try #require(response.headers[.location])
                #expect(URLComponents(string: location)?.host == blobHost)
                #expect(location.contains("/rails/active_storage/disk/"))
                let path = try pathAndQuery(location)
                try await client.execute(uri: path, method: .get) { image in
                    #expect(image.status == .ok)
                    #expect(image.headers[.lastModified] != nil)
                }
                try await client.execute(uri: path, method: .get, headers: [.ifModifiedSince: image304Date]) { image in
                    #expect(image.status == .notModified)
                }
            }
            let stored = try pathAndQuery(urls[102])
            var locations: [String] = []
            for _ in 0..<2 {
                try await client.execute(uri: stored, method: .get) { response in
                    locations.append(response.headers[.location] ?? "")
                }
            }
            #expect(locations[0].contains("/storage/moby-dick.png?"))
            #expect(URLComponents(string: locations[0])?.host != blobHost, "object storage is another origin")
            #expect(locations[0] != locations[1], "a signed URL changes at every request")
            try await client.execute(uri: "/storage/moby-dick.png?X-Amz-Expires=1&X-Amz-Signature=x", method: .get) { response in
                #expect(response.status == .forbidden)
            }
            try await client.execute(uri: "/rails/active_storage/disk/nope/cover.jpg", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.body.readableBytes == 0)
                #expect(response.headers[.contentType] == "image/jpeg")
            }
        }
    }

    let image304Date = "Mon, 01 Jan 2024 00:00:00 GMT"

    /// Each sample book's cover is its own: a file that names another book put that book's cover on
    /// it in `make demo` (The Picture of Dorian Gray showed Frankenstein's). Only the Iliad's two
    /// editions share a scan, on purpose, and distinct files hold distinct images (a snapshot keeps
    /// each image once, so two files with the same bytes would show one cover for both).
    @Test func eachSampleBookHasACoverOfItsOwn() throws {
        let library = try SampleLibrary.bundled()
        var booksByFile: [String: [Int]] = [:]
        for book in library.books {
            switch book.cover {
            case .disk(let file)?, .objectStorage(let file)?: booksByFile[file, default: []].append(book.id)
            default: break
            }
        }
        let shared = booksByFile.filter { $0.value.count > 1 }
        #expect(shared == ["iliad.jpg": [122, 123]], "covers shared by books: \(shared)")
        #expect(booksByFile["dorian-gray.gif"] == [130])
        var fileByBytes: [Data: String] = [:]
        for file in booksByFile.keys.sorted() {
            let data = try #require(library.coverFiles[file], "\(file) is not among the sample covers")
            #expect(fileByBytes[data] == nil, "\(file) has the same bytes as \(fileByBytes[data] ?? "")")
            fileByBytes[data] = file
        }
    }

    @Test func syntheticLibrariesAreTheSameForTheSameSeed() throws {
        let a = try SampleLibrary.synthetic(books: 500, seed: 7)
        let b = try SampleLibrary.synthetic(books: 500, seed: 7)
        let c = try SampleLibrary.synthetic(books: 500, seed: 8)
        #expect(a.books.count == 500)
        #expect(a.books.map(\.title) == b.books.map(\.title))
        #expect(a.books.map(\.comments) == b.books.map(\.comments))
        #expect(a.books.map(\.title) != c.books.map(\.title))
        let shelfIDs = Set(a.shelves.map(\.id))
        #expect(a.books.contains { !shelfIDs.contains($0.shelfID) }, "some books sit on a deleted shelf")
    }

    /// As in Rails, a changed book gets a new `updated_at` (the crawl relies on it).
    @Test func aChangedBookIsTouched() throws {
        var library = try SampleLibrary.bundled()
        let before = try #require(library.book(id: 101)).updatedAt
        library.updateBook(id: 101) { $0.comments = "<div>New.</div>" }
        let after = try #require(library.book(id: 101)).updatedAt
        #expect(after != before && after > before)
    }

    /// --editable: a book's note edited as in the web editor, its date moved; refused without it.
    @Test func anEditableServerEditsANoteAndMovesItsDate() async throws {
        var options = SampleServer.Options()
        options.editable = true
        let server = SampleServer(library: try SampleLibrary.bundled(), options: options)
        let before = try #require(server.library.book(id: 101))
        try await Application(router: server.makeRouter()).test(.router) { client in
            try await client.execute(uri: "/_sample/books/101/edit", method: .post) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/_sample/books/999999/edit", method: .post) { response in
                #expect(response.status == .notFound)
            }
        }
        let after = try #require(server.library.book(id: 101))
        #expect(after.comments.hasPrefix(before.comments) && after.comments.contains("Edited on the sample server"))
        #expect(after.updatedAt != before.updatedAt)
        try await Application(router: Self.makeServer().makeRouter()).test(.router) { client in
            try await client.execute(uri: "/_sample/books/101/edit", method: .post) { response in
                #expect(response.status != .ok, "not without --editable")
            }
        }
    }

    /// --editable: renamed, moved, deleted and added books, as between two nights of `--history`.
    @Test func anEditableServerRenamesMovesDeletesAndAddsBooks() async throws {
        var options = SampleServer.Options()
        options.editable = true
        let server = SampleServer(library: try SampleLibrary.bundled(), options: options)
        let title = try #require(server.library.book(id: 102)).title
        try await Application(router: server.makeRouter()).test(.router) { client in
            for (uri, status) in [("/_sample/books/102/edit?what=title", HTTPResponse.Status.ok), ("/_sample/books/103/edit?what=move&shelf=2", .ok),
                                  ("/_sample/books/103/edit?what=move&shelf=999", .unprocessableContent), ("/_sample/books/104/edit?what=delete", .ok),
                                  ("/_sample/books/101/edit?what=nonsense", .badRequest), ("/_sample/books?shelf=3&title=New", .ok)] {
                try await client.execute(uri: uri, method: .post) { response in
                    #expect(response.status == status, "\(uri)")
                }
            }
        }
        let library = server.library
        #expect(library.book(id: 102)?.title == title + " (revised)")
        #expect(library.book(id: 103)?.shelfID == 2)
        #expect(library.book(id: 104) == nil)
        let added = try #require(library.books.last)
        #expect(added.title == "New" && added.shelfID == 3 && added.id == library.books.map(\.id).max())
    }
}
