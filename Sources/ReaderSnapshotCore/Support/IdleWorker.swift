import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One thread that runs jobs, in order, only when the machine has nothing better to do.
///
/// The crawl's answers wait on the cooperative threads: work done there while requests are in
/// flight (making books) holds up every answer behind it, and the whole crawl slows down with it.
/// This thread runs at the lowest priority (Linux `SCHED_IDLE`, a background thread elsewhere),
/// so it takes only the time the network leaves, which on a crawl is most of it.
final class IdleWorker: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    private var stopping = false
    private var hurried = false

    init() {
        // The thread holds the worker until `stop()`.
        let thread = Thread { [self] in
            #if canImport(Glibc)
            var parameters = sched_param()
            _ = pthread_setschedparam(pthread_self(), 5 /* SCHED_IDLE: not exported to Swift */, &parameters)
            #endif
            loop()
        }
        thread.name = "reader-snapshot idle worker"
        thread.qualityOfService = .background
        thread.start()
    }

    /// Whether the caller has nothing left to do but wait: a job that can stop part way should.
    /// At the lowest priority a job may wait long on a busy machine, so it is not left to finish.
    var isHurried: Bool { condition.withLock { hurried } }

    func hurry() { condition.withLock { hurried = true } }

    /// Ends the thread once the jobs given so far are done.
    func stop() {
        condition.withLock {
            stopping = true
            condition.signal()
        }
    }

    /// `body`'s result, once the thread got to it; the caller's task waits without a thread.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            condition.withLock {
                jobs.append { continuation.resume(with: Swift.Result { try body() }) }
                condition.signal()
            }
        }
    }

    private func loop() {
        while let job = next() { job() }
    }

    private func next() -> (() -> Void)? {
        condition.withLock {
            while jobs.isEmpty && !stopping { condition.wait() }
            return jobs.isEmpty ? nil : jobs.removeFirst()
        }
    }
}
