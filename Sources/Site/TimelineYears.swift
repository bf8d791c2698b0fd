import Mustache
import Support
import Timeline

/// What the timeline tells of each year and each month, counted in one pass over its events: a
/// year's page says "2026 in books" (the books that reached each shelf, the notes written, the
/// books added, the longest wait from a book's arrival to a move), and the stats page charts the
/// moves into each shelf and the notes written, month by month.
struct TimelineYears: Sendable {
    /// One year as its page tells it.
    struct Year: Sendable {
        struct Shelf: Sendable {
            var name: String
            var count: Int
        }

        /// The longest wait of the year: a book that moved to a shelf long after it was added.
        struct Wait: Sendable, Equatable {
            var book: Int
            var title: String
            var days: Int
            var added: String
            var moved: String
            var shelf: String
        }

        var notesWritten = 0
        /// How many books reached each shelf: moved to it, or added on it on a night the timeline
        /// saw. A book added before the timeline began was on its shelf when the timeline first saw
        /// it, which says nothing of when it reached it.
        var reached: [String: Int] = [:]
        var longestWait: Wait?
    }

    /// One month of the stats page's charts.
    struct Month: Sendable {
        /// `2026-11`
        var key: String
        var movedTo: [String: Int] = [:]
        var notesWritten = 0
    }

    /// By year, `2026`.
    let years: [String: Year]
    /// The months the charts show, oldest first: the last `chartMonths` of the months from the
    /// one the timeline began to the one of its last night, those without an event too.
    let months: [Month]
    /// The first night the timeline saw (`2025-11-24`).
    let began: String

    /// A year of months: enough to see a season, few enough to read at a phone's width.
    static let chartMonths = 12

    init(_ timeline: Timeline) {
        began = timeline.began
        var years: [String: Year] = [:]
        // The books themselves only while they are counted: kept by year, 4 MB at 100,000 books.
        var reached: [String: [String: Set<Int>]] = [:]
        var arrival: [Int: String] = [:]
        var byMonth: [String: Month] = [:]
        for event in timeline.events {
            let year = String(event.date.prefix(4)), month = String(event.date.prefix(7))
            let seen = event.date >= timeline.began
            switch event.kind {
            case .added:
                if arrival[event.book] == nil { arrival[event.book] = event.date }
                if seen {
                    for shelf in event.shelves where shelf != ShelfName.none { reached[year, default: [:]][shelf, default: []].insert(event.book) }
                }
            case .moved:
                for shelf in event.to ?? [] where shelf != ShelfName.none {
                    reached[year, default: [:]][shelf, default: []].insert(event.book)
                    byMonth[month, default: Month(key: month)].movedTo[shelf, default: 0] += 1
                    guard let added = arrival[event.book], let days = NightDays.between(added, event.date) else { continue }
                    let wait = Year.Wait(book: event.book, title: event.title, days: days, added: added, moved: event.date, shelf: shelf)
                    // The longest; of two as long, the one that came first, so that the page is the same every night.
                    if days > years[year]?.longestWait?.days ?? -1 { years[year, default: Year()].longestWait = wait }
                }
            case .noteWritten:
                years[year, default: Year()].notesWritten += 1
                byMonth[month, default: Month(key: month)].notesWritten += 1
            default:
                break
            }
        }
        for (year, shelves) in reached { years[year, default: Year()].reached = shelves.mapValues(\.count) }
        self.years = years
        months = Self.monthKeys(from: timeline.began, through: timeline.events.last.map { max($0.date, timeline.began) } ?? timeline.began)
            .suffix(Self.chartMonths).map { byMonth[$0] ?? Month(key: $0) }
    }

    /// Every month from `first`'s to `last`'s (days, `2025-11-24`), as `2025-11`.
    static func monthKeys(from first: String, through last: String) -> [String] {
        guard let startYear = Int(first.prefix(4)), let startMonth = Int(first.dropFirst(5).prefix(2)),
              let endYear = Int(last.prefix(4)), let endMonth = Int(last.dropFirst(5).prefix(2)) else { return [] }
        var keys: [String] = []
        var (year, month) = (startYear, startMonth)
        while (year, month) <= (endYear, endMonth) {
            keys.append(String(format: "%04d-%02d", year, month))
            (year, month) = month == 12 ? (year + 1, 1) : (year, month + 1)
        }
        return keys
    }

    /// The years the timeline tells anything of, oldest first.
    var yearKeys: [String] { years.keys.sorted() }
}

/// The shelf name the change report gives a book on no shelf.
enum ShelfName {
    static let none = "no shelf"
}

/// Days between two days of the timeline, by the calendar's arithmetic (no time zone: both are
/// UTC days).
enum NightDays {
    static func between(_ from: String, _ to: String) -> Int? {
        guard let start = number(from), let end = number(to) else { return nil }
        return end - start
    }

    /// The day's number since 1970-01-01 (Howard Hinnant's `days_from_civil`).
    static func number(_ day: String) -> Int? {
        guard SnapshotDate.isDay(day), var year = Int(day.prefix(4)), let month = Int(day.dropFirst(5).prefix(2)),
              let dayOfMonth = Int(day.suffix(2)), (1...12).contains(month), (1...31).contains(dayOfMonth) else { return nil }
        year -= month <= 2 ? 1 : 0
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + dayOfMonth - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// A year's "in books", as its page shows it in the pages' language.
final class YearInBooksView: Sendable {
    struct Reached: Sendable {
        var shelf: String
        var shelfMarkdown: String
        var countText: String
    }

    struct Wait: Sendable {
        var title: String
        var titleMarkdown: String
        var href: String?
        var markdownHref: String?
        /// "1,234 days from being added (17 July 2023) to Read (1 December 2026)"
        var text: String
        var textMarkdown: String
    }

    /// "2026 in books"
    let heading: String
    let addedText: String
    /// nil when the snapshot shows no note (`--no-notes`): a count of none would say what it does not know.
    let notesText: String?
    /// Each shelf books reached in the year, the most first.
    let reached: [Reached]
    let wait: Wait?
    /// Said on the year the timeline began: before that day, only the days the books were added are known.
    let partly: String?

    /// `added`: the books of the library added in the year, as the list under it counts them.
    init(year: String, _ counted: TimelineYears.Year?, added: Int, began: String, showsNotes: Bool, language: Language, fileOf: (Int) -> String?) {
        heading = language.text("yearInBooks", ["year": year])
        addedText = language.number(added)
        notesText = showsNotes || counted?.notesWritten ?? 0 > 0 ? language.number(counted?.notesWritten ?? 0) : nil
        func shelfName(_ name: String) -> String { name == ShelfName.none ? language.text("noShelfLower") : name }
        reached = (counted?.reached ?? [:]).map { ($0.key, $0.value) }.sorted { ($1.1, $0.0) < ($0.1, $1.0) }.map { shelf, count in
            Reached(shelf: shelf, shelfMarkdown: Markdown.text(shelf), countText: language.count("books", count))
        }
        wait = counted?.longestWait.map { wait in
            let file = fileOf(wait.book)
            let text = language.count("yearWait", wait.days, ["added": language.day(wait.added), "shelf": shelfName(wait.shelf),
                                                               "moved": language.day(wait.moved)])
            return Wait(title: wait.title, titleMarkdown: Markdown.text(wait.title), href: file.map { "books/\($0).html" },
                        markdownHref: file.map { "books/\($0).md" }, text: text, textMarkdown: Markdown.text(text))
        }
        partly = year == String(began.prefix(4)) ? language.text("yearPartly", ["day": language.day(began)]) : nil
    }

    /// What the page shows of it, for the page's digest: a page whose year changed is made again.
    var digestKey: String {
        ([heading, addedText, notesText ?? "", partly ?? ""] + reached.map { $0.shelf + "\u{1}" + $0.countText }
            + [wait.map { [$0.title, $0.href ?? "", $0.text].joined(separator: "\u{1}") } ?? ""]).joined(separator: "\u{0}")
    }
}

extension YearInBooksView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "heading": return Text(heading)
        case "addedText": return Text(addedText)
        case "notesText": return notesText.map(Text.init)
        case "reached": return reached
        case "hasReached": return !reached.isEmpty
        case "wait": return wait
        case "partly": return partly.map(Text.init)
        default: return nil
        }
    }
}

extension SiteModel {
    /// What the timeline tells of `year`, for its page: nothing of a year before it began, of
    /// which only the days the books were added are known (and the page lists them).
    func yearInBooks(_ year: YearIndex.Year) -> YearInBooksView? {
        timelineYears.flatMap { years in
            guard year.year >= years.began.prefix(4) else { return nil }
            return YearInBooksView(year: year.year, years.years[year.year], added: year.books.count, began: years.began,
                                   showsNotes: site.noteCount > 0, language: language,
                                   fileOf: { [placeByID, fileNames] in placeByID[$0].map { fileNames[$0] } })
        }
    }
}
