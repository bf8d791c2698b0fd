import Foundation
import Hummingbird
import NIOCore

/// A server that answers fixed bodies, to see how the client takes each answer the contract
/// allows (and some it does not).
package struct CannedAnswer: Sendable {
    package var status: HTTPResponse.Status = .ok
    package var contentType: String = "application/json; charset=utf-8"
    package var body: String

    package init(status: HTTPResponse.Status = .ok, contentType: String = "application/json; charset=utf-8", body: String) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }
}

package enum CannedServer {
    /// Serves `answers` by path (query ignored) on a free loopback port while `body` runs.
    package static func with<T: Sendable>(_ answers: [String: CannedAnswer],
                                  _ body: @Sendable (String) async throws -> T) async throws -> T {
        let router = Router()
        for (path, answer) in answers {
            router.on(RouterPath(path), method: path == "/api/v1/sessions" ? .post : .get) { _, _ in
                Response(status: answer.status, headers: [.contentType: answer.contentType],
                         body: .init(byteBuffer: ByteBuffer(string: answer.body)))
            }
        }
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in
                                  continuation.yield(channel.localAddress?.port ?? 0)
                                  continuation.finish()
                              })
        let task = Task { try await app.run() }
        var port = 0
        for await value in ports { port = value }
        defer { task.cancel() }
        return try await body("http://127.0.0.1:\(port)")
    }
}
