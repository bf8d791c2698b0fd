import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import SampleServer

/// The sample server's conditions for tests and benchmarks (`AnswerConditions`): each answer held
/// for a latency or for what it costs the real server, a capacity with a queue, faults drawn at
/// random, and a server that hangs, holds its answers or goes at a given request. None of it is in
/// the shipped tool: the tests and `reader-snapshot-dev sample-server` add it.
public final class ServerDoubles: AnswerConditions {
    public struct Options: Sendable {
        /// Added to every answer, like a real server's work.
        public var latency: Duration = .zero
        /// Whether answers take the latency on average (for benchmarks: timers wake late, and the
        /// lateness is made up for) rather than at least (for tests).
        public var latencyOnAverage = false
        /// Requests served at once (the latency included); the rest queue. Unbounded when nil.
        public var capacity: Int?
        /// Each answer takes what it costs the real server, in place of `latency`.
        public var costs: ServerCosts?
        public var faults = FaultPlan()
        public init(latency: Duration = .zero, latencyOnAverage: Bool = false, capacity: Int? = nil, costs: ServerCosts? = nil,
                    faults: FaultPlan = FaultPlan()) {
            self.latency = latency
            self.latencyOnAverage = latencyOnAverage
            self.capacity = capacity
            self.costs = costs
            self.faults = faults
        }
    }

    private struct State: Sendable {
        var faults: FaultPlan
        var random: SplitMix64
        var latency: Duration
        var faultsInjected = 0
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
    let capacity: ServerCapacity?

    public init(_ options: Options = Options()) {
        costs = options.costs
        timer = AnswerTimer(onAverage: options.latencyOnAverage)
        capacity = options.capacity.map(ServerCapacity.init)
        state = NIOLockedValueBox(State(faults: options.faults, random: SplitMix64(seed: options.faults.seed), latency: options.latency))
    }

    public func setFaults(_ faults: FaultPlan) {
        state.withLockedValue { state in
            state.faults = faults
            state.random = SplitMix64(seed: faults.seed)
        }
    }
    public func setLatency(_ latency: Duration) { state.withLockedValue { $0.latency = latency } }
    /// Faults injected so far.
    public var faultsInjected: Int { state.withLockedValue { $0.faultsInjected } }
    /// How many answers were held for the latency, and their mean time from arrival to release.
    public var heldAnswers: (answers: Int, mean: Duration) { timer.answered }
    /// The longest line of requests waiting for the capacity.
    public var longestQueue: Int? { get async { await capacity?.longestQueue } }

    /// From now on every API request hangs until the server stops: it still takes connections, and
    /// never answers (a Rails stuck on its database).
    public func hang() { state.withLockedValue { $0.hanging = true } }
    /// The same from the API request numbered `number` (counted as `ServerCounters.apiRequests` counts).
    public func hang(fromAPIRequest number: Int) { go(fromAPIRequest: number, stop: nil) }
    /// Stops `running` once the API request numbered `number` arrives; that request and any after
    /// it are not answered. Returns at once.
    public func stop(_ running: RunningSampleServer, atAPIRequest number: Int) {
        go(fromAPIRequest: number) { running.stopSoon() }
    }
    /// From the API request numbered `number` on, answers wait until `release()` (or the server
    /// stops): a test acts on a run mid-crawl without racing it.
    public func hold(fromAPIRequest number: Int) { state.withLockedValue { $0.holdFrom = number } }
    public func release() { state.withLockedValue { $0.holdFrom = nil } }
    /// Requests waiting now, held by `hold(fromAPIRequest:)`.
    public var waiting: Int { state.withLockedValue { $0.waiting } }
    /// When the server went, by `hang(fromAPIRequest:)` or `stop(_:atAPIRequest:)`.
    public var wentAt: ContinuousClock.Instant? { state.withLockedValue { $0.wentAt } }
    /// When the server last answered an API request: after it went, the requests already being
    /// answered still are, and the outage a client sees begins with the last of them.
    public var lastAnswerAt: ContinuousClock.Instant? { state.withLockedValue { $0.lastAnswerAt } }

    private func go(fromAPIRequest number: Int, stop: (@Sendable () -> Void)?) {
        state.withLockedValue { ($0.goneFrom, $0.stopWhenGone) = (number, stop) }
    }

    /// Whether the API request numbered `number` finds the server gone: decided here as each
    /// request arrives, not by a test that watches the counters and may be late on a busy machine.
    /// The first to find it so stops the server, when it is to stop.
    private func isGone(atAPIRequest number: Int) -> Bool {
        let (gone, stop) = state.withLockedValue { state -> (Bool, (@Sendable () -> Void)?) in
            guard let from = state.goneFrom, number >= from else { return (false, nil) }
            guard state.wentAt == nil else { return (true, nil) }
            state.wentAt = .now
            return (true, state.stopWhenGone)
        }
        stop?()
        return gone
    }

    private func isHeld(atAPIRequest number: Int) -> Bool { state.withLockedValue { $0.holdFrom.map { number >= $0 } ?? false } }

    public func answer(_ request: Request, context: BasicRequestContext, apiRequest: Int?, server: SampleServer,
                       next: (Request, BasicRequestContext) async throws -> Response) async throws -> Response {
        if let number = apiRequest, isHeld(atAPIRequest: number) {
            state.withLockedValue { $0.waiting += 1 }
            defer { state.withLockedValue { $0.waiting -= 1 } }
            while isHeld(atAPIRequest: number), !server.isStopping { try await Task.sleep(for: .milliseconds(10)) }
        }
        if let number = apiRequest, state.withLockedValue({ $0.hanging }) || isGone(atAPIRequest: number) {
            // In small steps, so that stopping the server ends the hang.
            while !server.isStopping, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(20)) }
            // A server that is gone answers nothing, not even an error page: its connections are cut,
            // as when its process dies. A thrown error would be Hummingbird's 500, which the tool
            // rightly takes for a server that answers, and so counts its silence from there.
            return Self.cutOff
        }
        let response: Response
        if let capacity {
            nonisolated(unsafe) let next = next
            // A request that waited its turn is worked on for the whole latency once its turn comes.
            response = try await capacity.serving { try await answer(request, since: .now, context: context, server: server, next: next) }
        } else {
            response = try await answer(request, since: request.arrival, context: context, server: server, next: next)
        }
        if apiRequest != nil { state.withLockedValue { $0.lastAnswerAt = .now } }
        return response
    }

    /// How long the answer to `path` takes: what it costs the real server, or the latency asked for.
    private func latency(of path: String, in server: SampleServer) -> Duration {
        costs.map { $0.cost(of: path, in: server.library) } ?? state.withLockedValue { $0.latency }
    }

    /// Draws the fault for one request, if any.
    private func drawFault() -> Fault? {
        state.withLockedValue { state in
            guard state.faults.rate > 0 else { return nil }
            let roll = Double(state.random.nextUInt64() % 1_000_000) / 1_000_000
            guard roll < state.faults.rate else { return nil }
            let kinds = state.faults.kinds.isEmpty ? Fault.allCases : state.faults.kinds
            state.faultsInjected += 1
            return kinds[state.random.next(kinds.count)]
        }
    }

    private func answer(_ request: Request, since start: ContinuousClock.Instant, context: BasicRequestContext, server: SampleServer,
                        next: (Request, BasicRequestContext) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        // The latency is the time from the request to its answer, this server's own work included:
        // the answer is made, then held until then.
        let ready = start + latency(of: path, in: server)
        let fault = path == "/api/v1/sessions" ? nil : drawFault()
        if fault != nil { try await timer.wait(from: start, until: ready) }
        switch fault {
        case nil:
            let response = try await next(request, context)
            try await timer.wait(from: start, until: ready)
            return response
        case .serverError?:
            return crashPage("injected fault")
        case .unavailable?:
            return Response(status: .serviceUnavailable, headers: [.contentType: "text/html"],
                            body: .init(byteBuffer: ByteBuffer(string: "<html><body>503 Service Unavailable</body></html>")))
        case .tooManyRequests?:
            return json(["error": "Too many requests"], status: .tooManyRequests, headers: [.retryAfter: "1"])
        case .stall?:
            // In small steps, so that stopping the server does not wait for the whole stall.
            let end = ContinuousClock.now + state.withLockedValue { $0.faults.stall }
            while ContinuousClock.now < end, !server.isStopping {
                try await Task.sleep(for: .milliseconds(20))
            }
            return try await next(request, context)
        case .reset?:
            return Self.cutOff
        case .truncated?:
            return try await Self.truncated(next(request, context))
        }
    }
}
