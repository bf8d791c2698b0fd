import Foundation
import LibraryArchive
import Support

/// What only a nightly snapshot can know, kept in the snapshot itself (`timeline.json`): every
/// night's events, each with its night's date, so that `render --from` makes every page of it
/// again and each of `--keep`'s dated snapshots holds its own. It grows by tonight's change report.
package struct Timeline: Sendable, Equatable {
    package static let fileName = "timeline.json"
    static let schemaVersion = 1

    /// The first night the timeline saw: what it says of the days before is the server's own
    /// dates (when each book was added).
    package private(set) var began: String
    /// The snapshot of the last night that added an event (its `generated_at`).
    package private(set) var through: String
    /// In the timeline's order: by date, then book, then how a story reads; each event made when
    /// it is asked for, from the numbers the timeline keeps (`EventRecords`).
    package var events: TimelineEvents { TimelineEvents(store: store) }
    private(set) var store: EventRecords

    package init(began: String, through: String, events: [TimelineEvent]) {
        self.init(began: began, through: through, store: EventRecords(events.sorted(by: TimelineEvent.precedes)))
    }

    /// From records already in the timeline's order.
    init(began: String, through: String, store: EventRecords) {
        self.began = began
        self.through = through
        self.store = store
    }

    package static func == (a: Timeline, b: Timeline) -> Bool {
        a.began == b.began && a.through == b.through && a.events == b.events
    }

    /// Tonight's timeline: the last snapshot's with tonight's report added. A first night, or one
    /// whose last snapshot kept no timeline (an older version's), begins with the books there are,
    /// each dated by the day the server says it was added.
    ///
    /// A run killed between its swap and the keeping of its state leaves a snapshot (and its
    /// timeline) a night ahead of the library tonight is compared with: the events that night
    /// added are not added again.
    package static func tonight(last: consuming Timeline?, report: ChangeReport, library: LibraryFile) -> Timeline {
        let night = NightDate.day(of: report.generatedAt) ?? "1970-01-01"
        guard var timeline = last, !report.firstRun else {
            // Each book's arrival kept as numbers as it is made: 100,000 arrivals as events, then
            // sorted into a copy, were 25 MB more at the first export's peak.
            var begun = arrivals(in: library, night: night)
            // Tonight's additions are among the arrivals already.
            if !report.firstRun {
                for event in events(of: report, on: night, library: library) where event.kind != .added { begun.append(event) }
            }
            begun.sort()
            begun.seal()
            return Timeline(began: night, through: report.generatedAt, store: begun)
        }
        last = nil
        var tonight = events(of: report, on: night, library: library)
        if let previous = report.previousGeneratedAt, previous < timeline.through, let ahead = NightDate.day(of: timeline.through) {
            let day = Array(ahead.utf8)
            let told = timeline.store.records.filter { timeline.store.dateBytes($0).elementsEqual(day) }.map { timeline.store.event($0).withoutDate }
            tonight.removeAll { told.contains($0.withoutDate) }
        }
        // A quiet night adds nothing, and leaves the timeline as it was, `through` too: its file
        // and its feed keep their bytes, and a publish has nothing of it to send.
        guard !tonight.isEmpty else { return timeline }
        timeline.add(tonight, through: report.generatedAt)
        return timeline
    }

    /// `tonight`'s events in their places: after the others, as a night's nearly always are (its
    /// own date is the latest), else among them (a book the server dates earlier), all sorted again.
    mutating func add(_ tonight: [TimelineEvent], through: String) {
        self.through = through
        let sorted = tonight.sorted(by: TimelineEvent.precedes)
        guard let first = sorted.first else { return }
        let inOrder = store.records.last.map { !TimelineEvent.precedes(first, store.event($0)) } ?? true
        store.reserve(store.count + sorted.count)
        for event in sorted { store.append(event) }
        if !inOrder { store.sort() }
        store.seal()
    }

    /// Every book of `library` as arrived: on the day the server says, or tonight; on its shelves
    /// by name, sorted ("no shelf" for none).
    static func arrivals(in library: LibraryFile, night: String) -> EventRecords {
        // Each book's shelves found in one sorted list of (book, shelf), not a dictionary of arrays.
        var onShelves: [(book: Int, shelf: Int)] = []
        for (index, shelf) in library.frame.shelves.enumerated() { onShelves += shelf.bookIDs.map { ($0, index) } }
        onShelves.sort { $0.book < $1.book }
        var store = EventRecords()
        store.reserve(library.entries.count)
        for place in library.entries.indices {
            let entry = library.entries[place]
            var low = 0, high = onShelves.count
            while low < high {
                let middle = (low + high) / 2
                if onShelves[middle].book < entry.id { low = middle + 1 } else { high = middle }
            }
            var names: [String] = []
            while low < onShelves.count, onShelves[low].book == entry.id {
                names.append(library.frame.shelves[onShelves[low].shelf].name)
                low += 1
            }
            store.append(TimelineEvent(date: NightDate.arrival(entry.createdAt, night: night), book: entry.id, kind: .added,
                                       title: entry.title, shelves: names.isEmpty ? [ShelfNames.none] : names.sorted()))
        }
        return store
    }

    /// What tonight's report says, as events of tonight (an addition dated as the server dates it).
    static func events(of report: ChangeReport, on night: String, library: LibraryFile) -> [TimelineEvent] {
        var events: [TimelineEvent] = []
        var created: [Int: String?] = [:]
        if !report.added.isEmpty {
            for place in library.entries.indices { created[library.entries.id(at: place)] = library.entries[place].createdAt }
        }
        for entry in report.added {
            events.append(TimelineEvent(date: NightDate.arrival(created[entry.id] ?? nil, night: night), book: entry.id, kind: .added,
                                        title: entry.title, shelves: entry.shelves ?? []))
        }
        for entry in report.removed {
            events.append(TimelineEvent(date: night, book: entry.id, kind: .removed, title: entry.title, shelves: entry.shelves ?? []))
        }
        for move in report.moved {
            events.append(TimelineEvent(date: night, book: move.id, kind: .moved, title: move.title, shelves: move.from, to: move.to))
        }
        for edit in report.edited {
            for kind in kinds(of: edit) {
                events.append(TimelineEvent(date: night, book: edit.id, kind: kind, title: edit.title, shelves: edit.shelves ?? [],
                                            formerTitle: kind == .renamed ? edit.formerTitle : nil))
            }
        }
        return events
    }

    /// The events an edit is: a renamed book, a note written, rewritten or removed, a cover added…
    static func kinds(of edit: ChangeReport.Edit) -> [TimelineEvent.Kind] {
        edit.fields.compactMap { field in
            switch field {
            case "title": return .renamed
            case "author": return .authorChanged
            case "isbn": return .isbnChanged
            case "note":
                switch edit.note {
                case "written": return .noteWritten
                case "removed": return .noteRemoved
                default: return .noteRewritten
                }
            case "cover":
                switch edit.cover {
                case "added": return .coverAdded
                case "removed": return .coverRemoved
                // Open Library's cover came or went: the server's book did not change.
                case "enriched": return nil
                default: return .coverChanged
                }
            default: return nil
            }
        }
    }

    /// The timeline as a snapshot made with privacy options may show it: without `notes`, no note
    /// event, without `covers` no cover event; when the options leave shelves out (`restricted`), only the events of books the
    /// library still holds, and none that names a shelf it does not show. What cannot be told
    /// apart (a shelf renamed, or left out) is left out: the timeline fails closed.
    package func shown(with library: LibraryFile, notes: Bool, covers: Bool, restricted: Bool) -> Timeline {
        guard !notes || !covers || restricted else { return self }
        var books = Set<Int>(), shelves: Set<String> = [ShelfNames.none]
        if restricted {
            for place in library.entries.indices { books.insert(library.entries.id(at: place)) }
            for shelf in library.frame.shelves { shelves.insert(shelf.name) }
        }
        // Each shelf's name looked at once, not once an event.
        let shownShelf = (0..<UInt32(store.shelfNameCount)).map { shelves.contains(store.shelfName($0)) }
        var shown = self
        shown.store = store.filter { record in
            let kind = record.kind
            if !notes && kind.isNote { return false }
            if !covers && kind.isCover { return false }
            guard restricted else { return true }
            return books.contains(store.book(record)) && store.shelfNumbers(record).allSatisfy { shownShelf[Int($0)] }
        }
        return shown
    }
}

/// A book's shelves by name, as the change report names them ("no shelf" for none).
enum ShelfNames {
    static let none = "no shelf"
}

/// The dates the timeline keeps: a day, `2026-11-29`, in UTC, as the snapshot's own dates are.
enum NightDate {
    /// The day of an ISO 8601 date from the server or the snapshot, when it is one.
    static func day(of date: String?) -> String? {
        guard let day = date?.prefix(10), SnapshotDate.isDay(day) else { return nil }
        return String(day)
    }

    /// When a book arrived: the server's day, unless it has none, or one after tonight (a clock
    /// that is wrong tells nothing of the book).
    static func arrival(_ created: String?, night: String) -> String {
        guard let day = day(of: created), day <= night else { return night }
        return day
    }
}
