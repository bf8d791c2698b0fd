import Foundation
import Testing
@testable import SnapshotStore

/// When what failed is asked for again: the next run, a day later, then every week.
@Suite struct RetryScheduleTests {
    @Test func theNextRunThenADayThenAWeek() {
        let night = 1_700_000_000
        var schedule = RetrySchedule()
        schedule.detailsFailed(3, message: "HTTP 500", updatedAt: "a", now: night, earlier: RetrySchedule())
        #expect(schedule.waitingDetails(of: 3, updatedAt: "a", now: night + 60) == nil, "one failure: asked again the next run")
        var second = RetrySchedule()
        second.detailsFailed(3, message: "HTTP 500", updatedAt: "a", now: night + 86_400, earlier: schedule)
        #expect(second.details["3"]?.tries == 2)
        #expect(second.waitingDetails(of: 3, updatedAt: "a", now: night + 2 * 86_400 - 7_200) != nil, "two: a day later")
        #expect(second.waitingDetails(of: 3, updatedAt: "a", now: night + 2 * 86_400 - 60) == nil, "a run a minute early still goes")
        #expect(second.waitingDetails(of: 3, updatedAt: "b", now: night + 86_400 + 60) == nil, "a book changed since is asked for at once")
        var third = RetrySchedule()
        third.detailsFailed(3, message: "HTTP 500", updatedAt: "a", now: night + 2 * 86_400, earlier: second)
        #expect(third.waitingDetails(of: 3, updatedAt: "a", now: night + 8 * 86_400) != nil, "three: a week")
        #expect(third.waitingDetails(of: 3, updatedAt: "a", now: night + 9 * 86_400) == nil)
        var cover = RetrySchedule()
        cover.coverFailed("u", message: "gone", now: night, earlier: third)
        #expect(cover.covers["u"]?.tries == 1)
        #expect(RetrySchedule.day(night) == "2023-11-14")
    }
}
