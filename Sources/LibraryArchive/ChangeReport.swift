import Foundation
import Notes
import Support

/// What changed in the library since the previous snapshot: written as `changes.json`, shown in
/// `changes.html` and in `markdown/index.md`. It describes this snapshot against the one before
/// it, so a run that finds nothing new keeps the report (and every file) as it was.
package struct ChangeReport: Codable, Sendable, Equatable {
    package struct Entry: Codable, Sendable, Equatable {
        package var id: Int
        package var title: String
        /// The shelves the book was on: the timeline names them (nil in reports of older versions).
        package var shelves: [String]?

        package init(id: Int, title: String, shelves: [String]? = nil) {
            self.id = id
            self.title = title
            self.shelves = shelves
        }
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
        /// The title it had, when that changed: a renamed book is known by its old name too.
        package var formerTitle: String?
        /// The shelves the book is on (nil in reports of older versions).
        package var shelves: [String]?
        /// When the note changed: "written" (it had none), "rewritten" or "removed".
        package var note: String?
        /// When the cover changed: "added" (it had none), "changed", "removed", or "enriched" (Open Library's).
        package var cover: String?

        package init(id: Int, title: String, fields: [String], formerTitle: String? = nil, shelves: [String]? = nil,
                     note: String? = nil, cover: String? = nil) {
            self.id = id
            self.title = title
            self.fields = fields
            self.formerTitle = formerTitle
            self.shelves = shelves
            self.note = note
            self.cover = cover
        }

        /// How a cover changed: "enriched" when Open Library's is on either side (the server's book
        /// did not change: the timeline tells no event of it), else as `change` says.
        package static func coverChange(_ old: CoverCard?, _ new: CoverCard?) -> String {
            if old?.fromOpenLibrary == true || new?.fromOpenLibrary == true { return "enriched" }
            return change(had: old != nil, has: new != nil, words: ("added", "changed"))
        }

        /// How a value that changed changed, in its own words: added (it had none), another now, or "removed".
        static func change(had: Bool, has: Bool, words: (added: String, another: String)) -> String {
            had && has ? words.another : has ? words.added : "removed"
        }
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
    /// The reports of the nights before that found changes, newest first (each without its own
    /// `earlier`): the Changes page shows a month, not one night. Absent on a first snapshot, and
    /// when the privacy options changed since (a report made without them may name what they
    /// now leave out).
    package var earlier: [ChangeReport]?

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", firstRun = "first_run", previousGeneratedAt = "previous_generated_at"
        case generatedAt = "generated_at", added, removed, moved, edited, earlier
    }

    package var isEmpty: Bool { added.isEmpty && removed.isEmpty && moved.isEmpty && edited.isEmpty }

    var entryCount: Int { added.count + removed.count + moved.count + edited.count }

    /// Nights kept in `earlier`, and the books they may name in all: a page of a month of ordinary
    /// nights, which a night that changed thousands of books does not make huge.
    package static let earlierNights = 30
    package static let earlierEntries = 5_000

    /// The report a snapshot holds (`changes.json`): nil when it has none, or one this version
    /// cannot read.
    package static func read(in snapshot: URL) -> ChangeReport? {
        // One that cannot be read costs the report of the nights before, never the night.
        guard let data = try? Data(contentsOf: snapshot.appendingPathComponent("changes.json")) else { return nil }
        return try? JSONDecoder().decode(ChangeReport.self, from: data)
    }

    /// Tonight's `earlier`: the last report, then the nights it carried, without first snapshots and
    /// nights without changes, up to the bounds above. Without `itsOwnNight` (the report is of a
    /// night tonight's report tells again), only the nights it carried.
    package static func earlier(carriedFrom last: ChangeReport?, itsOwnNight: Bool = true) -> [ChangeReport]? {
        guard let last else { return nil }
        var nights: [ChangeReport] = []
        var entries = 0
        for var night in (itsOwnNight ? [last] : []) + (last.earlier ?? []) where !night.firstRun && !night.isEmpty {
            guard nights.count < earlierNights, entries + night.entryCount <= earlierEntries else { break }
            night.earlier = nil
            entries += night.entryCount
            nights.append(night)
        }
        return nights.isEmpty ? nil : nights
    }

    package var summary: String {
        if firstRun { return "first snapshot" }
        if isEmpty { return "no changes" }
        return counts
    }

    /// The counts that are not zero, in the changes page's order: "1 added, 2 edited". The run's
    /// summary and the history's commits say them so.
    package var counts: String {
        [(added.count, "added"), (removed.count, "removed"), (moved.count, "moved"), (edited.count, "edited")]
            .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    }

    package static func compare(previous: Library?, current: Library) -> ChangeReport {
        // Both in memory: nothing to read can fail.
        (try? compare(previous: previous.map(LibraryFile.init), current: LibraryFile(current)))
            ?? ChangeReport(firstRun: true, previousGeneratedAt: nil, generatedAt: current.generatedAt)
    }

    /// Book by book, in id order over both libraries at once: the entries say what moved and which
    /// plain fields changed; a book's notes are read only when its JSON differs from last time.
    /// Nothing is held per book but each library's order (a 100,000-book run that compared through
    /// maps of both libraries peaked 25 MB higher).
    package static func compare(previous: LibraryFile?, current: LibraryFile) throws -> ChangeReport {
        guard let previous else {
            return ChangeReport(firstRun: true, previousGeneratedAt: nil, generatedAt: current.frame.generatedAt)
        }
        var report = ChangeReport(firstRun: false, previousGeneratedAt: previous.frame.generatedAt, generatedAt: current.frame.generatedAt)
        var before = Books(previous), after = Books(current)
        while true {
            switch (before.id, after.id) {
            case (nil, nil):
                return report
            case (let old?, let new?) where old == new:
                let (oldPlace, place) = (before.place!, after.place!)
                let from = before.shelfNames(), to = after.shelfNames()
                let book = current.entries[place]
                if from != to { report.moved.append(Move(id: book.id, title: book.title, from: from, to: to)) }
                if try previous.element(at: oldPlace) != current.element(at: place) {
                    let old = previous.entries[oldPlace]
                    var fields: [String] = []
                    if old.title != book.title { fields.append("title") }
                    if old.author != book.author { fields.append("author") }
                    if old.isbn != book.isbn { fields.append("isbn") }
                    // A book whose details could not be read this time (or last time) says nothing of its note.
                    if old.complete && book.complete, try previous.noteSource(at: oldPlace) != current.noteSource(at: place) { fields.append("note") }
                    // A cover's file is named by its hash.
                    if old.cover?.path != book.cover?.path { fields.append("cover") }
                    if !fields.isEmpty {
                        report.edited.append(Edit(
                            id: book.id, title: book.title, fields: fields, formerTitle: old.title != book.title ? old.title : nil, shelves: to,
                            note: fields.contains("note") ? Edit.change(had: old.hasNote, has: book.hasNote, words: ("written", "rewritten")) : nil,
                            cover: fields.contains("cover") ? Edit.coverChange(old.cover, book.cover) : nil))
                    }
                }
                before.next()
                after.next()
            case (let old?, let new) where new == nil || old < new!:
                report.removed.append(Entry(id: old, title: previous.entries[before.place!].title, shelves: before.shelfNames()))
                before.next()
            default:
                let book = current.entries[after.place!]
                report.added.append(Entry(id: book.id, title: book.title, shelves: after.shelfNames()))
                after.next()
            }
        }
    }

    /// A library's books in id order (the first of a repeated id), each with the names of the
    /// shelves that list it.
    private struct Books {
        let library: LibraryFile
        /// Places in id order: a library as this tool writes it is in that order already.
        private let order: [Int]?
        private var position = 0
        /// (book id, shelf) for every shelf's listing of a book, in id order.
        private let listings: [(id: Int, shelf: Int)]
        private var listing = 0

        init(_ library: LibraryFile) {
            self.library = library
            let entries = library.entries
            let sorted = entries.indices.dropFirst().allSatisfy { entries.id(at: $0 - 1) < entries.id(at: $0) }
            order = sorted ? nil : entries.indices.sorted { (entries.id(at: $0), $0) < (entries.id(at: $1), $1) }
            var listings: [(id: Int, shelf: Int)] = []
            for (shelf, entry) in library.frame.shelves.enumerated() {
                for id in entry.bookIDs { listings.append((id, shelf)) }
            }
            self.listings = listings.sorted { ($0.id, $0.shelf) < ($1.id, $1.shelf) }
        }

        var place: Int? {
            guard position < library.count else { return nil }
            return order?[position] ?? position
        }

        var id: Int? { place.map(library.entries.id(at:)) }

        /// On to the next book, past any repeat of this one's id.
        mutating func next() {
            guard let current = id else { return }
            repeat { position += 1 } while id == current
        }

        /// The names of the shelves that list the current book, sorted; ["no shelf"] when none does.
        mutating func shelfNames() -> [String] {
            guard let current = id else { return [] }
            while listing < listings.count, listings[listing].id < current { listing += 1 }
            var names: [String] = []
            while listing < listings.count, listings[listing].id == current {
                names.append(library.frame.shelves[listings[listing].shelf].name)
                listing += 1
            }
            return names.isEmpty ? ["no shelf"] : names.sorted()
        }
    }
}

extension ChangeReport {
    /// A night with no book changed.
    package static func nothing(at generatedAt: String) -> ChangeReport {
        ChangeReport(firstRun: false, previousGeneratedAt: nil, generatedAt: generatedAt)
    }
}
