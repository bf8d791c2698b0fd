import Foundation
import Hummingbird
import NIOCore

/// The JSON API, answered as the real Rails server answers it.
struct ReaderAPIRoutes: Sendable {
    let server: SampleServer
    var library: SampleLibrary { server.library }

    @Sendable func login(_ request: Request, context: BasicRequestContext) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 1 << 20)
        let contentType = request.headers[.contentType] ?? ""
        var email: String?
        var password: String?
        if contentType.contains("json") {
            // A body that is not a JSON object is malformed, as Rails takes it.
            guard let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] else {
                // Rails answers a malformed JSON body with 400 and an empty HTML body.
                return Response(status: .badRequest, headers: [.contentType: "text/html"])
            }
            email = object["email"] as? String
            password = object["password"] as? String
        } else {
            let form = String(buffer: body)
            for pair in form.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map {
                    String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
                }
                guard parts.count == 2 else { continue }
                if parts[0] == "email" { email = parts[1] }
                if parts[0] == "password" { password = parts[1] }
            }
        }
        try await Task.sleep(for: server.options.loginDelay)
        guard email == library.account.email, password == library.account.password else {
            return json(["error": "Invalid email or password"], status: .unauthorized)
        }
        return json(["user_id": library.account.id, "api_key": server.apiKey])
    }

    /// nil when the key and user id are right; the 401 answer otherwise.
    private func unauthorized(_ request: Request, echoKey: Bool) -> Response? {
        let query = request.uri.queryParameters
        guard let key = query.get("api_key"), let user = query.get("user_id"), !key.isEmpty, !user.isEmpty else {
            return json(["error": "API Key and UserID Required"], status: .unauthorized)
        }
        guard key == server.apiKey, Int(user) == library.account.id else {
            // The books endpoints echo the rejected key back (a real server quirk).
            return json(["error": echoKey ? "Invalid API Key: \(key)" : "Invalid API Key"], status: .unauthorized)
        }
        return nil
    }

    @Sendable func shelves(_ request: Request, context: BasicRequestContext) async throws -> Response {
        if let denied = unauthorized(request, echoKey: false) { return denied }
        let library = self.library
        let shelves: [[String: Any]] = library.shelves.map {
            ["id": $0.id, "name": $0.name, "book_count": library.books(onShelf: $0.id).count]
        }
        return answer(request) { ["user": library.account.email, "shelves": shelves] }
    }

    @Sendable func shelf(_ request: Request, context: BasicRequestContext) async throws -> Response {
        server.state.count { $0.shelfRequests += 1 }
        if let denied = unauthorized(request, echoKey: false) { return denied }
        let library = self.library
        guard let id = context.parameters.get("id").flatMap(Int.init), let shelf = library.shelf(id: id) else {
            return json(["error": "Shelf not found"], status: .notFound)
        }
        let base = baseURL(request)
        return answer(request) {
            let books: [[String: Any]] = library.books(onShelf: id).map { book in
                row(book, ["image_url": imageURL(book, base: base)])
            }
            return ["user": library.account.email,
                    "shelf": ["id": shelf.id, "name": shelf.name, "book_count": books.count, "books": books]]
        }
    }

    @Sendable func books(_ request: Request, context: BasicRequestContext) async throws -> Response {
        if let denied = unauthorized(request, echoKey: true) { return denied }
        let library = self.library
        return answer(request) {
            let listsShelfIDs = server.options.listsShelfIDs
            let books: [[String: Any]] = library.books.map { book in
                row(book, ["user_id": library.account.id, "created_at": book.createdAt, "updated_at": book.updatedAt]
                    .merging(listsShelfIDs ? ["shelf_id": book.shelfID] : [:]) { first, _ in first })
            }
            return ["user": library.account.email, "books": books, "book_count": books.count]
        }
    }

    @Sendable func book(_ request: Request, context: BasicRequestContext) async throws -> Response {
        server.state.count { $0.detailRequests += 1 }
        if let denied = unauthorized(request, echoKey: true) { return denied }
        let library = self.library
        guard let id = context.parameters.get("id").flatMap(Int.init), let book = library.book(id: id) else {
            return json(["error": "Book not found"], status: .notFound)
        }
        if server.state.failingDetails.contains(id) {
            return crashPage("ActiveRecord::ConnectionTimeoutError: could not obtain a connection from the pool")
        }
        guard let shelf = library.shelf(id: book.shelfID) else {
            // The real server crashes reading the deleted shelf's name.
            return crashPage("NoMethodError in Api::V1::BooksController#show: undefined method `name' for nil")
        }
        let base = baseURL(request)
        return answer(request) {
            ["book": row(book, ["shelf_id": book.shelfID, "shelf_name": shelf.name, "image_url": imageURL(book, base: base),
                                "comments": book.comments])]
        }
    }

    /// Changes a book as its owner would in the web app (only with `Options.editable`); its
    /// `updated_at` moves, as in Rails. `?what=note` (the default) adds a line to its note, `title`
    /// renames it, `move&shelf=ID` moves it to that shelf, `delete` deletes it.
    @Sendable func editBook(_ request: Request, context: BasicRequestContext) async throws -> Response {
        guard let id = context.parameters.get("id").flatMap(Int.init), library.book(id: id) != nil else {
            return json(["error": "Book not found"], status: .notFound)
        }
        let query = request.uri.queryParameters
        switch query.get("what") ?? "note" {
        case "note":
            server.update { library in
                library.updateBook(id: id) { book in
                    let edits = book.comments.components(separatedBy: "Edited on the sample server").count
                    book.comments += "<div class=\"trix-content\">\n  <div>Edited on the sample server (\(edits)).</div>\n</div>\n"
                }
            }
        case "title":
            server.update { library in library.updateBook(id: id) { $0.title += " (revised)" } }
        case "move":
            guard let shelf = query.get("shelf").flatMap(Int.init), library.shelf(id: shelf) != nil else {
                return json(["error": "No such shelf"], status: .unprocessableContent)
            }
            server.update { library in library.updateBook(id: id) { $0.shelfID = shelf } }
        case "delete":
            server.update { library in library.books.removeAll { $0.id == id } }
        default:
            return json(["error": "what: note, title, move or delete"], status: .badRequest)
        }
        return json(["id": id])
    }

    /// Adds a book (only with `Options.editable`): `POST /_sample/books?shelf=ID&title=TITLE`.
    @Sendable func addBook(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        guard let shelf = query.get("shelf").flatMap(Int.init), library.shelf(id: shelf) != nil else {
            return json(["error": "No such shelf"], status: .unprocessableContent)
        }
        let title = query.get("title") ?? "A new book"
        var id = 0
        server.update { library in id = library.addBook(title: title, shelfID: shelf) }
        return json(["id": id])
    }

    /// The fields every endpoint gives for a book, and the ones this endpoint adds.
    func row(_ book: SampleLibrary.Book, _ extra: [String: Any]) -> [String: Any] {
        var row: [String: Any] = ["id": book.id, "title": book.title, "author": book.author.jsonObject, "isbn": book.isbn.jsonObject]
        row.merge(extra) { _, new in new }
        return row
    }

    /// The server's own URL, from the Host the client used (as Rails builds its URLs).
    func baseURL(_ request: Request) -> String {
        "http://" + (request.head.authority ?? "127.0.0.1")
    }

    func imageURL(_ book: SampleLibrary.Book, base: String) -> Any {
        guard let cover = book.cover else { return NSNull() }
        switch cover {
        case .disk(let file), .objectStorage(let file):
            return "\(base)/rails/active_storage/blobs/redirect/\(CoverRoutes.signedID(book: book.id))/\(file)"
        case .missing:
            return "\(base)/rails/active_storage/blobs/redirect/\(CoverRoutes.signedID(book: book.id))/cover.jpg"
        case .external(let url):
            return url
        case .redirectLoop:
            return "\(base)/rails/active_storage/blobs/redirect/\(CoverRoutes.signedID(book: book.id))/loop.jpg"
        case .thirdPartyGone:
            // Nothing listens on the discard port: the host is "gone".
            return "http://127.0.0.1:9/covers/\(book.id).jpg"
        case .thirdPartyNotImage:
            let other = CoverRoutes.otherHost(String(base.dropFirst("http://".count)))
            return "http://\(other)/third-party/covers/\(book.id).jpg"
        }
    }
}

/// JSON as Rails sends it.
public func json(_ object: Any, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response {
    // The routes' own objects, of JSON's types: encoding them does not fail.
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
    headers.append(contentsOf: extra)
    return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
}

extension ReaderAPIRoutes {
    /// The answer to a GET, made once per library version and Host: the benchmarks measure the
    /// crawl against the latency asked for, not against this server's JSON encoding.
    func answer(_ request: Request, _ build: () -> Any) -> Response {
        let key = (request.head.authority ?? "") + request.uri.path
        let (data, etag) = server.state.answer(for: key) { encodeAnswer(build()) }
        return cached(request, data: data, etag: etag)
    }
}

/// The body of a JSON answer and its weak ETag.
func encodeAnswer(_ object: Any) -> (Data, String) {
    // The routes' own objects, of JSON's types: encoding them does not fail.
    var data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    // Hostile libraries: a marker in a name stands for bytes that are not UTF-8.
    while let range = data.range(of: Data(SampleLibrary.invalidUTF8Marker.utf8)) {
        data.replaceSubrange(range, with: [0xC3, 0x28, 0xFF])
    }
    var hasher = FNV1a()
    hasher.add(data)
    return (data, "W/\"\(String(hasher.value, radix: 16))\"")
}

/// A 200 with a weak ETag, or a 304 when the client sent that ETag back verbatim.
func cached(_ request: Request, data: Data, etag: String) -> Response {
    if let sent = request.headers[.ifNoneMatch], sent.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) {
        return Response(status: .notModified, headers: [.eTag: etag])
    }
    return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8", .eTag: etag,
                                           .cacheControl: "max-age=0, private, must-revalidate"],
                    body: .init(byteBuffer: ByteBuffer(bytes: data)))
}

public func crashPage(_ message: String) -> Response {
    let page = """
    <!DOCTYPE html>
    <html><head><title>We're sorry, but something went wrong (500)</title></head>
    <body><div class="dialog"><h1>We're sorry, but something went wrong.</h1></div>
    <!-- \(message) --></body></html>
    """
    return Response(status: .internalServerError, headers: [.contentType: "text/html; charset=utf-8"],
                    body: .init(byteBuffer: ByteBuffer(string: page)))
}

struct FNV1a {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add(_ data: Data) {
        for byte in data {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01b3
        }
    }
}
