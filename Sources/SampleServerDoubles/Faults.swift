import Foundation
import Hummingbird
import NIOCore
import SampleServer

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

struct InjectedFault: Error {}

extension ServerDoubles {
    /// The answer stops half-way through its body, and the connection closes.
    static func truncated(_ response: Response) async throws -> Response {
        let collector = BodyCollector()
        try await response.body.write(collector)
        let whole = collector.buffer
        let half = whole.getSlice(at: whole.readerIndex, length: max(1, whole.readableBytes / 2)) ?? ByteBuffer()
        var headers = response.headers
        headers[.contentLength] = nil
        return Response(status: response.status, headers: headers,
                        body: ResponseBody(contentLength: max(2, whole.readableBytes)) { writer in
                            try await writer.write(half)
                            throw InjectedFault()
                        })
    }

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
