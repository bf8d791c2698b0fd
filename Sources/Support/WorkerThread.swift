import Foundation

/// A thread of its own (or a few, sharing one queue) that runs jobs in order, for CPU work done
/// while requests are in flight.
///
/// Answers resume on Swift's cooperative threads, one per core. Work done there while requests
/// are in flight (making books) held up the answers queued behind it: on two cores the crawl
/// took as long as before, with the work moved from its end into its middle. On a thread of its
/// own the work takes turns with the answers, which wait on the network most of the time.
/// Unchecked: its jobs are closures that are not Sendable (each runs on this thread alone), kept
/// under its condition, which a thread must wait on.
package final class WorkerThread: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    private var stopping = false

    /// `threads` threads named `name` (numbered when there are several), each of which runs
    /// `prepare` before its first job. Linux keeps a thread's name only when it has at most 15
    /// bytes (a longer one is not set at all, and profilers show the name of the thread that
    /// started it): `name` is short.
    package init(name: String, threads: Int = 1, prepare: (@Sendable () -> Void)? = nil) {
        for index in 0..<max(1, threads) {
            // The threads hold the worker until `stop()`.
            let thread = Thread { [self] in
                prepare?()
                while let job = next() { job() }
            }
            thread.name = threads > 1 ? "\(name) \(index + 1)" : name
            thread.start()
        }
    }

    /// Ends the threads once the jobs given so far are done.
    package func stop() {
        condition.withLock {
            stopping = true
            condition.broadcast()
        }
    }

    /// `body`'s result, once a thread got to it; the caller's task waits without a thread.
    package func run<T: Sendable, Failure: Error>(_ body: @escaping @Sendable () throws(Failure) -> T) async throws(Failure) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
            condition.withLock {
                jobs.append { continuation.resume(returning: Result { () throws(Failure) -> T in try body() }) }
                condition.signal()
            }
        }
        return try result.get()
    }

    private func next() -> (() -> Void)? {
        condition.withLock {
            while jobs.isEmpty && !stopping { condition.wait() }
            return jobs.isEmpty ? nil : jobs.removeFirst()
        }
    }
}
