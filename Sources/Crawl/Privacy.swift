import Foundation
import LibraryArchive
import Notes
import ReaderAPI
import SnapshotStore
import Support

/// What the user leaves out of a snapshot they share: whole shelves, the notes, the covers.
/// What is left out is absent from every file written, the state folder included.
package struct Privacy: Sendable, Equatable, Encodable {
    /// Shelf names (any case) or ids.
    package var excludedShelves: [String]
    package var notes: Bool
    package var covers: Bool

    package init(excludedShelves: [String] = [], notes: Bool = true, covers: Bool = true) {
        self.excludedShelves = excludedShelves
        self.notes = notes
        self.covers = covers
    }

    package var isActive: Bool { !excludedShelves.isEmpty || !notes || !covers }

    /// The options in one line, kept in the private state: a change report compares tonight's
    /// library with the last one as both look under tonight's options. Empty when none is given.
    package var summary: String {
        var parts = excludedShelves.map { "--exclude-shelf " + $0.lowercased() }.sorted()
        if !notes { parts.append("--no-notes") }
        if !covers { parts.append("--no-covers") }
        return parts.joined(separator: " ")
    }

    /// The one rule for what `--exclude-shelf VALUE` names: the shelf whose id is VALUE as a whole
    /// number ("05" is shelf 5), and any shelf whose name is VALUE in any case. A name that looks
    /// like a number ("2024") names both that shelf and the shelf with that id.
    static func names(_ wanted: String, id: Int, name: String) -> Bool {
        if let number = Int(wanted.trimmingCharacters(in: .whitespaces)), number == id { return true }
        return wanted.caseInsensitiveCompare(name) == .orderedSame
    }

    /// Every `--exclude-shelf` value names a shelf of the library, or the run stops before a book is
    /// asked for: a shelf meant to be left out that a typo leaves in would be shared whole. The
    /// refusal names the closest shelves, so that the fix is one edit away.
    package func check(_ shelves: [ShelfSummary]) throws {
        let unmatched = excludedShelves.filter { wanted in !shelves.contains { Self.names(wanted, id: $0.id, name: $0.name) } }
        guard !unmatched.isEmpty else { return }
        let lines = unmatched.map { wanted in
            func named(_ shelf: ShelfSummary) -> String { "\"\(UntrustedText.displayable(shelf.name))\" (id \(shelf.id))" }
            let closest = Self.closest(to: wanted, among: shelves)
            let hint: String
            if !closest.isEmpty {
                hint = "; the closest: " + closest.map(named).joined(separator: ", ")
            } else if shelves.isEmpty {
                hint = "; the library has no shelf"
            } else {
                // With none near, the library's shelves, so that the right name is in sight.
                let more = shelves.count - Self.shelvesListed
                hint = "; the shelves: " + shelves.prefix(Self.shelvesListed).map(named).joined(separator: ", ") + (more > 0 ? ", and \(more) more" : "")
            }
            return "--exclude-shelf \(UntrustedText.displayable(wanted)): no shelf has that name or id\(hint)"
        }
        throw UsageError(lines.joined(separator: "\n") + "\nNothing was written: a shelf meant to be left out must be named exactly (any case), or by its id.")
    }

    /// How many of the library's shelves a refusal lists when none is near the value.
    static let shelvesListed = 10

    /// The shelves whose names are nearest `wanted`, nearest first: at most three, within a third of
    /// its length of it. None for a number: an id is not misspelt.
    static func closest(to wanted: String, among shelves: [ShelfSummary]) -> [ShelfSummary] {
        guard Int(wanted.trimmingCharacters(in: .whitespaces)) == nil else { return [] }
        let target = nearnessForm(wanted)
        guard !target.isEmpty else { return [] }
        let scored = shelves.map { shelf -> (shelf: ShelfSummary, distance: Int) in
            let name = nearnessForm(shelf.name)
            // A name that holds the value whole ("Favourites ★" for "favourites") is as near as can be.
            let distance = name.count >= target.count && String(name).contains(String(target)) ? name.count - target.count : editDistance(target, name)
            return (shelf, distance)
        }
        return scored.filter { $0.distance <= max(1, target.count / 3) }
            .sorted { ($0.distance, $0.shelf.id) < ($1.distance, $1.shelf.id) }
            .prefix(3).map(\.shelf)
    }

    /// What two names are compared on for nearness: their letters and digits alone, case and
    /// accents folded. Emoji, symbols, punctuation and spaces are left out: "📚 To Read" is near
    /// "To Raed", and "Favourites ★" holds "favourites".
    static func nearnessForm(_ text: String) -> [Character] {
        Array(text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)).filter { $0.isLetter || $0.isNumber }
    }

    func excludes(id: Int, name: String) -> Bool {
        excludedShelves.contains { Self.names($0, id: id, name: name) }
    }

    /// What to leave out of one library, decided from its shelves before its books are written.
    struct Plan {
        var excludedShelves: Set<Int>
        /// Books that an excluded shelf lists.
        var droppedBooks: Set<Int>

        func drops(_ book: Book) -> Bool {
            droppedBooks.contains(book.id) || book.shelfID.map(excludedShelves.contains) == true
        }
    }

    func plan(shelves: [Shelf]) -> Plan {
        let excluded = Set(shelves.filter { excludes(id: $0.id, name: $0.name) }.map(\.id))
        var droppedBooks = Set<Int>()
        for shelf in shelves where excluded.contains(shelf.id) { droppedBooks.formUnion(shelf.bookIDs) }
        // A name that matches no shelf was refused before (`check`): nothing is left to say of it here.
        return Plan(excludedShelves: excluded, droppedBooks: droppedBooks)
    }

    /// The same leaving-out over a library already written (`render --from` a private snapshot for
    /// friends): refused as the crawl refuses a shelf that matches none, and with the covers' files
    /// and what was said of them gone too, since no cover is shown.
    /// Without `checking`, a shelf that matches none is let be: the last snapshot's library, seen
    /// as tonight's options would have written it, may not have tonight's shelves.
    package func apply(to library: inout Library, checking: Bool = true) throws {
        guard isActive else { return }
        if checking { try check(library.shelves.map { ShelfSummary(id: $0.id, name: $0.name) }) }
        let plan = plan(shelves: library.shelves)
        var dropped = Set<Int>()
        library.books = library.books.compactMap { book in
            if plan.drops(book) {
                dropped.insert(book.id)
                return nil
            }
            var book = book
            strip(&book)
            if !covers { book.cover = nil }
            return book
        }
        finish(plan, dropped: dropped, shelves: &library.shelves, problems: &library.problems)
        if !covers { library.problems.removeAll { $0.kind == .cover } }
    }

    /// `apply(to:checking:)` over a library as its file holds it: whole in memory, once. `export`
    /// sees last night's library so, `render --from` the library it makes a copy of.
    package func applied(to file: LibraryFile, checking: Bool = true) throws -> LibraryFile {
        guard isActive else { return file }
        var library = try file.library()
        try apply(to: &library, checking: checking)
        return LibraryFile(library)
    }

    /// A book that stays, without what is left out.
    func strip(_ book: inout Book) {
        if !notes {
            book.note = Note(receiving: nil)
        }
        if !covers {
            book.imageURL = nil
            book.serverFields["image_url"] = nil
        }
    }

    /// The shelves and problems that remain, once the books are known (`dropped`: every book left out).
    func finish(_ plan: Plan, dropped: Set<Int>, shelves: inout [Shelf], problems: inout [Problem]) {
        shelves.removeAll { plan.excludedShelves.contains($0.id) }
        for index in shelves.indices { shelves[index].bookIDs.removeAll { dropped.contains($0) } }
        problems.removeAll { problem in
            problem.bookID.map(dropped.contains) == true || problem.shelfID.map(plan.excludedShelves.contains) == true
        }
    }
}
