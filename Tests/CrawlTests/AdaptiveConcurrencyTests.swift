import TestSupport
import Testing
@testable import Crawl

/// The level the crawl settles at, against a model of a server that works on `capacity` requests
/// at once and queues the rest: with more in flight than that, each answer waits its turn.
@Suite struct AdaptiveConcurrencyTests {
    static let serviceTime = 0.005

    static func settle(capacity: Int, ceiling: Int = 8, answers: Int = 2_000) -> (level: AdaptiveConcurrency, seen: Set<Int>) {
        var level = AdaptiveConcurrency(ceiling: ceiling)
        var seen: Set<Int> = []
        for _ in 0..<answers {
            seen.insert(level.limit)
            let waiting = max(1.0, Double(level.limit) / Double(capacity))
            level.record(.detail, seconds: serviceTime * waiting)
        }
        return (level, seen)
    }

    @Test(arguments: [1, 2, 3])
    func aSmallServerGetsAboutAsManyAsItServesPlusOne(capacity: Int) {
        let (level, _) = Self.settle(capacity: capacity)
        // At or a little above the capacity: every slot of the server busy, little queue.
        #expect(level.limit >= capacity && level.limit <= 2 * capacity, "settled at \(level.limit)")
        #expect(level.highest <= 2 * capacity + 1, "went up to \(level.highest)")
    }

    @Test func aGenerousServerGetsTheCeiling() {
        let (level, seen) = Self.settle(capacity: 64, ceiling: 8)
        #expect(level.limit == 8)
        #expect(seen.isSuperset(of: [1, 2, 4, 8]), "slow start doubles: \(seen.sorted())")
        #expect(level.highest == 8, "never past the ceiling")
    }

    @Test func latencyThatGrowsWithoutGainBacksOff() {
        var level = AdaptiveConcurrency(ceiling: 16)
        // A generous server first: up to the ceiling.
        for _ in 0..<500 { level.record(.detail, seconds: Self.serviceTime) }
        #expect(level.limit == 16)
        // Then it can serve two at once: the answers wait, nothing is gained by 16 in flight.
        for _ in 0..<2_000 {
            level.record(.detail, seconds: Self.serviceTime * max(1, Double(level.limit) / 2))
        }
        #expect(level.limit <= 4, "still \(level.limit) in flight")
    }

    /// Answers with their time on a virtual clock: `answerTime(level)` is how long each answer takes
    /// with that many in flight, and that many come back in that time. Returns the levels used.
    static func run(_ level: inout AdaptiveConcurrency, clock: inout Double, answers: Int, timed: Bool = true,
                    answerTime: (Int) -> Double) -> [Int] {
        var levels: [Int] = []
        for _ in 0..<answers {
            let seconds = answerTime(level.limit)
            clock += seconds / Double(level.limit)
            level.record(.detail, seconds: seconds, at: timed ? clock : nil)
            levels.append(level.limit)
        }
        return levels
    }

    /// A busy machine makes every answer slower, whatever is in flight: that is a queue by the times
    /// alone, but fewer in flight would get less done, so the level stays up.
    @Test func aBusyMachineIsNoReasonToBackOff() {
        for timed in [true, false] {
            var level = AdaptiveConcurrency(ceiling: 8)
            var clock = 0.0
            _ = Self.run(&level, clock: &clock, answers: 500, timed: timed) { _ in Self.serviceTime }
            #expect(level.limit == 8)
            let busy = Self.run(&level, clock: &clock, answers: 4_000, timed: timed) { _ in 3 * Self.serviceTime }
            let mean = Double(busy.suffix(2_000).reduce(0, +)) / 2_000
            if timed {
                #expect(mean >= 6.5, "went down to \(mean) on average")
            } else {
                // By the times alone, the level sinks: what the clock adds is what keeps it up.
                #expect(level.limit <= 2, "by times alone: \(level.limit)")
            }
        }
    }

    /// A server that gets less done with more in flight (as the real one measured: 7.7 s with 2, 10 s
    /// with 8) is kept near its best level, trials of more notwithstanding.
    @Test func aServerThatSlowsWithMoreInFlightIsKeptNearItsBest() {
        var level = AdaptiveConcurrency(ceiling: 8)
        var clock = 0.0
        let levels = Self.run(&level, clock: &clock, answers: 6_000) { inFlight in
            Self.serviceTime * max(1, Double(inFlight) / 2) * (1 + 0.1 * Double(max(0, inFlight - 2)))
        }
        let mean = Double(levels.suffix(3_000).reduce(0, +)) / 3_000
        #expect(mean <= 3.2, "kept \(mean) in flight on average")
    }

    /// With the clock, a small server still gets about as many as it serves: a step up that gets no
    /// more done is taken back.
    @Test(arguments: [1, 2])
    func aSmallServerIsNotCrowdedByStepsUp(capacity: Int) {
        var level = AdaptiveConcurrency(ceiling: 8)
        var clock = 0.0
        let levels = Self.run(&level, clock: &clock, answers: 6_000) { inFlight in
            Self.serviceTime * max(1, Double(inFlight) / Double(capacity))
        }
        let mean = Double(levels.suffix(3_000).reduce(0, +)) / 3_000
        #expect(mean >= Double(capacity) && mean <= 2.5 * Double(capacity), "kept \(mean) in flight on average")
    }

    @Test func kindsOfRequestAreJudgedByTheirOwnFastestAnswer() {
        var level = AdaptiveConcurrency(ceiling: 8)
        // Covers take four times as long as details, queue or not: no reason to back off.
        for index in 0..<1_000 {
            level.record(index % 2 == 0 ? .detail : .cover, seconds: index % 2 == 0 ? Self.serviceTime : 4 * Self.serviceTime)
        }
        #expect(level.limit == 8)
    }

    @Test func fixedConcurrencyNeverMoves() {
        var level = AdaptiveConcurrency(ceiling: 5, mode: .fixed)
        for index in 0..<500 { level.record(.detail, seconds: Self.serviceTime * Double(1 + index % 7)) }
        #expect(level.limit == 5 && level.changes == 0)
    }

    @Test func aTimeLearntBehindAQueueIsCorrectedByARequestSentAlone() {
        var level = AdaptiveConcurrency(ceiling: 8)
        // The first answers waited behind a long one (the list of books) at a server that works
        // on one request at a time: their time looks like a request that did not wait.
        for _ in 0..<200 {
            level.record(.detail, seconds: Self.serviceTime * 3 * max(1, Double(level.limit) / 3))
        }
        let fooled = level.limit
        #expect(fooled >= 3, "believed the queue was empty at \(fooled)")
        level.recordAlone(.detail, seconds: Self.serviceTime)
        for _ in 0..<2_000 {
            level.record(.detail, seconds: Self.serviceTime * max(1, Double(level.limit)))
        }
        #expect(level.limit <= 2, "still \(level.limit) in flight at a server of capacity 1")
    }

    @Test func aNewKindOfRequestIsNotTakenForAnUnqueuedOne() {
        var level = AdaptiveConcurrency(ceiling: 8)
        // Capacity 1, details only: the level settles low.
        for _ in 0..<500 { level.record(.detail, seconds: Self.serviceTime * max(1, Double(level.limit))) }
        let settled = level.limit
        // Covers start while requests already queue: their first times must not become the base.
        for _ in 0..<2_000 { level.record(.cover, seconds: Self.serviceTime * max(1, Double(level.limit))) }
        #expect(level.limit <= max(2, settled), "covers pushed the level to \(level.limit)")
    }
}
