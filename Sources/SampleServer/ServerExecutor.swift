import Foundation
import NIOConcurrencyHelpers

/// Where the sample server's handlers run when it is started in a process that does other work
/// (the tests, the benchmarks). Swift's shared pool has a thread per core, and a test that blocks
/// one (a synchronous read of a large snapshot, a wait) took it from the server too: on two cores,
/// two such tests left an export's requests unanswered for 28 s, and the export rightly took that
/// for an outage. Serial dispatch queues each get a thread of their own, outside that pool.
final class ServerExecutor: TaskExecutor {
    /// One for the process, never freed, so that no job can reach an executor that is gone.
    static let shared = ServerExecutor()

    /// Two, as the machine the tests run on has two cores: the server answers as fast as it did on
    /// the shared pool when nothing else runs.
    private let queues = (0..<2).map { DispatchQueue(label: "reader-sample-server-\($0)") }
    private let next = NIOLockedValueBox(0)

    private init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queue = next.withLockedValue { next in
            next = (next + 1) % queues.count
            return queues[next]
        }
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
