import AsyncHTTPClient
import Foundation
import Hummingbird
import Support
import Testing
@testable import Enrich

/// One request to the Books API, as Open Library asks to be asked, and each way its answer can fail.
@Suite struct OpenLibraryClientTests {
    static func client(_ api: URL, contact: String? = nil, answerBytes: Int = 8 << 20) -> OpenLibraryClient {
        var options = OpenLibraryOptions()
        options.api = api
        options.contact = contact
        options.answerBytes = answerBytes
        return OpenLibraryClient(http: HTTPClient.shared, options: options, pace: Pace(interval: .zero), redactor: Redactor())
    }

    @Test func manyISBNsAreAskedInOneRequestThatSaysWhoIsAsking() async throws {
        let isbns = [OpenLibraryEnricherTests.known, OpenLibraryEnricherTests.unknown, OpenLibraryEnricherTests.mobyDick]
        try await OpenLibraryEnricherTests.withBooksAPI { api, requests in
            let result = await Self.client(api, contact: "reader@example.com").editions(isbns)
            let editions = try result.get()
            #expect(Set(editions.keys) == [OpenLibraryEnricherTests.known, OpenLibraryEnricherTests.mobyDick])
            #expect(editions[OpenLibraryEnricherTests.mobyDick]?.found.fields.publisher == "Press 7247")
            let request = try #require(requests.list.first)
            #expect(requests.list.count == 1)
            #expect(request.query == ["bibkeys": isbns.map { "ISBN:\($0)" }.joined(separator: ","), "format": "json", "jscmd": "data"])
            #expect(request.userAgent?.hasPrefix("reader-snapshot/") == true && request.userAgent?.contains("reader@example.com") == true,
                    "\(String(describing: request.userAgent))")
            #expect(request.accept == "application/json")
        }
    }

    @Test func keysThatAreNotISBNsAreLeftOut() async throws {
        let answer = #"{"ISBN:9780000000002": {"key": "/books/OL2M"}, "OCLC:12345": {"key": "/books/OL3M"}, "9780000000004": {}}"#
        try await OpenLibraryEnricherTests.withBooksAPI(answer: { _ in (.ok, answer) }) { api, _ in
            let editions = try await Self.client(api).editions(["9780000000002"]).get()
            #expect(Array(editions.keys) == ["9780000000002"])
            #expect(editions["9780000000002"]?.found.fields.key == "/books/OL2M")
        }
    }

    /// The problem `editions` gives for an answer of `status` and `body`; nil when it gave editions.
    static func problem(_ status: HTTPResponse.Status, _ body: String, answerBytes: Int = 8 << 20) async throws -> String? {
        try await OpenLibraryEnricherTests.withBooksAPI(answer: { _ in (status, body) }) { api, _ in
            guard case .failure(let problem) = await Self.client(api, answerBytes: answerBytes).editions(["9780000000002"]) else { return nil }
            return problem.description
        }
    }

    @Test func eachFailingAnswerIsToldForWhatItIs() async throws {
        #expect(try await Self.problem(.internalServerError, "{}") == "Open Library answered HTTP 500")
        #expect(try await Self.problem(.tooManyRequests, "{}") == "Open Library asked us to slow down (HTTP 429)")
        #expect(try await Self.problem(.forbidden, "{}") == "Open Library asked us to slow down (HTTP 403)")
        let html = try await Self.problem(.ok, "<html>Service Unavailable</html>")
        #expect(html?.hasPrefix("Open Library's answer could not be read: ") == true, "\(String(describing: html))")
        let large = "{\"ISBN:9780000000002\": {\"key\": \"" + String(repeating: "x", count: 200) + "\"}}"
        #expect(try await Self.problem(.ok, large, answerBytes: 100) == "Open Library's answer was larger than 100 bytes")
        #expect(try await Self.problem(.ok, large, answerBytes: 1000) == nil)
    }
}
