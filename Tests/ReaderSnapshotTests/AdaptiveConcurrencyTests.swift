import Testing
@testable import ReaderSnapshotCore

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
