import Foundation
import NIOConcurrencyHelpers

/// The one way this tool uses every core for work it has in hand: each worker takes the next item
/// not yet taken, results keep their items' order, and the error of the earliest failing item is
/// thrown (no later item starts after it). The caller's thread works too, so it must not be one
/// that others wait on: from async code, call it through `onThreadOfItsOwn`.
package enum EveryCore {
    package static var count: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// `transform` of each index below `count`, in order. `worker` makes what each worker keeps
    /// for itself (an encoder, a decoder); no worker starts for fewer than `itemsPerWorker` items.
    package static func map<Worker, Result>(_ count: Int, itemsPerWorker: Int = 1, worker makeWorker: () -> Worker,
                                            _ transform: (Worker, Int) throws -> Result) throws -> [Result] {
        let workers = max(1, min(Self.count, count / max(1, itemsPerWorker)))
        guard workers > 1 else {
            let worker = makeWorker()
            return try (0..<count).map { try transform(worker, $0) }
        }
        var results = [Result?](repeating: nil, count: count)
        let queue = JobQueue()
        try withoutActuallyEscaping(makeWorker) { makeWorker in
            try withoutActuallyEscaping(transform) { transform in
                // Each index is written by one worker alone, and read after they all are done.
                nonisolated(unsafe) let (makeWorker, transform) = (makeWorker, transform)
                results.withUnsafeMutableBufferPointer { out in
                    nonisolated(unsafe) let out = out
                    DispatchQueue.concurrentPerform(iterations: workers) { _ in
                        let worker = makeWorker()
                        while let index = queue.next(below: count) {
                            do { out[index] = try transform(worker, index) } catch { queue.record(error, at: index) }
                        }
                    }
                }
                if let error = queue.error { throw error }
            }
        }
        return results.map { $0! }
    }

    /// `body`'s result, worked out on a thread of its own. Answers resume on threads shared with
    /// the network (NIO's event loops serve as Swift's executor here): long work there would hold
    /// up every answer behind it.
    package static func onThreadOfItsOwn<T: Sendable>(_ name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        let thread = WorkerThread(name: name)
        defer { thread.stop() }
        return try await thread.run(body)
    }
}

/// Hands out indices in order, and keeps the error of the earliest index that failed; after a
/// failure no later index is handed out.
private final class JobQueue: Sendable {
    private struct State {
        var taken = 0
        var failedAt = Int.max
        var first: Error?
    }
    private let state = NIOLockedValueBox(State())

    var error: Error? { state.withLockedValue { $0.first } }

    func next(below count: Int) -> Int? {
        state.withLockedValue { state in
            guard state.taken < count, state.taken < state.failedAt else { return nil }
            defer { state.taken += 1 }
            return state.taken
        }
    }

    func record(_ error: Error, at index: Int) {
        state.withLockedValue { state in
            if index < state.failedAt { (state.failedAt, state.first) = (index, error) }
        }
    }
}
