import Foundation
import TestSupport
import Testing
@testable import Crawl
@testable import LibraryArchive
@testable import Support

/// The crawl's books as they are made: their cards in the order the library shows them, shared
/// with the previous snapshot's where a book was copied from it as it was.
@Suite struct MadeBooksTests {
    static func card(_ id: Int, title: String? = nil, updatedAt: String? = nil) -> BookEntry {
        BookEntry(id: id, title: title ?? "Book \(id)", author: "Author \(id)", isbn: nil, shelfID: 1, shelfName: "Fiction",
                 createdAt: "2024-01-0\(id)T00:00:00Z", updatedAt: updatedAt, imageURL: nil, cover: nil, hasNote: id % 2 == 0, complete: true)
    }

    /// The previous snapshot's cards, as read from `library.json`: with their dates.
    static let previous = EntryList((1...6).map { card($0, updatedAt: "2024-02-0\($0)T00:00:00Z") })

    /// A book made tonight, copied from the previous snapshot's `place` or not.
    static func made(_ card: BookEntry, copiedFrom place: Int? = nil) -> Crawler.Assembly.Made {
        Crawler.Assembly.Made(bookEntry: card, entry: Data("{\"id\":\(card.id)},\n".utf8), details: .reused,
                              copied: place != nil, previousPlace: place)
    }

    @Test func copiedBooksShareThePreviousCardsAndTheOthersArePackedAfterThem() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var books = Crawler.MadeBooks(pieces: try SpillFile(in: folder.url), previousEntries: Self.previous)
        // Made in the order answers came: book 5 edited, book 7 new, the others as they were.
        try books.add(Self.made(Self.card(5, title: "Book 5, renamed")), id: 5, coverProblem: nil)
        for id in [3, 1, 2, 4, 6] { try books.add(Self.made(Self.card(id), copiedFrom: id - 1), id: id, coverProblem: nil) }
        try books.add(Self.made(Self.card(7)), id: 7, coverProblem: nil)
        #expect(books.sharedEntries == 5)
        // In id order: each place names the book made at that turn.
        let cards = books.entries(arrangedBy: [2, 3, 1, 4, 0, 5, 6])
        #expect(cards.map(\.id) == [1, 2, 3, 4, 5, 6, 7])
        #expect(cards[4].title == "Book 5, renamed")
        #expect(cards.map(\.title) == ["Book 1", "Book 2", "Book 3", "Book 4", "Book 5, renamed", "Book 6", "Book 7"])
        #expect(cards.storedCount == Self.previous.storedCount + 2, "only the edited and the new book packed")
    }

    @Test func aCardThatDiffersIsNotSharedEvenWhenTheBookWasCopied() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var books = Crawler.MadeBooks(pieces: try SpillFile(in: folder.url), previousEntries: Self.previous)
        for id in 1...5 { try books.add(Self.made(Self.card(id), copiedFrom: id - 1), id: id, coverProblem: nil) }
        // Its cover (or its shelf's name) changed although the bytes were copied: tonight's card stands.
        var changed = Self.card(6)
        changed.shelfName = "Poetry"
        try books.add(Self.made(changed, copiedFrom: 5), id: 6, coverProblem: nil)
        #expect(books.sharedEntries == 5)
        let cards = books.entries(arrangedBy: Array(0..<6))
        #expect(cards[5].shelfName == "Poetry")
    }

    @Test func aMostlyChangedLibraryHasItsCardsPackedAnew() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var books = Crawler.MadeBooks(pieces: try SpillFile(in: folder.url), previousEntries: Self.previous)
        try books.add(Self.made(Self.card(1), copiedFrom: 0), id: 1, coverProblem: nil)
        for id in 2...6 { try books.add(Self.made(Self.card(id, title: "New \(id)")), id: id, coverProblem: nil) }
        let cards = books.entries(arrangedBy: Array(0..<6))
        #expect(cards.map(\.title) == ["Book 1", "New 2", "New 3", "New 4", "New 5", "New 6"])
        #expect(cards.storedCount == 6, "the previous snapshot's cards are not kept")
    }

    @Test func withoutAPreviousSnapshotEveryCardIsPacked() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var books = Crawler.MadeBooks(pieces: try SpillFile(in: folder.url))
        for id in [2, 1, 3] { try books.add(Self.made(Self.card(id)), id: id, coverProblem: nil) }
        let cards = books.entries(arrangedBy: [1, 0, 2])
        #expect(cards.map(\.id) == [1, 2, 3])
        #expect(cards.storedCount == 3)
    }
}
