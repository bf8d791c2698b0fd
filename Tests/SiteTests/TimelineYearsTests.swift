@testable import Site
import Testing
import Timeline

/// What a year's page and the stats' month charts count of the timeline, without a page.
struct TimelineYearsTests {
    static func event(_ date: String, _ book: Int, _ kind: TimelineEvent.Kind, on shelves: [String] = ["To Read"], to: [String]? = nil) -> TimelineEvent {
        TimelineEvent(date: date, book: book, kind: kind, title: "Book \(book)", shelves: shelves, to: to)
    }

    /// A book added before the timeline began reached its shelf when nobody saw; one added on a
    /// night the timeline saw, or moved, reached it that night. The longest wait runs from the
    /// server's day of adding to the move, and of two as long the first is kept.
    @Test func aYearCountsTheBooksThatReachedEachShelfTheNotesAndTheLongestWait() {
        let timeline = Timeline(began: "2026-03-10", through: "2026-05-02T03:00:00Z", events: [
            Self.event("2019-06-01", 1, .added),
            Self.event("2024-01-01", 2, .added, on: ["Read"]),
            Self.event("2024-01-01", 3, .added),
            Self.event("2026-03-12", 4, .added, on: ["Read"]),
            Self.event("2026-03-12", 4, .noteWritten),
            Self.event("2026-04-01", 1, .moved, to: ["Reading"]),
            Self.event("2026-04-20", 1, .moved, on: ["Reading"], to: ["Read"]),
            Self.event("2026-05-01", 3, .moved, to: ["no shelf"]),
            Self.event("2026-05-01", 4, .noteRewritten),
        ])
        let years = TimelineYears(timeline)
        // The years before it began have their pages from the days the books were added; the
        // timeline tells nothing more of them.
        #expect(years.yearKeys == ["2026"])
        let year = try! #require(years.years["2026"])
        #expect(year.notesWritten == 1)
        #expect(year.reached == ["Read": 2, "Reading": 1])
        #expect(year.longestWait == TimelineYears.Year.Wait(book: 1, title: "Book 1", days: 2515, added: "2019-06-01", moved: "2026-04-20", shelf: "Read"))
        // Every month from the one it began to its last, with their moves and notes.
        #expect(years.months.map(\.key) == ["2026-03", "2026-04", "2026-05"])
        #expect(years.months.map(\.movedTo) == [[:], ["Reading": 1, "Read": 1], [:]])
        #expect(years.months.map(\.notesWritten) == [1, 0, 0])
    }

    @Test func theChartsShowTheLastTwelveMonthsOnly() {
        let timeline = Timeline(began: "2024-11-30", through: "2026-11-29T03:00:00Z", events: [Self.event("2026-11-29", 1, .moved, to: ["Read"])])
        let months = TimelineYears(timeline).months
        #expect(months.count == 12 && months.first?.key == "2025-12" && months.last?.movedTo == ["Read": 1])
    }

    @Test func daysBetweenTwoDaysCountLeapYears() {
        #expect(NightDays.between("2024-02-28", "2024-03-01") == 2)
        #expect(NightDays.between("2023-02-28", "2023-03-01") == 1)
        #expect(NightDays.number("1970-01-01") == 0 && NightDays.number("2000-03-01") == 11_017)
        #expect(NightDays.between("2026-13-01", "2026-12-01") == nil)
    }
}
