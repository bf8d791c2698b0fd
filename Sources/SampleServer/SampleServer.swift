import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

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
        /// Added to every answer, like a real server's work.
        public var latency: Duration = .zero
        /// Whether answers take the latency on average (for benchmarks: timers wake late, and the
        /// lateness is made up for) rather than at least (for tests).
        public var latencyOnAverage = false
        /// Requests served at once (the latency included); the rest queue. Unbounded when nil.
        public var capacity: Int?
        /// Each answer takes what it costs the real server, in place of `latency`.
        public var costs: ServerCosts?
        /// Whether `/api/v1/books` gives each book's `shelf_id`, as the real server does (Reader's
        /// older documents leave it out: a client must then read every shelf's page).
        public var listsShelfIDs = true
        /// Whether `POST /_sample/books/:id/edit` and `POST /_sample/books` change the library, as its
        /// owner would in the web app (tests, benchmarks and demos of a night with a change).
        public var editable = false
        public var faults = FaultPlan()
        /// An Open Library double under `/openlibrary/` (`sample-server --openlibrary`): nil, none.
        public var openLibrary: OpenLibraryDouble.Options?
        public init() {}
    }

    let options: Options
    let state: ServerState

    public init(library: SampleLibrary, options: Options = Options()) {
        self.options = options
        self.state = ServerState(library: library, apiKey: options.apiKey ?? Self.randomKey(), faults: options.faults,
                                 latency: options.latency, latencyOnAverage: options.latencyOnAverage, costs: options.costs)
        self.capacity = options.capacity.map(ServerCapacity.init)
        self.openLibrary = options.openLibrary.map(OpenLibraryRoutes.init)
    }
    let capacity: ServerCapacity?
    let openLibrary: OpenLibraryRoutes?

    /// What the Open Library double was asked.
    public var openLibraryCounters: OpenLibraryDouble.Counters { openLibrary?.counters ?? .init() }

    /// The library as it is now (tests change it between runs with `update`).
    public var library: SampleLibrary { state.library }
    public var apiKey: String { state.apiKey }
    /// Requests to the object-storage host that carried an api key (must stay 0).
    public var keyLeaks: Int { state.counters.keyLeaks }
    public var counters: ServerCounters { state.counters }
    /// How many answers were held for the latency, and their mean time from arrival to release.
    public var heldAnswers: (answers: Int, mean: Duration) { state.timer.answered }

    public func update(_ change: (inout SampleLibrary) -> Void) { state.updateLibrary(change) }
    /// A new key: every request with the old one is refused from now on, as after a revocation.
    public func revokeKey() { state.setAPIKey(Self.randomKey()) }
    public func setFaults(_ faults: FaultPlan) { state.setFaults(faults) }
    /// These books' detail pages fail (a 500 crash page) until set again: a deploy or an outage
    /// that one night's run meets.
    public func setFailingDetails(_ ids: Set<Int>) { state.failingDetails = ids }
    /// These cover files fail on the disk service (503) until set again: a storage outage.
    public func setFailingCovers(_ files: Set<String>) { state.failingCovers = files }
    public func setLatency(_ latency: Duration) { state.setLatency(latency) }
    /// From now on every API request hangs until the server stops: it still takes connections, and
    /// never answers (a Rails stuck on its database).
    public func hang() { state.setHanging() }
    /// The same from the API request numbered `number` (counted as `counters.apiRequests` counts).
    public func hang(fromAPIRequest number: Int) { state.go(fromAPIRequest: number, stop: nil) }
    /// From the API request numbered `number` on, answers wait until `release()` (or the server
    /// stops): a test acts on a run mid-crawl without racing it.
    public func hold(fromAPIRequest number: Int) { state.hold(fromAPIRequest: number) }
    public func release() { state.hold(fromAPIRequest: nil) }
    /// Requests waiting now, held by `hold(fromAPIRequest:)`.
    public var waiting: Int { state.waiting }
    /// When the server went, by `hang(fromAPIRequest:)` or `RunningSampleServer.stop(atAPIRequest:)`.
    public var wentAt: ContinuousClock.Instant? { state.wentAt }
    /// When the server last answered an API request: after it went, the requests already being
    /// answered still are, and the outage a client sees begins with the last of them.
    public var lastAnswerAt: ContinuousClock.Instant? { state.lastAnswerAt }
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
        router.middlewares.add(FaultMiddleware(state: state, capacity: capacity))
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

    /// Stops once the API request numbered `number` arrives (counted as `counters.apiRequests`
    /// counts); that request and any after it are not answered. Returns at once.
    public func stop(atAPIRequest number: Int) {
        server.state.go(fromAPIRequest: number) { [self] in
            Task(executorPreference: ServerExecutor.shared) { await stop() }
        }
    }

    /// Ends stalled answers, lets the rest finish, then stops listening.
    public func stop() async {
        server.state.setStopping()
        await group.triggerGracefulShutdown()
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
    public var faults = 0
    public var keyLeaks = 0
}

/// What the server may change while it runs.
final class ServerState: Sendable {
    private struct State: Sendable {
        var library: SampleLibrary
        var apiKey: String
        var faults: FaultPlan
        var counters = ServerCounters()
        var random: SplitMix64
        var latency: Duration
        var failingCovers: Set<String> = []
        var failingDetails: Set<Int> = []
        /// Encoded answers by Host and path, for the library as it is now.
        var answers: [String: (Data, String)] = [:]
        var generation = 0
        var stopping = false
        var hanging = false
        var holdFrom: Int?
        var waiting = 0
        var goneFrom: Int?
        var stopWhenGone: (@Sendable () -> Void)?
        var wentAt: ContinuousClock.Instant?
        var lastAnswerAt: ContinuousClock.Instant?
    }
    private let state: NIOLockedValueBox<State>
    let costs: ServerCosts?
    /// Holds answers until their latency has passed.
    let timer: AnswerTimer

    init(library: SampleLibrary, apiKey: String, faults: FaultPlan, latency: Duration, latencyOnAverage: Bool, costs: ServerCosts?) {
        self.costs = costs
        timer = AnswerTimer(onAverage: latencyOnAverage)
        state = NIOLockedValueBox(State(library: library, apiKey: apiKey, faults: faults, random: SplitMix64(seed: faults.seed), latency: latency))
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
    func setFaults(_ faults: FaultPlan) {
        state.withLockedValue { state in
            state.faults = faults
            state.random = SplitMix64(seed: faults.seed)
        }
    }
    func resetCounters() { state.withLockedValue { $0.counters = ServerCounters() } }
    func count(_ change: (inout ServerCounters) -> Void) { state.withLockedValue { change(&$0.counters) } }

    /// Draws the fault for one request, if any.
    func drawFault() -> Fault? {
        state.withLockedValue { state in
            guard state.faults.rate > 0 else { return nil }
            let roll = Double(state.random.nextUInt64() % 1_000_000) / 1_000_000
            guard roll < state.faults.rate else { return nil }
            let kinds = state.faults.kinds.isEmpty ? Fault.allCases : state.faults.kinds
            state.counters.faults += 1
            return kinds[state.random.next(kinds.count)]
        }
    }
    var stall: Duration { state.withLockedValue { $0.faults.stall } }
    var latency: Duration { state.withLockedValue { $0.latency } }
    /// How long the answer to `path` takes: what it costs the real server, or the latency asked for.
    func latency(of path: String) -> Duration {
        state.withLockedValue { state in costs.map { $0.cost(of: path, in: state.library) } ?? state.latency }
    }
    var isStopping: Bool { state.withLockedValue { $0.stopping } }
    func setStopping() { state.withLockedValue { $0.stopping = true } }
    var isHanging: Bool { state.withLockedValue { $0.hanging } }
    func setHanging() { state.withLockedValue { $0.hanging = true } }

    /// From this API request on, answers wait until released (`hold(fromAPIRequest:)`): a run held
    /// mid-crawl for as long as a test needs to act on it, whatever the machine's load.
    var waiting: Int { state.withLockedValue { $0.waiting } }
    func hold(fromAPIRequest number: Int?) { state.withLockedValue { $0.holdFrom = number } }
    func isHeld(atAPIRequest number: Int) -> Bool { state.withLockedValue { $0.holdFrom.map { number >= $0 } ?? false } }
    func wait(_ change: Int) { state.withLockedValue { $0.waiting += change } }

    /// From this API request on, the server is gone (`hang(fromAPIRequest:)`,
    /// `stop(atAPIRequest:)`): decided here as each request arrives, not by a test that watches
    /// the counters and may be late on a busy machine.
    var wentAt: ContinuousClock.Instant? { state.withLockedValue { $0.wentAt } }
    var lastAnswerAt: ContinuousClock.Instant? { state.withLockedValue { $0.lastAnswerAt } }
    func answered() { state.withLockedValue { $0.lastAnswerAt = .now } }
    func go(fromAPIRequest number: Int, stop: (@Sendable () -> Void)?) {
        state.withLockedValue { ($0.goneFrom, $0.stopWhenGone) = (number, stop) }
    }
    /// Whether the API request numbered `number` finds the server gone. The first to find it so
    /// stops the server, when it is to stop.
    func isGone(atAPIRequest number: Int) -> Bool {
        let (gone, stop) = state.withLockedValue { state -> (Bool, (@Sendable () -> Void)?) in
            guard let from = state.goneFrom, number >= from else { return (false, nil) }
            guard state.wentAt == nil else { return (true, nil) }
            state.wentAt = .now
            return (true, state.stopWhenGone)
        }
        stop?()
        return gone
    }
    func setLatency(_ latency: Duration) { state.withLockedValue { $0.latency = latency } }
}
