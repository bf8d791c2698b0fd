import Foundation

/// A thread of its own that runs jobs in order, for CPU work done while requests are in flight.
///
/// Answers resume on Swift's cooperative threads, one per core. Work done there while requests
/// are in flight (making books) held up the answers queued behind it: on two cores the crawl
/// took as long as before, with the work moved from its end into its middle. On a thread of its
/// own the work takes turns with the answers, which wait on the network most of the time.
package final class WorkerThread: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    private var stopping = false

    package init(name: String) {
        // The thread holds the worker until `stop()`.
        let thread = Thread { [self] in
            while let job = next() { job() }
        }
        thread.name = name
        thread.start()
    }

    /// Ends the thread once the jobs given so far are done.
    package func stop() {
        condition.withLock {
            stopping = true
            condition.signal()
        }
    }

    /// `body`'s result, once the thread got to it; the caller's task waits without a thread.
    package func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            condition.withLock {
                jobs.append { continuation.resume(with: Swift.Result { try body() }) }
                condition.signal()
            }
        }
    }

    private func next() -> (() -> Void)? {
        condition.withLock {
            while jobs.isEmpty && !stopping { condition.wait() }
            return jobs.isEmpty ? nil : jobs.removeFirst()
        }
    }
}
