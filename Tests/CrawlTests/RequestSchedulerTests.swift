import Foundation
import TestSupport
import Testing
@testable import Crawl
@testable import LibraryArchive
@testable import Notes
@testable import SnapshotStore
@testable import ReaderAPI
@testable import Support

/// When requests go out, and when one goes alone to learn the server's time with no queue.
@Suite struct RequestSchedulerTests {
    @Test func theListGoesBesideTheLevel() {
        var scheduler = RequestScheduler(level: AdaptiveConcurrency(ceiling: 4, mode: .fixed))
        scheduler.listingSent()
        let value14 = scheduler.release(queued: 10, now: 0)
        #expect(value14 == .upTo(4))
        scheduler.sent(4)
        #expect(scheduler.inFlight == 5)
        let value15 = scheduler.release(queued: 6, now: 0)
        #expect(value15 == .upTo(0))
        scheduler.answered(.detail, seconds: 0.01, requests: 1, alone: false, now: 0.01)
        let value16 = scheduler.release(queued: 6, now: 0.01)
        #expect(value16 == .upTo(1))
        let value17 = scheduler.release(queued: 0, now: 0.01)
        #expect(value17 == .upTo(0))
    }

    @Test func oneRequestGoesAloneOnceTheListIsInAndThenEveryFewSeconds() {
        var scheduler = RequestScheduler(level: AdaptiveConcurrency(ceiling: 8))
        let start = scheduler.level.limit
        scheduler.listingSent()
        let value18 = scheduler.release(queued: 5, now: 0)
        #expect(value18 == .upTo(min(5, start)))
        scheduler.sent(min(5, start))
        scheduler.listingAnswered(now: 1)
        // Due now, but requests are in flight: it waits for them, and nothing else goes.
        let whileDraining = scheduler.release(queued: 3, now: 1)
        #expect(whileDraining == .upTo(0) || start == 1)
        for _ in 0..<min(5, start) { scheduler.answered(.detail, seconds: 0.01, requests: 1, alone: false, now: 1.1) }
        if scheduler.level.limit > 1 {
            let value19 = scheduler.release(queued: 3, now: 1.1)
            #expect(value19 == .alone)
            scheduler.sent()
            let value20 = scheduler.release(queued: 2, now: 1.2)
            #expect(value20 == .upTo(0), "nothing beside the one alone")
            scheduler.answered(.detail, seconds: 0.005, requests: 1, alone: true, now: 1.2)
            let value21 = scheduler.release(queued: 2, now: 1.3)
            #expect(value21 == .upTo(min(2, scheduler.level.limit)))
            let value22 = scheduler.release(queued: 2, now: 1.2 + RequestScheduler.probeInterval - 0.1)
            #expect(value22 != .alone)
        }
    }

    @Test func aFixedLevelNeverSendsOneAlone() {
        var scheduler = RequestScheduler(level: AdaptiveConcurrency(ceiling: 3, mode: .fixed))
        scheduler.listingSent()
        scheduler.listingAnswered(now: 0)
        for now in stride(from: 0.0, to: 30, by: 1) { #expect(scheduler.release(queued: 9, now: now) == .upTo(3)) }
    }

    @Test func anIdleCrawlIsOverUnlessAProbeHeldRequestsBack() {
        var scheduler = RequestScheduler(level: AdaptiveConcurrency(ceiling: 8))
        // Fast answers raise the level above one, where probes begin.
        for step in 0..<200 where scheduler.level.limit < 4 {
            scheduler.sent()
            scheduler.answered(.detail, seconds: 0.005, requests: 1, alone: false, now: Double(step) * 0.005)
        }
        #expect(scheduler.level.limit > 1)
        scheduler.listingSent()
        scheduler.listingAnswered(now: 2)
        // Due, with nothing queued: the probe waits, and holds back what comes next.
        let held = scheduler.release(queued: 0, now: 2)
        #expect(held == .upTo(0))
        let over = scheduler.isOverWhenIdle(queued: 3)
        #expect(!over, "the probe is called off: the three that came may go")
        // Still due, and nothing in flight: the first of them goes alone.
        let released = scheduler.release(queued: 3, now: 2.1)
        #expect(released == .alone)
        let value23 = scheduler.isOverWhenIdle(queued: 0)
        #expect(value23)
    }
}
