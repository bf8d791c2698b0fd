import Foundation
import LibraryArchive
import Notes
import ReaderAPI
import SnapshotStore
import Support

extension Crawler {
    /// What the crawl keeps of a book from the list or a shelf: what decides what to ask for, and
    /// where all its fields wait in the spill file.
    struct ListedBook: Sendable {
        var id: Int
        var shelfID: Int?
        var fields: Range<Int>
        /// Its place in the previous snapshot, when it is there with the same `updated_at`.
        var unchanged: Int?
        /// Its details failed in the last runs, and are not asked for this time.
        var detailsWait = false

        init(_ book: BookFields, fields: Range<Int>, previous: LibraryFile? = nil, reusable: [Int: Int] = [:], retry: Crawler.Retry? = nil) {
            id = book.id
            shelfID = book.int("shelf_id")
            self.fields = fields
            if let retry, retry.waitingDetails(of: book.id, updatedAt: book.text("updated_at")) != nil {
                detailsWait = true
            }
            if let place = reusable[book.id], let previous, let date = previous.entries[place].updatedAt, date == book.text("updated_at") {
                unchanged = place
            }
        }

        /// What is kept once the book's date and cover have been acted on: 100,000 of these are
        /// held until the end, their texts are not.
        var kept: KeptBook { KeptBook(shelfID: shelfID, fields: fields) }
    }

    struct KeptBook: Sendable {
        var shelfID: Int?
        var fields: Range<Int>
    }

    /// A shelf's page as the crawl keeps it.
    struct KeptShelf: Sendable {
        var shelf: ShelfSummary
        var ids: [Int]
        var books: [KeptBook]
    }

    struct ListedBooks: Sendable {
        var user: String?
        var books: [ListedBook]
    }

    struct ShelfPage: Sendable {
        var shelf: ShelfSummary
        var books: [ListedBook]
    }

    /// A book's details, with its notes already converted (that work overlaps the network), kept
    /// until the book is made.
    struct Detail: Codable, Sendable {
        var fields: [String: JSONValue]
        var note: Note
    }

    /// Where a book's details wait for their book to be made.
    enum DetailPlace: Sendable {
        /// In the spill file: a big library's details do not fit in memory.
        case spilled(Range<Int>)
        /// In memory, as read: no JSON written and read back (about a twentieth of the crawl's CPU).
        /// Boxed: the map of every book's place then takes 24 bytes a book, not 48 (100,000 books
        /// kept their places in 15 MB, with their details long gone).
        indirect case held(Detail)
        /// The book is made and kept: its details are let go.
        case used
    }

    /// A book's details as read, and its cover's address.
    struct ReadDetail: Sendable {
        var place: DetailPlace
        /// Until the cover is asked for; not kept.
        var imageURL: String?
    }
}
