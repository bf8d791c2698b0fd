import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// A Reader-compatible server for the demo, the tests and the benchmarks. It answers the way
/// `shared/docs/reader-api.md` says the real Rails server does, quirks included: the nested shelf
/// shape, rich-text notes, a 500 crash page for a book on a deleted shelf, covers behind
/// cross-host redirects, weak ETags. It answers at once: the latency, the real server's costs and
/// the faults of tests and benchmarks are `AnswerConditions`, which the shipped tool does not carry
/// (`SampleServerDoubles`).
public final class SampleServer: Sendable {
    public struct Options: Sendable {
        /// bcrypt makes the real login take about a quarter of a second.
        public var loginDelay: Duration = .milliseconds(250)
        /// A fixed api key, for tests; random (40 hex digits) when nil.
        public var apiKey: String?
        /// What stands between a request and its answer (tests, benchmarks): nothing when nil.
        public var conditions: (any AnswerConditions)?
        /// Whether `/api/v1/books` gives each book's `shelf_id`, as the real server does (Reader's
        /// older documents leave it out: a client must then read every shelf's page).
        public var listsShelfIDs = true
        /// Whether `POST /_sample/books/:id/edit` and `POST /_sample/books` change the library, as its
        /// owner would in the web app (tests, benchmarks and demos of a night with a change).
        public var editable = false
        /// An Open Library double under `/openlibrary/` (`sample-server --openlibrary`): nil, none.
        public var openLibrary: OpenLibraryDouble.Options?
        public init() {}
    }

    let options: Options
    let state: ServerState

    public init(library: SampleLibrary, options: Options = Options()) {
        self.options = options
        self.state = ServerState(library: library, apiKey: options.apiKey ?? Self.randomKey())
        self.openLibrary = options.openLibrary.map(OpenLibraryRoutes.init)
    }
    let openLibrary: OpenLibraryRoutes?

    /// What stands between a request and its answer, as the options gave it.
    public var conditions: (any AnswerConditions)? { options.conditions }

    /// What the Open Library double was asked.
    public var openLibraryCounters: OpenLibraryDouble.Counters { openLibrary?.counters ?? .init() }

    /// The library as it is now (tests change it between runs with `update`).
    public var library: SampleLibrary { state.library }
    public var apiKey: String { state.apiKey }
    /// Requests to the object-storage host that carried an api key (must stay 0).
    public var keyLeaks: Int { state.counters.keyLeaks }
    public var counters: ServerCounters { state.counters }
    /// Whether the server is stopping: what holds an answer back lets it go.
    public var isStopping: Bool { state.isStopping }

    public func update(_ change: (inout SampleLibrary) -> Void) { state.updateLibrary(change) }
    /// A new key: every request with the old one is refused from now on, as after a revocation.
    public func revokeKey() { state.setAPIKey(Self.randomKey()) }
    /// These books' detail pages fail (a 500 crash page) until set again: a deploy or an outage
    /// that one night's run meets.
    public func setFailingDetails(_ ids: Set<Int>) { state.failingDetails = ids }
    /// These cover files fail on the disk service (503) until set again: a storage outage.
    public func setFailingCovers(_ files: Set<String>) { state.failingCovers = files }
    public func resetCounters() {
        state.resetCounters()
        openLibrary?.resetCounters()
    }

    static func randomKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<20).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.middlewares.add(RequestCounter(server: self))
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
        if let openLibrary {
            router.get("/openlibrary/api/books", use: openLibrary.books)
            // The same, as a browser asks it (the address Open Library answers cross-origin).
            router.get("/openlibrary/api/books.json", use: openLibrary.books)
            router.get("/openlibrary/covers/b/id/:file", use: openLibrary.cover)
        }
        if options.editable {
            router.post("/_sample/books/:id/edit", use: api.editBook)
            router.post("/_sample/books", use: api.addBook)
        }
        return router
    }

    public func makeApplication(host: String, port: Int, logger: Logger? = nil,
                                onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        var quiet = logger ?? Logger(label: "sample-server")
        if logger == nil { quiet.logLevel = .critical }
        return Application(router: makeRouter(),
                           server: .http1(configuration: .init(additionalChannelHandlers: [ArrivalStamp()])),
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
        // A service group, so that stopping is graceful: answers under way are finished and the
        // connections closed, rather than torn down mid-write.
        let group = ServiceGroup(services: [app], logger: Logger(label: "sample-server-lifecycle", factory: { _ in SwiftLogNoOpLogHandler() }))
        // The server's own threads: its answers never wait on what the rest of the process does.
        let task = Task(executorPreference: ServerExecutor.shared) {
            do {
                try await group.run()
            } catch {
                continuation.finish()
                throw error
            }
        }
        for await port in ports {
            return RunningSampleServer(server: self, host: host, port: port, group: group, task: task)
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
    let group: ServiceGroup
    let task: Task<Void, Error>

    public var url: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// Stops listening, on the server's own threads, and returns at once: for a test's double that
    /// stops the server as a request arrives.
    public func stopSoon() {
        Task(executorPreference: ServerExecutor.shared) { await stop() }
    }

    /// Ends stalled answers, lets the rest finish, then stops listening.
    public func stop() async {
        server.state.setStopping()
        await group.triggerGracefulShutdown()
        // How the server ended is nothing to a caller that stopped it.
        _ = try? await task.value
    }
}

/// What the server has answered, for tests and benchmarks.
public struct ServerCounters: Sendable {
    public var requests = 0
    public var apiRequests = 0
    /// Answers 304 Not Modified.
    public var notModified = 0
    /// Cover image bytes sent (disk and object storage).
    public var coverBytes = 0
    public var coverRequests = 0
    /// Requests for one book's details (`/api/v1/books/:id`).
    public var detailRequests = 0
    /// Requests for one shelf's page (`/api/v1/shelves/:id`).
    public var shelfRequests = 0
    public var keyLeaks = 0
}

/// What the server may change while it runs.
final class ServerState: Sendable {
    private struct State: Sendable {
        var library: SampleLibrary
        var apiKey: String
        var counters = ServerCounters()
        var failingCovers: Set<String> = []
        var failingDetails: Set<Int> = []
        /// Encoded answers by Host and path, for the library as it is now.
        var answers: [String: (Data, String)] = [:]
        var generation = 0
        var stopping = false
    }
    private let state: NIOLockedValueBox<State>

    init(library: SampleLibrary, apiKey: String) {
        state = NIOLockedValueBox(State(library: library, apiKey: apiKey))
    }

    var library: SampleLibrary { state.withLockedValue { $0.library } }
    var apiKey: String { state.withLockedValue { $0.apiKey } }
    var failingCovers: Set<String> {
        get { state.withLockedValue { $0.failingCovers } }
        set { state.withLockedValue { $0.failingCovers = newValue } }
    }
    var failingDetails: Set<Int> {
        get { state.withLockedValue { $0.failingDetails } }
        set { state.withLockedValue { $0.failingDetails = newValue } }
    }
    var counters: ServerCounters { state.withLockedValue { $0.counters } }
    func updateLibrary(_ change: (inout SampleLibrary) -> Void) {
        state.withLockedValue { state in
            change(&state.library)
            state.answers = [:]
            state.generation += 1
        }
    }

    func answer(for key: String, _ make: () -> (Data, String)) -> (Data, String) {
        let (kept, seen) = state.withLockedValue { ($0.answers[key], $0.generation) }
        if let kept { return kept }
        let made = make()
        // Not kept if the library changed meanwhile: it was made from the old one.
        state.withLockedValue { if $0.generation == seen { $0.answers[key] = made } }
        return made
    }
    func setAPIKey(_ key: String) { state.withLockedValue { $0.apiKey = key } }
    func resetCounters() { state.withLockedValue { $0.counters = ServerCounters() } }
    func count(_ change: (inout ServerCounters) -> Void) { state.withLockedValue { change(&$0.counters) } }
    var isStopping: Bool { state.withLockedValue { $0.stopping } }
    func setStopping() { state.withLockedValue { $0.stopping = true } }
}
