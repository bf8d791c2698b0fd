import Notes
import Support

/// What changed in the library since the previous snapshot: written as `changes.json`, shown in
/// `changes.html` and in `markdown/index.md`. It describes this snapshot against the one before
/// it, so a run that finds nothing new keeps the report (and every file) as it was.
package struct ChangeReport: Codable, Sendable, Equatable {
    package struct Entry: Codable, Sendable, Equatable {
        package var id: Int
        package var title: String
    }

    package struct Move: Codable, Sendable, Equatable {
        package var id: Int
        package var title: String
        package var from: [String]
        package var to: [String]
    }

    package struct Edit: Codable, Sendable, Equatable {
        package var id: Int
        package var title: String
        /// Which of title, author, isbn, note and cover changed.
        package var fields: [String]
    }

    package var schemaVersion = 1
    /// True when there was no previous snapshot to compare with.
    package var firstRun: Bool
    package var previousGeneratedAt: String?
    package var generatedAt: String
    package var added: [Entry] = []
    package var removed: [Entry] = []
    package var moved: [Move] = []
    package var edited: [Edit] = []

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", firstRun = "first_run", previousGeneratedAt = "previous_generated_at"
        case generatedAt = "generated_at", added, removed, moved, edited
    }

    package var isEmpty: Bool { added.isEmpty && removed.isEmpty && moved.isEmpty && edited.isEmpty }

    package var summary: String {
        if firstRun { return "first snapshot" }
        if isEmpty { return "no changes" }
        return "\(added.count) added, \(removed.count) removed, \(moved.count) moved, \(edited.count) edited"
    }

    package static func compare(previous: Library?, current: Library) -> ChangeReport {
        // Both in memory: nothing to read can fail.
        (try? compare(previous: previous.map(Catalog.init), current: Catalog(current)))
            ?? ChangeReport(firstRun: true, previousGeneratedAt: nil, generatedAt: current.generatedAt)
    }

    /// Book by book: the cards say what moved and which plain fields changed; a book's notes are
    /// read only when its JSON differs from last time.
    package static func compare(previous: Catalog?, current: Catalog) throws -> ChangeReport {
        guard let previous else {
            return ChangeReport(firstRun: true, previousGeneratedAt: nil, generatedAt: current.frame.generatedAt)
        }
        var report = ChangeReport(firstRun: false, previousGeneratedAt: previous.frame.generatedAt, generatedAt: current.frame.generatedAt)
        let before = places(previous), after = places(current)
        let shelvesBefore = shelfNames(previous), shelvesAfter = shelfNames(current)
        for place in current.cards.indices.sorted(by: { current.cards.id(at: $0) < current.cards.id(at: $1) }) {
            let book = current.cards[place]
            guard let oldPlace = before[book.id] else {
                report.added.append(Entry(id: book.id, title: book.title))
                continue
            }
            let from = shelvesBefore[book.id] ?? ["no shelf"], to = shelvesAfter[book.id] ?? ["no shelf"]
            if from != to { report.moved.append(Move(id: book.id, title: book.title, from: from, to: to)) }
            if try previous.element(at: oldPlace) == current.element(at: place) { continue }
            let old = previous.cards[oldPlace]
            var fields: [String] = []
            if old.title != book.title { fields.append("title") }
            if old.author != book.author { fields.append("author") }
            if old.isbn != book.isbn { fields.append("isbn") }
            // A book whose details could not be read this time (or last time) says nothing of its note.
            if old.complete && book.complete, try previous.noteSource(at: oldPlace) != current.noteSource(at: place) { fields.append("note") }
            // A cover's file is named by its hash.
            if old.cover?.path != book.cover?.path { fields.append("cover") }
            if !fields.isEmpty { report.edited.append(Edit(id: book.id, title: book.title, fields: fields)) }
        }
        for place in previous.cards.indices.sorted(by: { previous.cards.id(at: $0) < previous.cards.id(at: $1) })
        where after[previous.cards.id(at: place)] == nil {
            report.removed.append(Entry(id: previous.cards.id(at: place), title: previous.cards[place].title))
        }
        return report
    }

    private static func places(_ catalog: Catalog) -> [Int: Int] {
        var places: [Int: Int] = [:]
        places.reserveCapacity(catalog.count)
        for place in catalog.cards.indices where places[catalog.cards.id(at: place)] == nil { places[catalog.cards.id(at: place)] = place }
        return places
    }

    /// The names of the shelves that list each book, sorted; a book on no listed shelf is "no shelf".
    private static func shelfNames(_ catalog: Catalog) -> [Int: [String]] {
        var names: [Int: [String]] = [:]
        for shelf in catalog.frame.shelves {
            for id in shelf.bookIDs { names[id, default: []].append(shelf.name) }
        }
        return names.mapValues { $0.sorted() }
    }
}
