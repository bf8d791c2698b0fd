import Foundation
import Hummingbird
import NIOCore

/// The ways a real server and the network fail, injected at random for tests and benchmarks.
public enum Fault: String, CaseIterable, Sendable {
    /// A Rails crash page: 500 with HTML.
    case serverError = "500"
    /// 503 from a proxy in front of the app.
    case unavailable = "503"
    /// 429 with Retry-After.
    case tooManyRequests = "429"
    /// The connection closes before any answer.
    case reset
    /// No answer for a long time.
    case stall
    /// The answer stops half-way through its body.
    case truncated
}

/// How often, and which, faults the sample server injects.
public struct FaultPlan: Sendable {
    /// The share of requests that fail, 0…1.
    public var rate: Double = 0
    public var seed: UInt64 = 1
    /// Which faults to draw from (all when empty).
    public var kinds: [Fault] = []
    /// How long a stalled answer hangs before it is sent anyway.
    public var stall: Duration = .seconds(30)
    public init(rate: Double = 0, seed: UInt64 = 1, kinds: [Fault] = [], stall: Duration = .seconds(30)) {
        self.rate = rate
        self.seed = seed
        self.kinds = kinds
        self.stall = stall
    }
}

/// Adds latency, counts requests, and injects the planned faults (logins excepted: one login per run).
struct FaultMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let state: ServerState
    var capacity: ServerCapacity?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let api = request.uri.path.hasPrefix("/api/")
        var number = 0
        state.count { counters in
            counters.requests += 1
            if api { counters.apiRequests += 1 }
            number = counters.apiRequests
        }
        // The Open Library double stands for another service: its own faults, none of the Reader server's.
        if request.uri.path.hasPrefix("/openlibrary/") { return try await next(request, context) }
        if api, state.isHeld(atAPIRequest: number) {
            state.wait(1)
            defer { state.wait(-1) }
            while state.isHeld(atAPIRequest: number), !state.isStopping { try await Task.sleep(for: .milliseconds(10)) }
        }
        if api, state.isHanging || state.isGone(atAPIRequest: number) {
            // In small steps, so that stopping the server ends the hang.
            while !state.isStopping, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(20)) }
            // A server that is gone answers nothing, not even an error page: its connections are cut,
            // as when its process dies. A thrown error would be Hummingbird's 500, which the tool
            // rightly takes for a server that answers, and so counts its silence from there.
            return Self.cutOff
        }
        let response: Response
        if let capacity {
            nonisolated(unsafe) let next = next
            // A request that waited its turn is worked on for the whole latency once its turn comes.
            response = try await capacity.serving { try await answer(request, since: .now, context: context, next: next) }
        } else {
            response = try await answer(request, since: ArrivalStamp.arrival(of: request), context: context, next: next)
        }
        if api { state.answered() }
        return response
    }

    private func answer(_ request: Request, since start: ContinuousClock.Instant, context: Context,
                        next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        // The latency is the time from the request to its answer, this server's own work included:
        // the answer is made, then held until then.
        let ready = start + state.latency(of: path)
        func waitUntilReady() async throws {
            try await state.timer.wait(from: start, until: ready)
        }
        let fault = path == "/api/v1/sessions" ? nil : state.drawFault()
        if fault != nil { try await waitUntilReady() }
        switch fault {
        case nil:
            let response = try await next(request, context)
            if response.status == .notModified { state.count { $0.notModified += 1 } }
            try await waitUntilReady()
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
            let end = ContinuousClock.now + state.stall
            while ContinuousClock.now < end, !state.isStopping {
                try await Task.sleep(for: .milliseconds(20))
            }
            return try await next(request, context)
        case .reset?:
            return Self.cutOff
        case .truncated?:
            let response = try await next(request, context)
            var whole = ByteBuffer()
            let body = response.body
            let collector = BodyCollector()
            try await body.write(collector)
            whole = collector.buffer
            let half = whole.getSlice(at: whole.readerIndex, length: max(1, whole.readableBytes / 2)) ?? ByteBuffer()
            var headers = response.headers
            headers[.contentLength] = nil
            return Response(status: response.status, headers: headers,
                            body: ResponseBody(contentLength: max(2, whole.readableBytes)) { writer in
                                try await writer.write(half)
                                throw InjectedFault()
                            })
        }
    }
}

struct InjectedFault: Error {}

extension FaultMiddleware {
    /// An answer cut off before its body: the connection closes, and the client has no answer to
    /// read (Hummingbird sends a response's head before its body, so the head goes first).
    static var cutOff: Response {
        Response(status: .ok, headers: [.contentType: "application/json"],
                 body: ResponseBody(contentLength: 100) { _ in throw InjectedFault() })
    }
}

/// Gathers a response body, to cut it in half.
final class BodyCollector: ResponseBodyWriter {
    var buffer = ByteBuffer()
    func write(_ buffer: ByteBuffer) async throws {
        var copy = buffer
        self.buffer.writeBuffer(&copy)
    }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
