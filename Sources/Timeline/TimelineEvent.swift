import LibraryArchive

/// One thing that happened to a book, dated by the night a snapshot saw it: what the server never
/// records (a move from one shelf to another, a note written or rewritten, a title corrected). A
/// book's arrival is dated by the day the server says it was added.
package struct TimelineEvent: Codable, Sendable, Equatable {
    package enum Kind: String, Codable, Sendable, CaseIterable {
        case added
        case moved
        case renamed
        case authorChanged = "author_changed"
        case isbnChanged = "isbn_changed"
        case noteWritten = "note_written"
        case noteRewritten = "note_rewritten"
        case noteRemoved = "note_removed"
        case coverAdded = "cover_added"
        case coverChanged = "cover_changed"
        case coverRemoved = "cover_removed"
        case removed

        /// What `--no-notes` leaves out: that a note was written says there is one.
        package var isNote: Bool { self == .noteWritten || self == .noteRewritten || self == .noteRemoved }

        /// What `--no-covers` leaves out.
        package var isCover: Bool { self == .coverAdded || self == .coverChanged || self == .coverRemoved }

        /// The order of a night's events for one book: how a story reads.
        var order: Int { Self.allCases.firstIndex(of: self)! }
    }

    /// The night's date (`2026-11-29`), or the day the server says the book was added.
    package var date: String
    package var book: Int
    package var kind: Kind
    /// The book's title that night.
    package var title: String
    /// The shelves the book was on that night: for a move, the ones it left.
    package var shelves: [String]
    /// The shelves a move took the book to.
    package var to: [String]?
    /// The title a renamed book had before.
    package var formerTitle: String?

    enum CodingKeys: String, CodingKey {
        case date, book, kind, title, shelves, to, formerTitle = "former_title"
    }

    package init(date: String, book: Int, kind: Kind, title: String, shelves: [String], to: [String]? = nil, formerTitle: String? = nil) {
        self.date = date
        self.book = book
        self.kind = kind
        self.title = title
        self.shelves = shelves
        self.to = to
        self.formerTitle = formerTitle
    }

    /// The event without its date: the same thing told on another night.
    var withoutDate: TimelineEvent {
        var event = self
        event.date = ""
        return event
    }

    /// Every shelf the event names.
    package var shelvesNamed: [String] { shelves + (to ?? []) }

    /// The timeline's order: by date, then book, then how a story reads.
    static func precedes(_ a: TimelineEvent, _ b: TimelineEvent) -> Bool {
        (a.date, a.book, a.kind.order) < (b.date, b.book, b.kind.order)
    }
}
