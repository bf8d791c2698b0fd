import AsyncHTTPClient
import Foundation
import NIOCore
import ReaderAPI
import Support

/// Where Open Library is asked, and how (`--enrich openlibrary`).
package struct OpenLibraryOptions: Sendable {
    package static let defaultAPI = URL(string: "https://openlibrary.org")!
    package static let defaultCovers = URL(string: "https://covers.openlibrary.org")!

    /// The Books API's root (`/api/books` is asked under it).
    package var api = Self.defaultAPI
    /// The covers' root (`/b/id/<id>-L.jpg` under it).
    package var covers = Self.defaultCovers
    /// An address Open Library can reach the user at, for the User-Agent it asks for.
    package var contact: String?
    /// Open Library asks for at most one request a second.
    package var interval: Duration = .seconds(1)
    /// ISBNs in one request: Open Library's staff suggest about 25.
    package var batchSize = 25
    package var timeout: Duration = .seconds(30)
    /// The largest answer accepted.
    package var answerBytes = 8 << 20

    package init() {}

    /// "reader-snapshot/1 (+https://…; you@example.com)": who is asking, and how to reach them.
    package var userAgent: String {
        "reader-snapshot/1 (a Reader library export tool" + (contact.map { "; \($0)" } ?? "") + ")"
    }
}

/// Why Open Library gave no answer.
package struct OpenLibraryProblem: Error, Sendable, CustomStringConvertible {
    package enum Reason: Sendable {
        /// 403 or 429: nothing more is asked this run.
        case throttled(status: Int)
        case status(Int)
        case transport(String)
        case unreadable(String)
        case tooLarge(Int)
    }
    package var reason: Reason

    package var throttled: Bool {
        if case .throttled = reason { return true }
        return false
    }

    package var description: String {
        switch reason {
        case .throttled(let status): return "Open Library asked us to slow down (HTTP \(status))"
        case .status(let status): return "Open Library answered HTTP \(status)"
        case .transport(let detail): return "Open Library could not be reached: \(detail)"
        case .unreadable(let detail): return "Open Library's answer could not be read: \(detail)"
        case .tooLarge(let limit): return "Open Library's answer was larger than \(limit) bytes"
        }
    }
}

/// Asks Open Library's Books API for many ISBNs at once, at its pace, with a User-Agent.
struct OpenLibraryClient: Sendable {
    let http: HTTPClient
    let options: OpenLibraryOptions
    let pace: Pace
    let redactor: Redactor

    /// The editions found, by ISBN-13 (those not found are absent; Open Library answers `{}` to a
    /// batch that failed inside as to one it knows none of).
    func editions(_ isbns: [String]) async -> Result<[String: OpenLibraryEdition], OpenLibraryProblem> {
        var components = URLComponents(url: options.api.appendingPathComponent("api/books"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "bibkeys", value: isbns.map { "ISBN:\($0)" }.joined(separator: ",")),
                                 URLQueryItem(name: "format", value: "json"), URLQueryItem(name: "jscmd", value: "data")]
        var request = HTTPClientRequest(url: components.url!.absoluteString)
        request.headers.add(name: "User-Agent", value: options.userAgent)
        request.headers.add(name: "Accept", value: "application/json")
        await pace.wait()
        let body: ByteBuffer
        do {
            let response = try await http.execute(request, timeout: .milliseconds(options.timeout.milliseconds))
            let status = Int(response.status.code)
            switch status {
            case 200: break
            case 403, 429: return .failure(OpenLibraryProblem(reason: .throttled(status: status)))
            default: return .failure(OpenLibraryProblem(reason: .status(status)))
            }
            body = try await response.body.collect(upTo: options.answerBytes)
        } catch is NIOTooManyBytesError {
            return .failure(OpenLibraryProblem(reason: .tooLarge(options.answerBytes)))
        } catch {
            return .failure(OpenLibraryProblem(reason: .transport(FetchPolicy.transport(error, redactor: redactor).description)))
        }
        do {
            let answer = try JSONDecoder().decode([String: OpenLibraryEdition].self, from: Data(body.readableBytesView))
            var editions: [String: OpenLibraryEdition] = [:]
            for (bibkey, edition) in answer where bibkey.hasPrefix("ISBN:") {
                editions[String(bibkey.dropFirst("ISBN:".count))] = edition
            }
            return .success(editions)
        } catch {
            return .failure(OpenLibraryProblem(reason: .unreadable(UntrustedText.displayable(String(String(describing: error).prefix(200))))))
        }
    }
}
