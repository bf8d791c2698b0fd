import LibraryArchive
import Notes
import ReaderAPI
import SnapshotStore
import Support

/// What the user leaves out of a snapshot they share: whole shelves, the notes, the covers.
/// What is left out is absent from every file written, the state folder included.
package struct Privacy: Sendable, Equatable {
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

    /// The one rule for what `--exclude-shelf VALUE` names: the shelf whose id is VALUE as a whole
    /// number ("05" is shelf 5), and any shelf whose name is VALUE in any case. A name that looks
    /// like a number ("2024") names both that shelf and the shelf with that id.
    static func names(_ wanted: String, id: Int, name: String) -> Bool {
        if let number = Int(wanted.trimmingCharacters(in: .whitespaces)), number == id { return true }
        return wanted.caseInsensitiveCompare(name) == .orderedSame
    }

    func excludes(id: Int, name: String) -> Bool {
        excludedShelves.contains { Self.names($0, id: id, name: name) }
    }

    /// What to leave out of one library, decided from its shelves before its books are written.
    struct Plan {
        var excludedShelves: Set<Int>
        /// Books that an excluded shelf lists.
        var droppedBooks: Set<Int>
        /// Names that matched no shelf.
        var unmatched: [String]

        func drops(_ book: Book) -> Bool {
            droppedBooks.contains(book.id) || book.shelfID.map(excludedShelves.contains) == true
        }
    }

    func plan(shelves: [Shelf]) -> Plan {
        let excluded = Set(shelves.filter { excludes(id: $0.id, name: $0.name) }.map(\.id))
        let unmatched = excludedShelves.filter { wanted in !shelves.contains { Self.names(wanted, id: $0.id, name: $0.name) } }
        var droppedBooks = Set<Int>()
        for shelf in shelves where excluded.contains(shelf.id) { droppedBooks.formUnion(shelf.bookIDs) }
        return Plan(excludedShelves: excluded, droppedBooks: droppedBooks, unmatched: unmatched)
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
