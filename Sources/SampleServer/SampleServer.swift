import Foundation
import Hummingbird
import Logging
import NIOCore

/// A Reader-compatible server for the demo, the tests and the benchmarks. It answers the way
/// `shared/docs/reader-api.md` says the real Rails server does, quirks included: the nested shelf
/// shape, rich-text notes, a 500 crash page for a book on a deleted shelf, covers behind
/// cross-host redirects, weak ETags.
public final class SampleServer: Sendable {
    public struct Options: Sendable {
        /// bcrypt makes the real login take about a quarter of a second.
        public var loginDelay: Duration = .milliseconds(250)
        /// A fixed api key, for tests; random (40 hex digits) when nil.
        public var apiKey: String?
        public init() {}
    }

    public let library: SampleLibrary
    let options: Options
    let state: ServerState

    public init(library: SampleLibrary, options: Options = Options()) {
        self.library = library
        self.options = options
        self.state = ServerState(apiKey: options.apiKey ?? Self.randomKey())
    }

    public var apiKey: String { state.apiKey }
    /// Requests to the object-storage host that carried an api key (must stay 0).
    public var keyLeaks: Int { state.keyLeaks }
    public var requestCount: Int { state.requests }

    static func randomKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<20).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.middlewares.add(CountingMiddleware(state: state))
        let api = ReaderAPIRoutes(server: self)
        router.post("/api/v1/sessions", use: api.login)
        router.get("/api/v1/shelves", use: api.shelves)
        router.get("/api/v1/shelves/:id", use: api.shelf)
        router.get("/api/v1/books", use: api.books)
        router.get("/api/v1/books/:id", use: api.book)
        let covers = CoverRoutes(server: self)
        router.get("/rails/active_storage/blobs/redirect/:signed/:file", use: covers.blobRedirect)
        router.get("/rails/active_storage/disk/:token/:file", use: covers.disk)
        router.get("/storage/:file", use: covers.objectStorage)
        router.get("/third-party/covers/:file", use: covers.thirdPartyPage)
        return router
    }

    public func makeApplication(host: String, port: Int, logger: Logger? = nil,
                                onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        var quiet = logger ?? Logger(label: "sample-server")
        if logger == nil { quiet.logLevel = .critical }
        return Application(router: makeRouter(),
                           configuration: .init(address: .hostname(host, port: port), serverName: "reader-sample"),
                           onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
                           logger: quiet)
    }

    /// Starts the server in the background and returns once it listens.
    public func start(host: String = "127.0.0.1", port: Int = 0) async throws -> RunningSampleServer {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = makeApplication(host: host, port: port) { port in
            continuation.yield(port)
            continuation.finish()
        }
        let task = Task {
            do {
                try await app.run()
            } catch {
                continuation.finish()
                throw error
            }
        }
        for await port in ports {
            return RunningSampleServer(server: self, host: host, port: port, task: task)
        }
        _ = try await task.value
        throw SampleLibraryError(message: "the sample server stopped before it listened on \(host):\(port)")
    }
}

/// A sample server running in this process.
public struct RunningSampleServer: Sendable {
    public let server: SampleServer
    public let host: String
    public let port: Int
    let task: Task<Void, Error>

    public var url: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    public func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

/// What the server counts and may change while it runs.
final class ServerState: @unchecked Sendable {
    private let lock = NSLock()
    private var _apiKey: String
    private var _keyLeaks = 0
    private var _requests = 0

    init(apiKey: String) { _apiKey = apiKey }

    var apiKey: String { lock.withLock { _apiKey } }
    var keyLeaks: Int { lock.withLock { _keyLeaks } }
    var requests: Int { lock.withLock { _requests } }
    func countRequest() { lock.withLock { _requests += 1 } }
    func countKeyLeak() { lock.withLock { _keyLeaks += 1 } }
}

struct CountingMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let state: ServerState
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        state.countRequest()
        return try await next(request, context)
    }
}
