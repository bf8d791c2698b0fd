import LibraryArchive
import Mustache
import NIOConcurrencyHelpers
import SnapshotStore
import Timeline

/// The timeline as the pages tell it (`timeline.html`, then `timeline-2.html`, …, and
/// `markdown/timeline.md`, …): month by month, newest first, each month with its counts in words
/// and its events, each linking to its book while the library holds it.
///
/// A year of nights at 100,000 books is about 465,000 events: made into the pages' values all at
/// once, they took over 100 MB. So the view keeps where each month and night is in the timeline,
/// and makes the events of one page, one night of the feed or one book's story when it is asked.
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
        /// "5 moved to Read · 3 notes written · 12 added": on the page that holds the month's newest
        /// events alone (its first a reader meets), so that tonight's counts leave the month's
        /// older pages as they were.
        var summary: String?
        var summaryMarkdown: String?
        var events: [Event]
    }

    struct Night: Sendable {
        /// `2026-11-29`
        var date: String
        var summary: String
        var events: [Event]
    }

    /// A month or a night: its name, its counts in words, and where its events are in the timeline.
    private struct Span: Sendable {
        var name: String
        var summary: String
        var events: Range<Int>
    }

    /// The timeline and where each book's events are, let go once the pages that tell them are
    /// made (`letGo`): held to the render's end, they were its peak at 100,000 books.
    private let held: NIOLockedValueBox<(timeline: Timeline, stories: StoryIndex)?>
    private var timeline: Timeline { held.withLockedValue { $0?.timeline } ?? Timeline(began: "", through: "", events: []) }
    private var stories: StoryIndex { held.withLockedValue { $0?.stories } ?? StoryIndex(Timeline(began: "", through: "", events: []).events) }
    private let language: Language
    private let fileOf: @Sendable (Int) -> String?
    /// Every month, newest first.
    private let months: [Span]
    /// The nights since the timeline began that changed something, newest first, at most the
    /// feed's: its entries.
    private let nightSpans: [Span]
    /// "Kept night by night since 1 November 2026 …"
    let began: String
    let eventCount: Int

    init(_ timeline: Timeline, language: Language, fileOf: @escaping @Sendable (Int) -> String?) {
        self.language = language
        self.fileOf = fileOf
        let events = timeline.events
        var months: [Span] = []
        var end = events.endIndex
        while end > events.startIndex {
            let month = events.date(at: end - 1).prefix(7)
            var start = end - 1
            while start > events.startIndex, events.date(at: start - 1).hasPrefix(month) { start -= 1 }
            let summary = Self.summary(of: start..<end, in: events, language: language)
            months.append(Span(name: language.month(month + "-01"), summary: summary, events: start..<end))
            end = start
        }
        self.months = months
        var nights: [Span] = []
        end = events.endIndex
        while end > events.startIndex, nights.count < TimelineFeed.nights {
            let date = events.date(at: end - 1)
            guard date >= timeline.began else { break }
            var start = end - 1
            while start > events.startIndex, events.date(at: start - 1) == date { start -= 1 }
            nights.append(Span(name: date, summary: Self.summary(of: start..<end, in: events, language: language), events: start..<end))
            end = start
        }
        nightSpans = nights
        held = NIOLockedValueBox((timeline, StoryIndex(events)))
        eventCount = events.count
        began = language.text("timelineBegan", ["day": language.day(timeline.began)])
    }

    /// Lets the timeline go: every page, the feed and the books' stories are made.
    func letGo() { held.withLockedValue { $0 = nil } }

    /// The book's story, when the timeline tells one: its events in one line, oldest first ("added
    /// on To Read, 17 July 2023 · moved from To Read to Reading, 1 December 2026").
    func story(of book: Int) -> String? {
        guard let (timeline, stories) = held.withLockedValue({ $0 }), let places = stories.places(of: book) else { return nil }
        let events = timeline.events
        // A note rewritten night after night is one part of the story: "note rewritten 3 times, last 9 December 2026".
        var told: [String] = [], rewrites = 0
        for place in places {
            let event = events[Int(place)]
            let day = language.day(event.date)
            if event.kind == .noteRewritten, rewrites > 0 {
                rewrites += 1
                told[told.count - 1] = language.count("timelineRewritten", rewrites, ["day": day])
                continue
            }
            rewrites = event.kind == .noteRewritten ? 1 : 0
            told.append(language.text("timelineStory", ["what": Self.what(event, language: language), "day": day]))
        }
        return told.joined(separator: " · ")
    }

    /// What the story is made of, as `timeline.json` keeps it: a book page's inputs take this, so
    /// that the story is told (in words) only for the pages made.
    func storyInputs(of book: Int) -> String {
        guard let (timeline, stories) = held.withLockedValue({ $0 }), let places = stories.places(of: book) else { return "" }
        return places.map { timeline.events.line(at: Int($0)) }.joined(separator: "\n")
    }

    /// The nights of the feed, newest first.
    var nightCount: Int { nightSpans.count }
    func nightDate(_ index: Int) -> String { nightSpans[index].name }

    func night(_ index: Int) -> Night {
        let span = nightSpans[index]
        var told = Told(markdown: false)
        return Night(date: span.name, summary: span.summary, events: span.events.reversed().map { event($0, told: &told) })
    }

    /// The number of pages of at most `perPage` events each (one at least).
    func pageCount(perPage: Int) -> Int { max(1, (eventCount + perPage - 1) / perPage) }

    /// Page `number` (from 1, the oldest): the timeline's events `perPage` at a time from its first,
    /// so that a night's events change its newest page and leave the others as they were (numbered
    /// from the newest, every page changed every night). Its events newest first, in their months.
    ///
    /// The Markdown's text (`titleMarkdown`, `whatMarkdown`, `markdownHref`) is made for a
    /// `markdown` page alone.
    func page(_ number: Int, perPage: Int, markdown: Bool = false) -> [Month] {
        let window = (number - 1) * perPage..<min(eventCount, number * perPage)
        var told = Told(markdown: markdown)
        return months.compactMap { month in
            let shown = month.events.clamped(to: window)
            guard !shown.isEmpty else { return nil }
            let summary = Self.holdsNewest(of: month, window) ? month.summary : nil
            return Month(name: month.name, summary: summary, summaryMarkdown: summary.map(Markdown.text),
                         events: shown.reversed().map { event($0, told: &told) })
        }
    }

    /// What page `number` shows, as text: a page whose inputs are as the night before is linked
    /// from the last snapshot, not made again (`SiteRenderer.timelineJobs`).
    func inputs(of number: Int, perPage: Int) -> [String] {
        let window = (number - 1) * perPage..<min(eventCount, number * perPage)
        var parts = [began]
        for month in months where month.events.overlaps(window) {
            parts += [month.name, Self.holdsNewest(of: month, window) ? month.summary : ""]
        }
        let events = timeline.events
        for place in window where place < events.count {
            let file = events.kind(at: place) == .removed ? nil : fileOf(events.book(at: place))
            parts.append(events.line(at: place) + "\u{0}" + (file ?? "\u{0}"))
        }
        return parts
    }

    /// Whether the page's events hold the month's newest (where its counts are told).
    private static func holdsNewest(of month: Span, _ window: Range<Int>) -> Bool {
        !month.events.isEmpty && window.contains(month.events.upperBound - 1)
    }

    /// What a page's events have told so far: a page of 5,000 events names a few dozen days and
    /// kinds of event, each written once (written for each event, they were most of the page's time).
    private struct Told {
        let markdown: Bool
        var days: [String: String] = [:]
        var whats: [TimelineEvents.WhatKey: (what: String, markdown: String)] = [:]
    }

    private func event(_ place: Int, told: inout Told) -> Event {
        let events = timeline.events
        let date = events.date(at: place)
        let day = told.days[date] ?? language.day(date)
        told.days[date] = day
        let key = events.whatKey(at: place)
        let event = events[place]
        let what: (what: String, markdown: String)
        if let key, let known = told.whats[key] {
            what = known
        } else {
            let text = Self.what(event, language: language)
            what = (text, told.markdown ? Markdown.text(text) : "")
            if let key { told.whats[key] = what }
        }
        let file = event.kind == .removed ? nil : fileOf(event.book)
        return Event(day: day, title: event.title, titleMarkdown: told.markdown ? Markdown.text(event.title) : "",
                     href: told.markdown ? nil : file.map { "books/\($0).html" }, markdownHref: told.markdown ? file.map { "books/\($0).md" } : nil,
                     what: what.what, whatMarkdown: what.markdown)
    }

    /// What happened to the book, in the pages' language.
    static func what(_ event: TimelineEvent, language: Language) -> String {
        func names(_ shelves: [String]) -> String {
            shelves.map { $0 == "no shelf" ? language.text("noShelfLower") : $0 }.joined(separator: ", ")
        }
        return language.text("timeline." + event.kind.rawValue, ["shelves": names(event.shelves), "from": names(event.shelves),
                                                                 "to": names(event.to ?? []), "title": event.formerTitle ?? ""])
    }

    /// A month's or a night's counts in words: the moves by the shelf they went to, the notes
    /// written, the books added, then the rest.
    static func summary(of range: Range<Int>, in events: TimelineEvents, language: Language) -> String {
        var movedTo: [String: Int] = [:]
        var written = 0, added = 0, other = 0
        for place in range {
            switch events.kind(at: place) {
            case .moved: for shelf in events.movedTo(at: place) { movedTo[shelf, default: 0] += 1 }
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

    /// The newest page is `timeline.html` (the one a book's page links), the others numbered from the oldest.
    static func pageFile(_ number: Int, count: Int) -> String { number == count ? "timeline.html" : "timeline-\(number).html" }
    static func markdownFile(_ number: Int, count: Int) -> String { number == count ? "timeline.md" : "timeline-\(number).md" }
    static let newestPage = "timeline.html"

    /// Every page's file, the oldest first.
    func pageFiles(perPage: Int) -> [String] {
        let count = pageCount(perPage: perPage)
        return (1...count).map { Self.pageFile($0, count: count) }
    }
}

/// Where each book's events are in the timeline (all but a removal), by book: about 4 bytes an
/// event and 12 a book, counted into place rather than sorted (a pair an event took 16 bytes more).
private struct StoryIndex: Sendable {
    /// The books by id, each with its number in the timeline (`TimelineEvents.bookNumber`).
    private var ids: [Int] = []
    private var numbers: [UInt32] = []
    /// Where each book's places begin in `places`, by its number; its events' places, oldest first.
    private var starts: [UInt32]
    private var places: [UInt32]

    init(_ events: TimelineEvents) {
        let count = events.bookCount
        starts = [UInt32](repeating: 0, count: count + 1)
        for place in events.indices where events.kind(at: place) != .removed { starts[events.bookNumber(at: place) + 1] += 1 }
        for number in 0..<count { starts[number + 1] += starts[number] }
        var next = starts
        places = [UInt32](repeating: 0, count: Int(starts[count]))
        for place in events.indices where events.kind(at: place) != .removed {
            let number = events.bookNumber(at: place)
            places[Int(next[number])] = UInt32(place)
            next[number] += 1
        }
        let byID = (0..<count).sorted { events.book(number: $0) < events.book(number: $1) }
        ids = byID.map(events.book(number:))
        numbers = byID.map(UInt32.init)
    }

    /// The book's events' places, oldest first; nil when the timeline tells nothing of it.
    func places(of book: Int) -> ArraySlice<UInt32>? {
        var low = 0, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < book { low = middle + 1 } else { high = middle }
        }
        guard low < ids.count, ids[low] == book else { return nil }
        let number = Int(numbers[low])
        let found = places[Int(starts[number])..<Int(starts[number + 1])]
        return found.isEmpty ? nil : found
    }
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

// The events and months answer their names themselves: found by reflection (as plain values
// are), they were most of a timeline page's time (swift-mustache casts each value it walks).
extension TimelineView.Event: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "day": return day
        case "title": return title
        case "titleMarkdown": return titleMarkdown
        case "href": return href
        case "markdownHref": return markdownHref
        case "what": return what
        case "whatMarkdown": return whatMarkdown
        default: return nil
        }
    }
}

extension TimelineView.Month: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "name": return self.name
        case "summary": return summary
        case "summaryMarkdown": return summaryMarkdown
        case "events": return events
        default: return nil
        }
    }
}

extension SiteModel {
    /// The timeline's page `number` (from the oldest), paged as the list of all books is: its HTML,
    /// or its Markdown (the pager's links to the Markdown's pages). Undated, as a shelf's page is
    /// (the layout's script says when the snapshot was taken): a night leaves the older pages as
    /// they were.
    func timelinePage(_ view: TimelineView, number: Int, markdown: Bool, root: String = "") -> TimelinePage {
        let count = view.pageCount(perPage: booksPerPage)
        let months = view.page(number, perPage: booksPerPage, markdown: markdown)
        let file = { markdown ? TimelineView.markdownFile($0, count: count) : TimelineView.pageFile($0, count: count) }
        let first = (number - 1) * booksPerPage + 1, events = months.reduce(0) { $0 + $1.events.count }
        let pager = count == 1 ? nil : PagerView(
            pages: (1...count).map { PageLinkView(number: $0, href: file($0), current: $0 == number) },
            previousHref: number > 1 ? file(number - 1) : nil,
            nextHref: number < count ? file(number + 1) : nil,
            number: number, count: count, first: first, last: first + events - 1, language: language, summaryKey: "timelinePagerSummary")
        return TimelinePage(root: root, site: undatedSite, began: view.began, months: months, pager: pager)
    }

    /// Every HTML page of the timeline at once (for the tests: the render makes one at a time).
    func timelinePages(_ view: TimelineView, root: String) -> [TimelinePage] {
        (1...view.pageCount(perPage: booksPerPage)).map { timelinePage(view, number: $0, markdown: false, root: root) }
    }
}

extension SiteRenderer {
    /// The timeline's feed, and its pages in each format, one job each: a page whose inputs (its
    /// events, their books' files, its months' counts, its pager) are as the night before is linked
    /// from the last snapshot. Made again every night, a year of nights at 100,000 books cost a
    /// night 30% more.
    func timelineJobs(_ model: SiteModel, inputs: PageInputs, gathered: PageDigests.Gathered, into writer: SnapshotWriter) -> [Job] {
        guard let timeline = model.timelineView else { return [] }
        let templates = self.templates, perPage = model.booksPerPage, count = timeline.pageCount(perPage: perPage)
        let site = PageInputs.values(of: model.undatedSite, among: SiteView.names, named: Set(SiteView.names))
        var jobs: [Job] = []
        if formats.contains(.feed) { jobs.append { try TimelineFeed.write(model, timeline, into: writer) } }
        for format in [OutputFormat.html, .markdown] where formats.contains(format) {
            for number in 1...count {
                let markdown = format == .markdown
                let file = markdown ? "markdown/" + TimelineView.markdownFile(number, count: count) : TimelineView.pageFile(number, count: count)
                jobs.append {
                    let digest = inputs.timeline([site, format.rawValue, "\(number) \(count)"] + timeline.inputs(of: number, perPage: perPage))
                    try self.page(file, digest: digest, gathered: gathered, into: writer) {
                        let page = model.timelinePage(timeline, number: number, markdown: markdown)
                        guard !markdown else { return try templates.render(context: page, .markdown, template: "timeline") }
                        let preview = model.listPreview(file, title: model.language.text("timeline"), description: page.began)
                        return try templates.render(page, preview: preview, .html, template: "timeline")
                    }
                }
            }
        }
        return jobs
    }
}
