/// What changed in the library since the previous snapshot: written as `changes.json`, shown in
/// `changes.html` and in `markdown/index.md`. It describes this snapshot against the one before
/// it, so a run that finds nothing new keeps the report (and every file) as it was.
public struct ChangeReport: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var id: Int
        public var title: String
    }

    public struct Move: Codable, Sendable, Equatable {
        public var id: Int
        public var title: String
        public var from: [String]
        public var to: [String]
    }

    public struct Edit: Codable, Sendable, Equatable {
        public var id: Int
        public var title: String
        /// Which of title, author, isbn, note and cover changed.
        public var fields: [String]
    }

    public var schemaVersion = 1
    /// True when there was no previous snapshot to compare with.
    public var firstRun: Bool
    public var previousGeneratedAt: String?
    public var generatedAt: String
    public var added: [Entry] = []
    public var removed: [Entry] = []
    public var moved: [Move] = []
    public var edited: [Edit] = []

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", firstRun = "first_run", previousGeneratedAt = "previous_generated_at"
        case generatedAt = "generated_at", added, removed, moved, edited
    }

    public var isEmpty: Bool { added.isEmpty && removed.isEmpty && moved.isEmpty && edited.isEmpty }

    public var summary: String {
        if firstRun { return "first snapshot" }
        if isEmpty { return "no changes" }
        return "\(added.count) added, \(removed.count) removed, \(moved.count) moved, \(edited.count) edited"
    }

    public static func compare(previous: Library?, current: Library) -> ChangeReport {
        guard let previous else {
            return ChangeReport(firstRun: true, previousGeneratedAt: nil, generatedAt: current.generatedAt)
        }
        var report = ChangeReport(firstRun: false, previousGeneratedAt: previous.generatedAt, generatedAt: current.generatedAt)
        let before = Dictionary(previous.books.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(current.books.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let shelvesBefore = shelfNames(previous), shelvesAfter = shelfNames(current)
        for book in current.books.sorted(by: { $0.id < $1.id }) {
            guard let old = before[book.id] else {
                report.added.append(Entry(id: book.id, title: book.title))
                continue
            }
            let from = shelvesBefore[book.id] ?? [], to = shelvesAfter[book.id] ?? []
            if from != to { report.moved.append(Move(id: book.id, title: book.title, from: from, to: to)) }
            var fields: [String] = []
            if old.title != book.title { fields.append("title") }
            if old.author != book.author { fields.append("author") }
            if old.isbn != book.isbn { fields.append("isbn") }
            // A book whose details could not be read this time (or last time) says nothing of its note.
            if old.complete && book.complete && old.note.source != book.note.source { fields.append("note") }
            if old.cover?.sha256 != book.cover?.sha256 { fields.append("cover") }
            if !fields.isEmpty { report.edited.append(Edit(id: book.id, title: book.title, fields: fields)) }
        }
        for book in previous.books.sorted(by: { $0.id < $1.id }) where after[book.id] == nil {
            report.removed.append(Entry(id: book.id, title: book.title))
        }
        return report
    }

    /// The names of the shelves that list each book, sorted; a book on no listed shelf is "no shelf".
    private static func shelfNames(_ library: Library) -> [Int: [String]] {
        var names: [Int: [String]] = [:]
        for shelf in library.shelves {
            for id in shelf.bookIDs { names[id, default: []].append(shelf.name) }
        }
        for book in library.books where names[book.id] == nil { names[book.id] = ["no shelf"] }
        return names.mapValues { $0.sorted() }
    }
}

extension Library {
    /// The same library, whatever its date: what decides whether anything changed.
    func sameContent(as other: Library) -> Bool {
        var copy = other
        copy.generatedAt = generatedAt
        return copy == self
    }
}
