import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Holds each answer until the latency asked for has passed since its request arrived.
///
/// A timer wakes late on these machines: a plain `nanosleep` of 5 ms by about 0.3 ms, an answer's
/// timer on a busy server by about 0.5 ms. Over a crawl that is a tenth more than the latency the
/// benchmarks compare with. So, when `onAverage`, the timer is set early by the lateness seen so far
/// (a running mean), and answers leave, on average, when the latency says; otherwise never before.
/// What they really took is counted, and the sample server prints it when it stops.
final class AnswerTimer: Sendable {
    private struct Held {
        /// How much earlier than the deadline the timer is set, in nanoseconds.
        var lead: Int64 = 0
        var answers = 0
        var totalNanoseconds: Int64 = 0
    }
    private let onAverage: Bool
    private let held = NIOLockedValueBox(Held())

    init(onAverage: Bool) {
        self.onAverage = onAverage
    }

    /// Waits until `deadline`, the moment `arrival` plus the latency.
    func wait(from arrival: ContinuousClock.Instant, until deadline: ContinuousClock.Instant) async throws {
        let latency = Self.nanoseconds(deadline - arrival)
        let remaining = Self.nanoseconds(deadline - .now) - held.withLockedValue { $0.lead }
        if remaining > 0 {
            // An event loop's timer (timerfd, to the nanosecond): no hop through another thread.
            try await MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: .nanoseconds(remaining)) {}.futureResult.get()
        }
        let now = ContinuousClock.now
        let late = Self.nanoseconds(now - deadline)
        held.withLockedValue { held in
            // Only a timer that was set says how late timers wake; an answer whose own work took
            // longer than the latency says nothing about it.
            if onAverage, remaining > 0 { held.lead = min(max(0, held.lead + late / 16), latency / 2) }
            held.answers += 1
            held.totalNanoseconds += Self.nanoseconds(now - arrival)
        }
    }

    /// How much earlier than the deadline the timer is set now.
    var currentLead: Duration { .nanoseconds(held.withLockedValue { $0.lead }) }

    /// The answers held so far, and their mean time from arrival to release.
    var answered: (answers: Int, mean: Duration) {
        held.withLockedValue { ($0.answers, .nanoseconds($0.answers == 0 ? 0 : $0.totalNanoseconds / Int64($0.answers))) }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
