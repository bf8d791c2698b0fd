/// The timeline's events as numbers: each event 16 bytes, its book, title, date and shelves kept
/// once in tables (`InternTable`), so that a year of nights at 100,000 books (465,000 events)
/// takes about 12 MB rather than the 100 MB and more their `String`s and `[String]`s did.
struct EventRecords: Sendable {
    struct Record: Sendable, Equatable {
        /// A book id's number in `books`.
        var book: UInt32
        /// The title's number in `titles`; a renamed book's former title after a 0xFF byte (never in UTF-8).
        var title: UInt32
        /// The shelves' list's number in `lists`; a move's shelves, then `UInt32.max`, then where it went.
        var shelves: UInt32
        /// The date's number in `dates`, shifted by 4 bits, and the kind's place in `Kind.allCases`.
        var dateKind: UInt32

        var date: UInt32 { dateKind >> 4 }
        var kind: TimelineEvent.Kind { TimelineEvent.Kind.allCases[Int(dateKind & 0xF)] }
    }

    private(set) var records: [Record] = []
    private var books = InternTable<UInt64>()
    private var titles = InternTable<UInt8>()
    private var dates = InternTable<UInt8>()
    private var names = InternTable<UInt8>()
    private var lists = InternTable<UInt32>()

    static let separator = UInt32.max
    static let titleSeparator: UInt8 = 0xFF

    init() {}

    init(_ events: some Sequence<TimelineEvent>) {
        for event in events { append(event) }
    }

    var count: Int { records.count }

    mutating func reserve(_ count: Int) { records.reserveCapacity(count) }

    mutating func append(_ event: TimelineEvent) {
        records.append(record(event))
    }

    /// The event's numbers, its strings kept in the tables.
    mutating func record(_ event: TimelineEvent) -> Record {
        var title = Array(event.title.utf8)
        if let former = event.formerTitle {
            title.append(Self.titleSeparator)
            title += former.utf8
        }
        var list = event.shelves.map { names.intern($0.utf8) }
        if let to = event.to {
            list.append(Self.separator)
            list += to.map { names.intern($0.utf8) }
        }
        return Record(book: books.intern(CollectionOfOne(UInt64(bitPattern: Int64(event.book)))), title: titles.intern(title),
                      shelves: lists.intern(list), dateKind: dates.intern(event.date.utf8) << 4 | UInt32(event.kind.order))
    }

    /// Only the events `keep` says yes to, in their order; the tables as they are.
    func filter(_ keep: (Record) -> Bool) -> EventRecords {
        var kept = self
        kept.records = records.filter(keep)
        return kept
    }

    /// The records in the timeline's order: by date, then book, then how a story reads (a sort that
    /// keeps the order of equals, as `TimelineEvent.precedes` sorted them).
    mutating func sort() {
        let order = Order(rank: dateRanks(), books: books)
        records.sort(by: order.precedes)
    }

    /// The timeline's order on records: dates by their text, then books by id, then kinds.
    private struct Order {
        let rank: [Int]
        let books: InternTable<UInt64>

        func precedes(_ a: Record, _ b: Record) -> Bool {
            let (da, db) = (rank[Int(a.date)], rank[Int(b.date)])
            if da != db { return da < db }
            let (ba, bb) = (Int64(bitPattern: books[a.book].first!), Int64(bitPattern: books[b.book].first!))
            if ba != bb { return ba < bb }
            return a.dateKind & 0xF < b.dateKind & 0xF
        }
    }

    /// Each date's place among the dates, by their text (the timeline's order).
    func dateRanks() -> [Int] {
        let order = (0..<UInt32(dates.count)).sorted { dates[$0].lexicographicallyPrecedes(dates[$1]) }
        var rank = [Int](repeating: 0, count: order.count)
        for (place, number) in order.enumerated() { rank[Int(number)] = place }
        return rank
    }

    /// Lets the tables' lookups go: a timeline read is only looked at, until tonight adds to it.
    mutating func seal() {
        records = InternTable<UInt8>.trimmed(records)
        books.seal()
        titles.seal()
        dates.seal()
        names.seal()
        lists.seal()
    }

    /// Whether every date the events name is one `isDay` accepts.
    func allDates(_ isDay: (String) -> Bool) -> Bool {
        (0..<UInt32(dates.count)).allSatisfy { isDay(dates.string($0)) }
    }

    /// Whether the records are in the timeline's order already (as this version writes them).
    var isSorted: Bool {
        let order = Order(rank: dateRanks(), books: books)
        return zip(records, records.dropFirst()).allSatisfy { !order.precedes($1, $0) }
    }

    /// The event's line as `JSONEncoder` writes a `TimelineEvent` (its keys sorted, no nil key).
    func encode(_ record: Record, into line: inout JSONLine) {
        line.raw("{\"book\":\(book(record)),\"date\":")
        line.string(dates[record.date])
        let title = titles[record.title]
        let split = title.firstIndex(of: Self.titleSeparator)
        if let split {
            line.raw(",\"former_title\":")
            line.string(title[(split + 1)...])
        }
        line.raw(",\"kind\":\"\(record.kind.rawValue)\",\"shelves\":")
        let list = lists[record.shelves]
        let to = list.firstIndex(of: Self.separator)
        line.strings(list[..<(to ?? list.endIndex)].map { names[$0] })
        line.raw(",\"title\":")
        line.string(title[..<(split ?? title.endIndex)])
        if let to {
            line.raw(",\"to\":")
            line.strings(list[(to + 1)...].map { names[$0] })
        }
        line.raw("}")
    }

    // What an event's numbers stand for.

    func book(_ record: Record) -> Int { book(number: record.book) }
    func book(number: UInt32) -> Int { Int(Int64(bitPattern: books[number].first!)) }
    var bookCount: Int { books.count }
    func date(_ record: Record) -> String { dates.string(record.date) }
    func dateBytes(_ record: Record) -> ArraySlice<UInt8> { dates[record.date] }

    /// The title that night, and the one a renamed book had before.
    func titles(_ record: Record) -> (title: String, former: String?) {
        let bytes = titles[record.title]
        guard let split = bytes.firstIndex(of: Self.titleSeparator) else { return (String(decoding: bytes, as: UTF8.self), nil) }
        return (String(decoding: bytes[..<split], as: UTF8.self), String(decoding: bytes[(split + 1)...], as: UTF8.self))
    }

    /// The shelves the book was on, and those a move took it to.
    func shelves(_ record: Record) -> (on: [String], to: [String]?) {
        let list = lists[record.shelves]
        guard let split = list.firstIndex(of: Self.separator) else { return (list.map(names.string), nil) }
        return (list[..<split].map(names.string), list[(split + 1)...].map(names.string))
    }

    /// The shelves' numbers the event names (where it was and where it went), as `names` keeps them.
    func shelfNumbers(_ record: Record) -> [UInt32] { lists[record.shelves].filter { $0 != Self.separator } }
    func shelfName(_ number: UInt32) -> String { names.string(number) }
    var shelfNameCount: Int { names.count }

    func event(_ record: Record) -> TimelineEvent {
        let (title, former) = titles(record)
        let (on, to) = shelves(record)
        return TimelineEvent(date: date(record), book: book(record), kind: record.kind, title: title, shelves: on, to: to, formerTitle: former)
    }
}

/// The timeline's events in its order, each made when asked for: `Timeline.events`.
package struct TimelineEvents: RandomAccessCollection, Sendable, Equatable, CustomStringConvertible {
    let store: EventRecords

    package var startIndex: Int { 0 }
    package var endIndex: Int { store.count }
    package subscript(position: Int) -> TimelineEvent { store.event(store.records[position]) }

    package static func == (a: TimelineEvents, b: TimelineEvents) -> Bool { a.elementsEqual(b) }

    package var description: String { Array(self).description }
}

/// What the pages ask of every event, without making the event.
extension TimelineEvents {
    package func kind(at index: Int) -> TimelineEvent.Kind { store.records[index].kind }
    package func book(at index: Int) -> Int { store.book(store.records[index]) }
    /// The books the events name, numbered from 0 (an event's book's number, a number's book's id).
    package var bookCount: Int { store.bookCount }
    package func bookNumber(at index: Int) -> Int { Int(store.records[index].book) }
    package func book(number: Int) -> Int { store.book(number: UInt32(number)) }
    /// `2026-11-29`: a small string, kept without an allocation.
    package func date(at index: Int) -> String { store.date(store.records[index]) }
    /// The shelves a move took its book to (none for another kind of event).
    package func movedTo(at index: Int) -> [String] { store.shelves(store.records[index]).to ?? [] }

    /// What tells an event's kind and shelves apart from another's (the same key, the same words):
    /// nil for a renamed book, whose words name its former title too.
    package struct WhatKey: Hashable, Sendable {
        let shelves: UInt32
        let kind: UInt32
    }

    package func whatKey(at index: Int) -> WhatKey? {
        let record = store.records[index]
        return record.kind == .renamed ? nil : WhatKey(shelves: record.shelves, kind: record.dateKind & 0xF)
    }

    /// The event as `timeline.json` keeps it: what a book page's inputs take of its story.
    package func line(at index: Int) -> String {
        var line = JSONLine()
        store.encode(store.records[index], into: &line)
        return String(decoding: line.bytes, as: UTF8.self)
    }
}
