import AsyncHTTPClient
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import Support

/// Credentials for the Reader API: a password to log in with, or a key already issued.
package enum ReaderCredentials: Sendable {
    case password(email: String, password: String)
    case apiKey(userID: Int, apiKey: String)

    package var secrets: [String] {
        switch self {
        case .password(_, let password): return [password]
        case .apiKey(_, let key): return [key]
        }
    }
}

/// Limits on what the server may send.
package struct ResponseLimits: Sendable {
    /// One JSON answer (`/books` of a big library is the largest).
    package var jsonBytes: Int = 64 << 20
    package var coverBytes: Int = 20 << 20
    package var redirects: Int = 5
    package init() {}
}

/// The Reader API client: one request in, one typed value or one `ReaderAPIError` out.
package final class ReaderClient: Sendable {
    package let server: ServerAddress
    package let http: HTTPClient
    package let timeout: TimeAmount
    package let limits: ResponseLimits
    package let redactor: Redactor
    package let retry: RetryPolicy
    package let cache: ResponseCache?
    /// What the run asked of the network; handed in by a caller that reads it even when the run fails.
    package let metrics: ClientMetrics
    /// For --verbose: each retry, with its reason.
    package let logger: Logger?
    private let sessionBox: SessionBox
    /// Whether the server still answers; once it has stopped, no request is sent.
    let watch = ServerWatchBox()

    /// Why the server is taken to have stopped answering during this run, if it has.
    package var serverStopped: ServerWatch.Stopped? { watch.stopped }

    /// At the end of a crawl: whether the server stopped answering, its last requests included.
    package func serverStoppedAtTheEnd() -> ServerWatch.Stopped? { watch.settle() }

    package init(server: ServerAddress, http: HTTPClient, timeout: Duration = .seconds(30),
                limits: ResponseLimits = ResponseLimits(), redactor: Redactor = Redactor(),
                retry: RetryPolicy = .none, cache: ResponseCache? = nil, logger: Logger? = nil,
                metrics: ClientMetrics = ClientMetrics()) {
        self.metrics = metrics
        self.logger = logger
        self.server = server
        self.http = http
        self.retry = retry
        self.cache = cache
        self.timeout = .milliseconds(timeout.milliseconds)
        self.limits = limits
        self.redactor = redactor
        self.sessionBox = SessionBox()
    }

    /// A client for this tool: redirects are followed by hand, so that the key never crosses origins.
    package static func makeHTTPClient(concurrency: Int, connectTimeout: Duration = .seconds(5)) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .milliseconds(connectTimeout.milliseconds), read: .seconds(60))
        )
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(1, concurrency)
        // A refused connection is an answer: our own retries decide what happens next, instead of
        // the pool trying again until the connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.decompression = .enabled(limit: .ratio(50))
        // No tracer: a span with its attributes made for every request cost 2% of a crawl's CPU.
        configuration.tracing.tracer = nil
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    package var session: ReaderSession? { sessionBox.value }

    /// Logs in (or takes the key given) and remembers the session for later requests.
    @discardableResult
    package func authenticate(_ credentials: ReaderCredentials) async throws -> ReaderSession {
        watch.restart()
        switch credentials {
        case .apiKey(let userID, let apiKey):
            let session = ReaderSession(userID: userID, apiKey: apiKey)
            sessionBox.value = session
            return session
        case .password(let email, let password):
            let session = try await login(email: email, password: password)
            sessionBox.value = session
            return session
        }
    }

    func login(email: String, password: String) async throws -> ReaderSession {
        let name = "POST /api/v1/sessions"
        var request = HTTPClientRequest(url: server.url(path: "/api/v1/sessions").absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json")
        // JSONEncoder, not JSONSerialization: its sorted keys are compared by ICU, whose data then
        // stays in a run's memory.
        let body = try JSONEncoder().encode(LoginRequest(email: email, password: password))
        request.body = .bytes(ByteBuffer(bytes: body))
        let answer = try decode(try await send(request, name: name, tellsTries: true), name: name, as: LoginAnswer.self)
        return ReaderSession(userID: answer.user_id.value, apiKey: answer.api_key)
    }

    /// The shelves' and the list of books' paths, which are also their keys in the cache.
    package static let shelvesPath = "/api/v1/shelves", booksPath = "/api/v1/books"

    package func shelves() async throws -> ShelvesAnswer {
        try await get(Self.shelvesPath, tellsTries: true)
    }

    /// A shelf's answer as it came, to be read by `shelf(from:id:)` off the threads answers resume on.
    package func shelfBody(id: Int) async throws -> Data {
        try await getData("/api/v1/shelves/\(id)")
    }

    package func shelf(from body: Data, id: Int) throws -> ShelfAnswer {
        try decode(body, name: "GET \(server.basePath)/api/v1/shelves/\(id)", as: ShelfAnswer.self)
    }

    /// The list's answer as it came, to be read by `books(from:each:)` off the threads answers resume on.
    package func booksBody() async throws -> Data {
        try await getData(Self.booksPath, tellsTries: true)
    }

    /// The list of books a book at a time: each book's fields, with its JSON as it stood in the
    /// answer, are handed over as soon as they are decoded; the list is never decoded whole (for
    /// 100,000 books that took 200 MB). Returns the account's name, if the answer gives it.
    package func books(from body: Data, each: (BookFields, Data) throws -> Void) throws -> String? {
        let name = "GET \(server.basePath)/api/v1/books"
        var data = body
        if let repaired = UntrustedText.repairedUTF8(data) { data = Data(repaired) }
        var split = ArraySplitter()
        var index = 0
        let decoder = JSONDecoder()
        do {
            let laidOut = try split.feed(data) { element in
                do {
                    try each(try decoder.decode(BookFields.self, from: element), element)
                } catch let error as DecodingError {
                    let (path, detail) = Self.describe(error)
                    throw ReaderAPIError(.undecodable(path: UntrustedText.displayable("books[\(index)]" + (path.isEmpty ? "" : "." + path)),
                                                      detail: UntrustedText.displayable(redactor.redact(detail))), request: name)
                }
                index += 1
            }
            if laidOut && split.isComplete {
                return try decode(split.frame, name: name, as: BooksAnswer.self).user
            }
        }
        // Another layout: decoded whole (an error then says where), past the books already handed over.
        let answer = try decode(data, name: name, as: BooksAnswer.self)
        let encoder = JSONEncoder()
        for book in answer.books.dropFirst(index) { try each(book, try encoder.encode(book.fields)) }
        return answer.user
    }

    /// `retryServerErrors: false` where a 500 is the expected answer (a book on a deleted shelf):
    /// retrying a crash that will happen again only costs time. Not cached: an unchanged book is
    /// known from `/books` and taken from the last snapshot, and keeping every book's answer would
    /// cost memory in proportion to the library. The body as it came, to be read by `book(from:id:)`
    /// off the threads answers resume on.
    package func bookBody(id: Int, retryServerErrors: Bool = true) async throws -> Data {
        try await getData("/api/v1/books/\(id)", retryServerErrors: retryServerErrors, cached: false)
    }

    package func book(from body: Data, id: Int) throws -> BookAnswer {
        try decode(body, name: "GET \(server.basePath)/api/v1/books/\(id)", as: BookAnswer.self)
    }

    func get<Answer: Decodable>(_ path: String, retryServerErrors: Bool = true, cached: Bool = true, tellsTries: Bool = false) async throws -> Answer {
        let data = try await getData(path, retryServerErrors: retryServerErrors, cached: cached, tellsTries: tellsTries)
        return try decode(data, name: "GET \(server.basePath)\(path)", as: Answer.self)
    }

    /// The answer's body, once it came back whole and well (retried while it may pass).
    func getData(_ path: String, retryServerErrors: Bool = true, cached: Bool = true, tellsTries: Bool = false) async throws -> Data {
        let name = "GET \(server.basePath)\(path)"
        guard let session = sessionBox.value else {
            throw ReaderAPIError(.unauthorized(message: "not logged in"), request: name)
        }
        let url = server.url(path: path, query: [
            URLQueryItem(name: "api_key", value: session.apiKey),
            URLQueryItem(name: "user_id", value: String(session.userID)),
        ])
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        // The cache is keyed by path: the key in the query is not the cache's business.
        return try await send(request, name: name, cacheKey: cached ? path : nil, retryServerErrors: retryServerErrors, tellsTries: tellsTries)
    }

    /// One request, retried while it fails in a way that may pass (`FetchPolicy`). With
    /// `tellsTries` (the login and the lists, which end the run when they fail), a request that
    /// never got through says how long it waited and how many times it tried; a book's does not,
    /// since its words are kept in the snapshot, which must be the same bytes from run to run.
    private func send(_ request: HTTPClientRequest, name: String, cacheKey: String? = nil,
                      retryServerErrors: Bool = true, tellsTries: Bool = false) async throws -> Data {
        var request = request
        if let cacheKey, let etag = cache?.etag(for: cacheKey) {
            request.headers.replaceOrAdd(name: "If-None-Match", value: etag)
        }
        let started = ContinuousClock.now
        var tries = 0
        let result = try await retrying {
            tries += 1
            return try await attemptOnce(request, name: name, cacheKey: cacheKey, retryServerErrors: retryServerErrors)
        }
        switch result {
        case .success(let data):
            return data
        case .failure(var error):
            if tellsTries, tries > 1, case .transport(let detail) = error.reason {
                let waited = Int((ContinuousClock.now - started).components.seconds)
                error.reason = .transport(detail: "\(detail) (\(tries) tries in \(waited) s)")
            }
            throw error
        }
    }

    private func attemptOnce(_ request: HTTPClientRequest, name: String, cacheKey: String?,
                             retryServerErrors: Bool) async throws -> FetchPolicy.Try<Data, ReaderAPIError> {
        if let stopped = watch.stopped {
            return .done(.failure(ReaderAPIError(.stoppedAnswering(stopped), request: name)))
        }
        let response: HTTPClientResponse
        let body: ByteBuffer
        metrics.record { $0.requests += 1 }
        do {
            response = try await http.execute(request, timeout: timeout)
            body = try await response.body.collect(upTo: limits.jsonBytes)
        } catch is NIOTooManyBytesError {
            return .done(.failure(ReaderAPIError(.tooLarge(limit: limits.jsonBytes), request: name)))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // Timeouts, resets, refusals and bodies cut short: all may pass on another try.
            let transport = FetchPolicy.transport(error, redactor: redactor)
            guard transport.mayPass else { return .done(.failure(ReaderAPIError(.transport(detail: transport.description), request: name))) }
            if let stopped = watch.unanswered(transport.description) {
                return .done(.failure(ReaderAPIError(.stoppedAnswering(stopped), request: name)))
            }
            return .again(ReaderAPIError(.transport(detail: transport.description), request: name))
        }
        metrics.record { $0.bytesReceived += body.readableBytes }
        let status = Int(response.status.code)
        // A proxy's 502–504 is not Rails answering.
        if (502...504).contains(status) {
            if let stopped = watch.unanswered("HTTP \(status)") {
                return .done(.failure(ReaderAPIError(.stoppedAnswering(stopped), request: name)))
            }
        } else {
            watch.answered()
        }
        let data = Data(body.readableBytesView)
        let contentType = response.headers.first(name: "Content-Type") ?? ""
        let isJSON = contentType.lowercased().contains("json")
        func failed(_ reason: ReaderAPIError.Reason) -> FetchPolicy.Try<Data, ReaderAPIError> {
            .done(.failure(ReaderAPIError(reason, request: name)))
        }
        switch FetchPolicy.status(status, retryAfter: response.headers.first(name: "Retry-After")) {
        case .answer:
            guard isJSON else { return failed(.notJSON(status: status, contentType: UntrustedText.displayable(contentType))) }
            if let cacheKey, let etag = response.headers.first(name: "ETag") { cache?.store(cacheKey, etag: etag, body: data) }
            return .done(.success(data))
        case .notModified where cacheKey != nil:
            guard let kept = cache?.reuse(cacheKey!) else { break }
            metrics.record { $0.notModified += 1 }
            return .done(.success(kept))
        case .busy(let retryAfter):
            let reason: ReaderAPIError.Reason = status == 429 ? .unexpectedStatus(status: status, message: "too many requests") : .serverError(status: status)
            return .again(ReaderAPIError(reason, request: name), retryAfter: retryAfter)
        case .crash:
            let error = ReaderAPIError(.serverError(status: status), request: name)
            return retryServerErrors ? .again(error) : .done(.failure(error))
        case .notModified, .redirect, .final:
            break
        }
        // The server's words: redacted (it echoes keys) and stripped of control characters (they
        // would reach a terminal or a cron mail). An answer without them is told by its status.
        let message = isJSON ? UntrustedText.displayable(redactor.redact((try? JSONDecoder().decode(ErrorAnswer.self, from: data))?.error ?? "")) : ""
        switch status {
        case 401: return failed(.unauthorized(message: message.isEmpty ? "no reason given" : message))
        case 404 where isJSON: return failed(.notFound(message: message))
        default: return failed(.unexpectedStatus(status: status, message: message))
        }
    }

    private func decode<Answer: Decodable>(_ data: Data, name: String, as: Answer.Type) throws -> Answer {
        do {
            if let repaired = UntrustedText.repairedUTF8(data) {
                return try JSONDecoder().decode(Answer.self, from: Data(repaired))
            }
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch let error as DecodingError {
            let (path, detail) = Self.describe(error)
            throw ReaderAPIError(.undecodable(path: UntrustedText.displayable(path), detail: UntrustedText.displayable(redactor.redact(detail))), request: name)
        }
    }

    package static func describe(_ error: DecodingError) -> (path: String, detail: String) {
        func path(_ codingPath: [CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(in: ["."])
        }
        switch error {
        case .keyNotFound(let key, let context):
            let base = path(context.codingPath)
            return (base.isEmpty ? key.stringValue : base + "." + key.stringValue, "missing field")
        case .typeMismatch(let type, let context):
            return (path(context.codingPath), "expected \(type)")
        case .valueNotFound(let type, let context):
            return (path(context.codingPath), "expected \(type), found null")
        case .dataCorrupted(let context):
            return (path(context.codingPath), context.debugDescription)
        @unknown default:
            return ("", "undecodable")
        }
    }
}

/// The session, set once by `authenticate` and read by every request after it.
private final class SessionBox: Sendable {
    private let stored = NIOLockedValueBox<ReaderSession?>(nil)
    var value: ReaderSession? {
        get { stored.withLockedValue { $0 } }
        set { stored.withLockedValue { $0 = newValue } }
    }
}
