/// What the user leaves out of a snapshot they share: whole shelves, the notes, the covers.
/// What is left out is absent from every file written, the state folder included.
public struct Privacy: Sendable, Equatable {
    /// Shelf names (any case) or ids.
    public var excludedShelves: [String]
    public var notes: Bool
    public var covers: Bool

    public init(excludedShelves: [String] = [], notes: Bool = true, covers: Bool = true) {
        self.excludedShelves = excludedShelves
        self.notes = notes
        self.covers = covers
    }

    public var isActive: Bool { !excludedShelves.isEmpty || !notes || !covers }

    func excludes(id: Int, name: String) -> Bool {
        excludedShelves.contains { $0 == String(id) || $0.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// The shelves, books and problems that remain, and the names that matched no shelf.
    func apply(shelves: inout [Shelf], books: inout [Book], problems: inout [Problem]) -> [String] {
        let excluded = Set(shelves.filter { excludes(id: $0.id, name: $0.name) }.map(\.id))
        let unmatched = excludedShelves.filter { wanted in
            !shelves.contains { $0.id == Int(wanted) || $0.name.caseInsensitiveCompare(wanted) == .orderedSame }
        }
        var droppedBooks = Set<Int>()
        for shelf in shelves where excluded.contains(shelf.id) { droppedBooks.formUnion(shelf.bookIDs) }
        for book in books where book.shelfID.map(excluded.contains) == true { droppedBooks.insert(book.id) }
        shelves.removeAll { excluded.contains($0.id) }
        for index in shelves.indices { shelves[index].bookIDs.removeAll { droppedBooks.contains($0) } }
        books.removeAll { droppedBooks.contains($0.id) }
        problems.removeAll { problem in
            problem.bookID.map(droppedBooks.contains) == true || problem.shelfID.map(excluded.contains) == true
        }
        for index in books.indices {
            if !notes {
                books[index].note = Note(receiving: nil)
            }
            if !covers {
                books[index].imageURL = nil
                books[index].serverFields["image_url"] = nil
            }
        }
        return unmatched
    }
}
