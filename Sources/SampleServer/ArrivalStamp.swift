import Foundation
import HTTPTypes
import HummingbirdCore
import NIOHTTPTypes
import NIOCore

/// Writes into each request the moment its head was read off the connection, so that the latency
/// asked for counts from there: Hummingbird hands the request to its handler a thread hop later,
/// and that hop is this server's own work, part of the time to answer.
final class ArrivalStamp: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    static let field = HTTPField.Name("X-Sample-Arrival-Ns")!

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var part = unwrapInboundIn(data)
        if case .head(var head) = part {
            // A client's own value for this field is not believed.
            head.headerFields[Self.field] = String(DispatchTime.now().uptimeNanoseconds)
            part = .head(head)
        }
        context.fireChannelRead(wrapInboundOut(part))
    }

    /// When the request was read, on the clock `ContinuousClock` reads; now when it carries no stamp.
    static func arrival(of request: Request) -> ContinuousClock.Instant {
        let now = ContinuousClock.now
        guard let stamp = request.headers[field].flatMap(UInt64.init) else { return now }
        let age = DispatchTime.now().uptimeNanoseconds &- stamp
        return age < 1_000_000_000 ? now - .nanoseconds(Int64(age)) : now
    }
}

extension Request {
    /// When the request arrived, as the server's channel stamped it (`ArrivalStamp`): an answer
    /// held for a latency counts it from there.
    public var arrival: ContinuousClock.Instant { ArrivalStamp.arrival(of: self) }
}
