import SampleServer
import SampleServerDoubles

extension SampleServer {
    /// A generated library served on loopback, logins at once, each answer `latency` late (as on a
    /// network: books are then made, and their cards drawn, while other requests are in flight).
    package static func startSynthetic(books: Int, seed: UInt64, latency: Duration = .zero) async throws -> RunningSampleServer {
        var options = SampleServer.Options()
        options.loginDelay = .zero
        options.conditions = ServerDoubles(.init(latency: latency))
        return try await SampleServer(library: try SampleLibrary.synthetic(books: books, seed: seed), options: options).start()
    }
}
