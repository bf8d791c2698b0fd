import Dispatch
import Foundation
import Logging
import NIOConcurrencyHelpers
import Publish
import SnapshotStore
import Support

/// Ctrl-C (SIGINT) and SIGTERM, which systemd and `kill` send to stop a run: the run's staging
/// folder is removed (a history carried into it goes back first), the last snapshot is left as it
/// was, and the tool says so and exits with 128 + the signal's number, as a shell would report it.
enum Interruption {
    private static let queue = DispatchQueue(label: "reader-snapshot.interruption")
    private static let handlers = Handlers()

    /// Called by the commands that write a snapshot, once their logger is made.
    /// `finishing` runs before the process ends, with its exit code: `--metrics-file` is written then.
    static func install(logger: Logger, live: LiveProgress?, saying message: String = "interrupted; the last snapshot is kept",
                        finishing: @escaping @Sendable (Int32) -> Void = { _ in }) {
        handlers.install([(SIGINT, ExitCodes.interrupted), (SIGTERM, ExitCodes.terminated)], on: queue) { code in
            SnapshotSwap.discardAllForExit()
            // An upload under way stops with the tool; the next publish goes on from the host's listing.
            RunningChildren.shared.terminateAll()
            live?.stop()
            logger.error("\(message)")
            finishing(code)
            fflush(nil)
            // Not exit(): other threads are still at work, and the libraries' exit handlers
            // could run under them.
            _exit(code)
        }
    }

    /// The dispatch sources, kept alive for the whole run.
    /// Unchecked: Dispatch's signal sources are not Sendable; they are kept under the lock.
    private final class Handlers: @unchecked Sendable {
        private let sources = NIOLockedValueBox<[DispatchSourceSignal]>([])

        func install(_ signals: [(Int32, Int32)], on queue: DispatchQueue, _ stop: @escaping @Sendable (Int32) -> Void) {
            sources.withLockedValue { sources in
                guard sources.isEmpty else { return }
                for (number, code) in signals {
                    // The default action would end the process before the handler runs.
                    signal(number, SIG_IGN)
                    let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                    source.setEventHandler { stop(code) }
                    source.resume()
                    sources.append(source)
                }
            }
        }
    }
}
