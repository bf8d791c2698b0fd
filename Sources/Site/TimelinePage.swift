import LibraryArchive
import Mustache
import Timeline

/// The timeline as the pages tell it (`timeline.html`, then `timeline-2.html`, …, and
/// `markdown/timeline.md`): month by month, newest first, each month with its counts in words and
/// its events, each linking to its book while the library holds it.
struct TimelineView: Sendable {
    struct Event: Sendable {
        var day: String
        var title: String
        var titleMarkdown: String
        var href: String?
        var markdownHref: String?
        /// What happened, in the pages' language: "moved from To Read to Reading".
        var what: String
        var whatMarkdown: String
    }

    struct Month: Sendable {
        /// "November 2026", as the language writes it.
        var name: String
        /// "5 moved to Read · 3 notes written · 12 added"
        var summary: String
        var summaryMarkdown: String
        var events: [Event]
    }

    /// Every month, newest first, each with its events newest first.
    let months: [Month]
    /// The nights since the timeline began that changed something, newest first: its feed's entries.
    let nights: [Night]

    struct Night: Sendable {
        /// `2026-11-29`
        var date: String
        var summary: String
        var events: [Event]
    }
    /// Each book's story, by id: its events in one line, oldest first ("added on To Read,
    /// 17 July 2023 · moved from To Read to Reading, 1 December 2026").
    private let stories: [Int: String]
    /// "Kept night by night since 1 November 2026 …"
    let began: String
    let eventCount: Int

    init(_ timeline: Timeline, language: Language, fileOf: (Int) -> String?) {
        var months: [Month] = []
        var current: (key: String, events: [TimelineEvent]) = ("", [])
        func close() {
            guard !current.events.isEmpty else { return }
            let summary = Self.summary(of: current.events, in: language)
            months.append(Month(name: language.month(current.key + "-01"), summary: summary, summaryMarkdown: Markdown.text(summary),
                                events: current.events.map { Self.event($0, language: language, fileOf: fileOf) }))
        }
        for event in timeline.events.reversed() {
            let month = String(event.date.prefix(7))
            if month != current.key {
                close()
                current = (month, [])
            }
            current.events.append(event)
        }
        close()
        self.months = months
        var nights: [Night] = []
        for event in timeline.events.reversed() where event.date >= timeline.began {
            if nights.last?.date != event.date {
                guard nights.count < TimelineFeed.nights else { break }
                nights.append(Night(date: event.date, summary: "", events: []))
            }
            nights[nights.count - 1].events.append(Self.event(event, language: language, fileOf: fileOf))
        }
        let byDate = Dictionary(grouping: timeline.events.filter { $0.date >= timeline.began }, by: \.date)
        for index in nights.indices { nights[index].summary = Self.summary(of: byDate[nights[index].date] ?? [], in: language) }
        self.nights = nights
        // A note rewritten night after night is one part of the story: "note rewritten 3 times, last 9 December 2026".
        var told: [Int: [String]] = [:], rewrites: [Int: Int] = [:]
        for event in timeline.events where event.kind != .removed {
            let day = language.day(event.date)
            if event.kind == .noteRewritten, let count = rewrites[event.book] {
                rewrites[event.book] = count + 1
                told[event.book]![told[event.book]!.count - 1] = language.count("timelineRewritten", count + 1, ["day": day])
                continue
            }
            rewrites[event.book] = event.kind == .noteRewritten ? 1 : nil
            told[event.book, default: []].append(language.text("timelineStory", ["what": Self.what(event, language: language), "day": day]))
        }
        stories = told.mapValues { $0.joined(separator: " · ") }
        eventCount = timeline.events.count
        began = language.text("timelineBegan", ["day": language.day(timeline.began)])
    }

    /// The book's story, when the timeline tells one.
    func story(of book: Int) -> String? { stories[book] }

    static func event(_ event: TimelineEvent, language: Language, fileOf: (Int) -> String?) -> Event {
        let file = event.kind == .removed ? nil : fileOf(event.book)
        let what = what(event, language: language)
        return Event(day: language.day(event.date), title: event.title, titleMarkdown: Markdown.text(event.title),
                     href: file.map { "books/\($0).html" }, markdownHref: file.map { "books/\($0).md" },
                     what: what, whatMarkdown: Markdown.text(what))
    }

    /// What happened to the book, in the pages' language.
    static func what(_ event: TimelineEvent, language: Language) -> String {
        func names(_ shelves: [String]) -> String {
            shelves.map { $0 == "no shelf" ? language.text("noShelfLower") : $0 }.joined(separator: ", ")
        }
        return language.text("timeline." + event.kind.rawValue, ["shelves": names(event.shelves), "from": names(event.shelves),
                                                                 "to": names(event.to ?? []), "title": event.formerTitle ?? ""])
    }

    /// A month's counts in words: the moves by the shelf they went to, the notes written, the books
    /// added, then the rest.
    static func summary(of events: [TimelineEvent], in language: Language) -> String {
        var movedTo: [String: Int] = [:]
        var written = 0, added = 0, other = 0
        for event in events {
            switch event.kind {
            case .moved: for shelf in event.to ?? [] { movedTo[shelf, default: 0] += 1 }
            case .noteWritten: written += 1
            case .added: added += 1
            default: other += 1
            }
        }
        var parts = movedTo.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { shelf, count in
            language.count("timelineMovedTo", count, ["shelf": shelf == "no shelf" ? language.text("noShelfLower") : shelf])
        }
        if written > 0 { parts.append(language.count("timelineNotesWritten", written)) }
        if added > 0 { parts.append(language.count("timelineAdded", added)) }
        if other > 0 { parts.append(language.count("timelineOther", other)) }
        return parts.joined(separator: " · ")
    }

    /// The pages: at most `perPage` events each, a month that does not fit going on over the next.
    func pages(perPage: Int) -> [[Month]] {
        var pages: [[Month]] = [[]]
        var room = perPage
        for month in months {
            var rest = month.events[...]
            while !rest.isEmpty {
                if room == 0 {
                    pages.append([])
                    room = perPage
                }
                let part = rest.prefix(room)
                var slice = month
                slice.events = Array(part)
                pages[pages.count - 1].append(slice)
                rest = rest.dropFirst(part.count)
                room -= part.count
            }
        }
        return pages
    }

    static func pageFile(_ number: Int) -> String { number == 1 ? "timeline.html" : "timeline-\(number).html" }
}

/// One page of the timeline.
struct TimelinePage: RootedPage {
    var root: String
    var site: SiteView
    var began: String
    var months: [TimelineView.Month]
    var pager: PagerView?
}

extension TimelinePage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "root": return root
        case "site": return Ref(site)
        case "began": return Text(began)
        case "months": return months
        case "hasEvents": return !months.isEmpty
        case "pager": return pager.map(Ref.init)
        default: return nil
        }
    }
}

extension SiteModel {
    /// The timeline's pages, paged as the list of all books is.
    func timelinePages(_ view: TimelineView, root: String) -> [TimelinePage] {
        let pages = view.pages(perPage: booksPerPage)
        var first = 1
        return pages.enumerated().map { index, months in
            let number = index + 1, events = months.reduce(0) { $0 + $1.events.count }
            let pager = pages.count == 1 ? nil : PagerView(
                pages: (1...pages.count).map { PageLinkView(number: $0, href: TimelineView.pageFile($0), current: $0 == number) },
                previousHref: number > 1 ? TimelineView.pageFile(number - 1) : nil,
                nextHref: number < pages.count ? TimelineView.pageFile(number + 1) : nil,
                number: number, count: pages.count, first: first, last: first + events - 1, language: language, summaryKey: "timelinePagerSummary")
            first += events
            return TimelinePage(root: root, site: site, began: view.began, months: months, pager: pager)
        }
    }
}
