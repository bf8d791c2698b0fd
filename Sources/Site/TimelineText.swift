import Foundation
import Timeline

/// The timeline as `reader-snapshot history` tells it on a terminal: the same events, counts and
/// words as the timeline's pages (`TimelineView`), in English, as plain values. What the server
/// named (titles, shelves) is in them as it came: the command makes it fit to show.
package struct TimelineText: Sendable {
    /// One event: "Frankenstein" and "moved from To Read to Reading".
    package struct Event: Sendable, Equatable {
        /// The night's date (`2026-11-29`), or the day the server says the book was added.
        package var date: String
        package var book: Int
        /// The book's title that night.
        package var title: String
        /// What happened, in the pages' words.
        package var what: String
        /// A note written, rewritten or removed: where `--history` has the note's diff.
        package var isNote: Bool
    }

    /// The events of one day, with its counts in the pages' words ("1 moved to Read · 2 added").
    package struct Night: Sendable, Equatable {
        package var date: String
        package var summary: String
        package var events: [Event]
    }

    private let timeline: Timeline

    /// The timeline a snapshot holds: nil when it has none (an older version's snapshot), an
    /// error that says why when it is there but cannot be read.
    package static func read(in snapshot: URL) throws -> TimelineText? {
        try Timeline.read(in: snapshot).map(TimelineText.init)
    }

    init(_ timeline: Timeline) {
        self.timeline = timeline
    }

    /// The first night the timeline saw.
    package var began: String { timeline.began }

    /// Each day with events, newest first, from `since` (`YYYY-MM-DD`) on; a day's events in the
    /// timeline's order, as a story reads (an arrival before a move).
    package func nights(since: String? = nil) -> [Night] {
        let language = Language.bundledEnglish
        let events = timeline.events
        var nights: [Night] = []
        var start = events.startIndex
        while start < events.endIndex {
            let date = events.date(at: start)
            var end = start + 1
            while end < events.endIndex, events.date(at: end) == date { end += 1 }
            if since.map({ date >= $0 }) ?? true {
                nights.append(Night(date: date, summary: TimelineView.summary(of: start..<end, in: events, language: language),
                                    events: (start..<end).map { Self.event(events[$0], language: language) }))
            }
            start = end
        }
        return nights.reversed()
    }

    /// One book's events, oldest first, from `since` on: its story, as its page tells it.
    package func story(of book: Int, since: String? = nil) -> [Event] {
        let language = Language.bundledEnglish
        return timeline.events.filter { event in event.book == book && since.map { event.date >= $0 } ?? true }
            .map { Self.event($0, language: language) }
    }

    /// Whether the timeline tells anything of `book`, on any day.
    package func tells(of book: Int) -> Bool { timeline.events.contains { $0.book == book } }

    private static func event(_ event: TimelineEvent, language: Language) -> Event {
        Event(date: event.date, book: event.book, title: event.title, what: TimelineView.what(event, language: language),
              isNote: event.kind.isNote)
    }
}
