import AsyncHTTPClient
import Foundation
import TestSupport
import Testing
@testable import Crawl
@testable import LibraryArchive
@testable import ReaderAPI
@testable import Support

/// The API client on each answer shape: both shelf shapes, lenient fields, every error.
@Suite(.serialized)
struct ReaderClientTests {
    static let key = "3f0c9a1b2c3d4e5f60718293a4b5c6d7e8f90123"

    static func withClient<T: Sendable>(_ answers: [String: CannedAnswer],
                                        _ body: @Sendable (ReaderClient) async throws -> T) async throws -> T {
        try await CannedServer.with(answers) { url in
            let http = ReaderClient.makeHTTPClient(concurrency: 2)
            let client = ReaderClient(server: try ServerAddress(url), http: http, redactor: Redactor(secrets: [key]))
            try await client.authenticate(.apiKey(userID: 1, apiKey: key))
            do {
                let value = try await body(client)
                try await http.shutdown()
                return value
            } catch {
                try await http.shutdown()
                throw error
            }
        }
    }

    static func reason(of body: () async throws -> Void) async -> ReaderAPIError.Reason? {
        do { try await body(); return nil } catch let error as ReaderAPIError { return error.reason } catch { return nil }
    }

    @Test func shelfInTheServersNestedShape() async throws {
        let body = """
        {"user":"reader@example.com","shelf":{"id":1,"name":"Currently Reading 🤷‍♂️","book_count":2,"books":[
          {"id":7,"title":"Dune","author":"Frank Herbert","isbn":"9780441013593","image_url":"https://x/y.jpg"},
          {"id":8,"title":"Untitled","author":null,"isbn":""}]}}
        """
        let shelf = try await Self.withClient(["/api/v1/shelves/1": CannedAnswer(body: body)]) { try await $0.shelf(id: 1) }
        #expect(shelf.shelf.name == "Currently Reading 🤷‍♂️")
        #expect(shelf.books.map(\.id) == [7, 8])
        #expect(shelf.books[0].text("image_url") == "https://x/y.jpg")
        #expect(shelf.books[1].fields["author"] == .null)
    }

    @Test func shelfInTheDocumentedFlatShape() async throws {
        let body = """
        {"shelf":{"id":1,"name":"Currently Reading"},"books":[{"id":7,"title":"Dune","author":"Frank Herbert","isbn":"9780441013593"}]}
        """
        let shelf = try await Self.withClient(["/api/v1/shelves/1": CannedAnswer(body: body)]) { try await $0.shelf(id: 1) }
        #expect(shelf.books.map(\.id) == [7])
        #expect(shelf.shelf.bookCount == nil)
    }

    @Test func bookDetailWithNotesInEveryForm() async throws {
        let answers: [String: CannedAnswer] = [
            "/api/v1/books/1": CannedAnswer(body: #"{"book":{"id":1,"title":"A","comments":"<div class=\"trix-content\">\n  <div>Hi</div>\n</div>\n","shelf_id":1,"shelf_name":"S","image_url":null}}"#),
            "/api/v1/books/2": CannedAnswer(body: #"{"book":{"id":2,"title":"B","comments":null}}"#),
            "/api/v1/books/3": CannedAnswer(body: #"{"book":{"id":3,"title":"C","comments":"","isbn":9780441013593,"extra":{"x":[1,2]}}}"#),
        ]
        let books = try await Self.withClient(answers) { client in
            [try await client.book(id: 1).book, try await client.book(id: 2).book, try await client.book(id: 3).book]
        }
        let converted = books.map { Crawler.book(id: $0.id, fields: $0.fields, complete: true) }
        #expect(converted[0].note.markdown == "Hi\n")
        #expect(converted[0].note.format == .richText)
        #expect(converted[1].note.format == .none && converted[1].note.source == nil)
        #expect(converted[2].note.format == .none && converted[2].note.source == "")
        #expect(converted[2].isbn == "9780441013593")
        #expect(converted[2].serverFields["extra"] == .object(["x": .array([.int(1), .int(2)])]))
        #expect(converted[0].serverFields["comments"] == nil)
    }

    /// The list of books is decoded a book at a time, in either order of its keys; a bad book is
    /// named by its place, and a list in another layout is still read.
    @Test func theListOfBooksIsReadABookAtATime() async throws {
        let answers: [String: CannedAnswer] = [
            "/api/v1/books": CannedAnswer(body: #"{"books":[{"id":1,"title":"A ] } \" [ {","shelf_id":2},{"id":"2","title":"B","extra":{"books":[1]}}],"user":"me@example.com"}"#),
        ]
        let (user, books) = try await Self.withClient(answers) { client in
            var books: [(BookFields, Data)] = []
            let user = try await client.books { books.append(($0, $1)) }
            return (user, books)
        }
        #expect(user == "me@example.com")
        #expect(books.map(\.0.id) == [1, 2])
        #expect(books[0].0.text("title") == "A ] } \" [ {" && books[0].0.int("shelf_id") == 2)
        // Each book's own JSON, as it stood in the answer: it decodes to the same fields.
        #expect(try books.map { try JSONDecoder().decode([String: JSONValue].self, from: $0.1) } == books.map(\.0.fields))
        #expect(books[1].0.fields["extra"] == .object(["books": .array([.int(1)])]))

        for (body, expected) in [(#"{"books":[{"id":1,"title":"ok"},{"id":2,"title":7}]}"#, "books[1].title"),
                                 (#"{"books":[{"id":1,"title":"ok"},null]}"#, "books[1]")] {
            let error = try await Self.withClient(["/api/v1/books": CannedAnswer(body: body)]) { client -> ReaderAPIError? in
                do { _ = try await client.books { _, _ in } } catch let error as ReaderAPIError { return error }
                return nil
            }
            if case .undecodable(let path, _)? = error?.reason { #expect(path == expected) } else { Issue.record("\(String(describing: error))") }
        }
    }

    @Test func errorsAreTypedAndNeverCarryTheKey() async throws {
        let answers: [String: CannedAnswer] = [
            "/api/v1/books": CannedAnswer(status: .unauthorized, body: #"{"error":"Invalid API Key: \#(Self.key)"}"#),
            "/api/v1/books/404": CannedAnswer(status: .notFound, body: #"{"error":"Book not found"}"#),
            "/api/v1/books/500": CannedAnswer(status: .internalServerError, contentType: "text/html", body: "<html>We're sorry</html>"),
            "/api/v1/books/200": CannedAnswer(contentType: "text/html", body: "<html>login page</html>"),
            "/api/v1/books/bad": CannedAnswer(body: #"{"book":{"title":"no id"}}"#),
            "/api/v1/books/badtype": CannedAnswer(body: #"{"book":{"id":1,"title":42}}"#),
            "/api/v1/shelves": CannedAnswer(body: #"{"user":"u","shelves":[{"id":1,"name":"A"},{"id":"x","name":"B"}]}"#),
        ]
        let results = try await Self.withClient(answers) { client -> [ReaderAPIError] in
            var errors: [ReaderAPIError] = []
            for call in [{ _ = try await client.books { _, _ in } }, { _ = try await client.book(id: 404) },
                         { _ = try await client.get("/api/v1/books/500") as BookAnswer },
                         { _ = try await client.get("/api/v1/books/200") as BookAnswer },
                         { _ = try await client.get("/api/v1/books/bad") as BookAnswer },
                         { _ = try await client.get("/api/v1/books/badtype") as BookAnswer },
                         { _ = try await client.shelves() }] as [@Sendable () async throws -> Void] {
                do { try await call() } catch let error as ReaderAPIError { errors.append(error) }
            }
            return errors
        }
        #expect(results.count == 7)
        #expect(results[0].isUnauthorized)
        #expect(results[0].reason == .unauthorized(message: "Invalid API Key: [redacted]"))
        #expect(results[1].reason == .notFound(message: "Book not found"))
        #expect(results[2].reason == .serverError(status: 500))
        #expect(results[3].reason == .notJSON(status: 200, contentType: "text/html"))
        #expect(results[4].reason == .undecodable(path: "book.id", detail: "missing field"))
        if case .undecodable(let path, _) = results[5].reason { #expect(path == "book.title") } else { Issue.record("\(results[5])") }
        if case .undecodable(let path, _) = results[6].reason { #expect(path == "shelves[1].id") } else { Issue.record("\(results[6])") }
        for error in results {
            #expect(!error.description.contains(Self.key))
            #expect(!error.description.contains("api_key"))
        }
        #expect(results[1].description == "GET /api/v1/books/404: not found (404: Book not found)")
    }

    @Test func transportFailureIsNamedWithoutTheURLQuery() async throws {
        let http = ReaderClient.makeHTTPClient(concurrency: 1, connectTimeout: .milliseconds(300))
        let client = ReaderClient(server: try ServerAddress("http://127.0.0.1:9"), http: http)
        try await client.authenticate(.apiKey(userID: 1, apiKey: Self.key))
        let reason = await Self.reason { _ = try await client.shelves() }
        try await http.shutdown()
        guard case .transport(let detail) = reason else { Issue.record("\(String(describing: reason))"); return }
        // Told by the error's type: nothing listens on port 9.
        #expect(detail == "connection refused")
        #expect(!detail.contains(Self.key))
    }

    @Test func serverAddressesAreCheckedAndOriginsCompared() throws {
        #expect(throws: ReaderAPIError.self) { try ServerAddress("ftp://x") }
        #expect(throws: ReaderAPIError.self) { try ServerAddress("https://user:pw@x") }
        #expect(throws: ReaderAPIError.self) { try ServerAddress("not a url") }
        let address = try ServerAddress("https://Reader.Example.com/sub/")
        #expect(address.description == "https://reader.example.com/sub")
        #expect(address.url(path: "/api/v1/books").absoluteString == "https://reader.example.com/sub/api/v1/books")
        #expect(address.isSameOrigin(URL(string: "https://reader.example.com:443/rails/x")!))
        // An IPv6 server: its requests' URLs keep the brackets, and it is told from others by its address.
        let local = try ServerAddress("http://[::1]:8080")
        #expect(local.description == "http://[::1]:8080")
        #expect(local.url(path: "/api/v1/books").absoluteString == "http://[::1]:8080/api/v1/books")
        #expect(local.isLoopback)
        #expect(local.isSameOrigin(URL(string: "http://[::1]:8080/covers/1.jpg")!))
        #expect(!local.isSameOrigin(URL(string: "http://127.0.0.1:8080/covers/1.jpg")!))
        #expect(!address.isSameOrigin(URL(string: "http://reader.example.com/rails/x")!))
        #expect(!address.isSameOrigin(URL(string: "https://storage.example.com/x")!))
    }

    @Test func redactorRemovesSecretsAndKeyLikeText() {
        let redactor = Redactor(secrets: ["hunter22"])
        #expect(redactor.redact("password hunter22 here") == "password [redacted] here")
        #expect(redactor.redact("GET /x?api_key=abc&user_id=1") == "GET /x?api_key=[redacted]&user_id=1")
        #expect(redactor.redact("Invalid API Key: \(Self.key)") == "Invalid API Key: [redacted]")
        #expect(redactor.redact("isbn 9780441013593") == "isbn 9780441013593")
    }

    @Test func oneStatusRuleForJSONAndCovers() {
        #expect(FetchPolicy.status(200, retryAfter: nil) == .answer)
        #expect(FetchPolicy.status(204, retryAfter: nil) == .answer)
        #expect(FetchPolicy.status(304, retryAfter: nil) == .notModified)
        for code in [301, 302, 303, 307, 308] { #expect(FetchPolicy.status(code, retryAfter: nil) == .redirect) }
        #expect(FetchPolicy.status(429, retryAfter: "3") == .busy(retryAfter: .seconds(3)))
        for code in [502, 503, 504] { #expect(FetchPolicy.status(code, retryAfter: "3") == .busy(retryAfter: nil)) }
        for code in [500, 501, 599] { #expect(FetchPolicy.status(code, retryAfter: nil) == .crash) }
        for code in [300, 305, 400, 401, 403, 404, 410, 418] { #expect(FetchPolicy.status(code, retryAfter: nil) == .final) }
    }

    @Test func retryAfterIsReadSafely() {
        #expect(RetryPolicy.parseRetryAfter("2") == .seconds(2))
        #expect(RetryPolicy.parseRetryAfter("0.5") == .milliseconds(500))
        #expect(RetryPolicy.parseRetryAfter("inf") == nil)
        #expect(RetryPolicy.parseRetryAfter("nan") == nil)
        #expect(RetryPolicy.parseRetryAfter("-1") == nil)
        #expect(RetryPolicy.parseRetryAfter("1e300") == .seconds(86_400))
        #expect(RetryPolicy.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT") == nil)
        #expect(RetryPolicy().delay(beforeRetry: 1, retryAfter: .seconds(86_400)) == .seconds(60))
    }

    @Test func serverWordsReachNoTerminalAsControlCharacters() async throws {
        let answers: [String: CannedAnswer] = [
            "/api/v1/shelves/1": CannedAnswer(status: .notFound, body: #"{"error":"\u001b]52;c;aGk=\u0007\r\u001b[2KShelf not found"}"#),
        ]
        let error = try await Self.withClient(answers) { client -> ReaderAPIError? in
            do { _ = try await client.shelf(id: 1); return nil } catch let error as ReaderAPIError { return error }
        }
        let text = try #require(error).description
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(text.debugDescription)")
        #expect(text.contains("Shelf not found"))
    }

    @Test func imageFormatsComeFromTheBytes() {
        #expect(ImageFormat(sniffing: [0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(ImageFormat(sniffing: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == .png)
        #expect(ImageFormat(sniffing: Array("GIF89a...".utf8)) == .gif)
        #expect(ImageFormat(sniffing: Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
        #expect(ImageFormat(sniffing: Array("<html>".utf8)) == nil)
        #expect(ImageFormat(sniffing: Array("<svg xmlns=".utf8)) == nil)
        #expect(ImageFormat(sniffing: [UInt8]()) == nil)
    }
}
