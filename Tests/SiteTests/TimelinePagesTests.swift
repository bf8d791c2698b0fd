import Foundation
import Testing
@testable import Site
import Timeline

/// The timeline's pages are counted from its first event, so that a night's events change its
/// newest page (and a month's counts where the month goes on) and leave the older pages as they were.
@Suite struct TimelinePagesTests {
    static func timeline(nights: Int) -> Timeline {
        let events = (1...nights).flatMap { night in
            (0..<3).map { book in
                TimelineEvent(date: String(format: "2026-%02d-%02d", 1 + night / 28, 1 + night % 28), book: book, kind: .moved,
                              title: "Book \(book)", shelves: ["To Read"], to: ["Read"])
            }
        }
        return Timeline(began: "2026-01-01", through: "2026-12-31T03:15:00Z", events: events)
    }

    static func view(_ timeline: Timeline) -> TimelineView {
        TimelineView(timeline, language: .bundledEnglish, fileOf: { "\($0)-book" })
    }

    @Test func aNightsEventsLeaveTheOlderPagesAsTheyWere() {
        let before = Self.view(Self.timeline(nights: 40)), after = Self.view(Self.timeline(nights: 41))
        #expect(before.pageCount(perPage: 10) == 12 && after.pageCount(perPage: 10) == 13)
        // February's counts are told on the page of its newest events alone: the 41st night adds to
        // them and to that page (the 12th, and newest, before it), and leaves the 11 before as they were.
        #expect(before.inputs(of: 12, perPage: 10) != after.inputs(of: 12, perPage: 10))
        #expect(before.page(12, perPage: 10).first?.summary == "39 moved to Read")
        #expect(after.page(12, perPage: 10).first?.summary == nil && after.page(13, perPage: 10).first?.summary == "42 moved to Read")
        // January's are on the page of its newest events, with February's first ones.
        #expect(after.page(9, perPage: 10).map(\.summary) == [nil, "81 moved to Read"])
        for number in 1...11 {
            #expect(before.inputs(of: number, perPage: 10) == after.inputs(of: number, perPage: 10), "page \(number)")
            #expect(before.page(number, perPage: 10).flatMap(\.events).map(\.what) == after.page(number, perPage: 10).flatMap(\.events).map(\.what))
        }
        // Each page newest first; the newest page is timeline.html, the others numbered from the oldest.
        let first = before.page(1, perPage: 10).flatMap(\.events).map(\.day)
        #expect(first.count == 10 && first == first.sorted().reversed())
        #expect(TimelineView.pageFile(12, count: 12) == "timeline.html" && TimelineView.pageFile(1, count: 12) == "timeline-1.html")
        #expect(after.pageFiles(perPage: 10).last == "timeline.html")
        #expect(after.storyInputs(of: 1).split(separator: "\n").count == 41 && after.story(of: 1)?.isEmpty == false)
        #expect(after.story(of: 99) == nil)
    }
}
