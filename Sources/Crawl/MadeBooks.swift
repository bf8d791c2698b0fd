import Foundation
import LibraryArchive
import Notes
import ReaderAPI
import SnapshotStore
import Support

extension Crawler {
    /// The books made so far, in the order they were made (most while requests were in flight,
    /// the rest at the end): each one's bytes in `pieces` and its card, put in id order once, at
    /// the end, without a second copy of the cards.
    struct MadeBooks {
        /// What the summary says of a book made.
        struct Entry {
            var entry: Range<Int>
            /// Its place among the cards, in the order made.
            var place: Int
            /// Whether its details were read in this run (not taken from the last snapshot).
            var read: Bool
            var coverProblem: CoverProblem?
        }

        private struct Kept {
            var entry: Range<Int>
            var read: Bool
        }

        let pieces: SpillFile
        private var kept: [Kept] = []
        /// Tonight's cards, after the previous snapshot's when there is one: a book copied as it
        /// was shares its card there rather than packing the same text again (a quiet night of
        /// 100,000 books held two lists of 28 MB).
        private var cards: CardList
        /// The previous snapshot's cards, whose places a copied book names.
        private let previousCards: CardList?
        /// Where each book made lies in `cards`, in the order made.
        private var storedAt: [Int32] = []
        /// Books whose card is the previous snapshot's.
        private(set) var sharedCards = 0
        /// The few books whose cover could not be fetched, by place.
        private var coverProblems: [Int: CoverProblem] = [:]
        /// Place by book id; -1 for a book privacy leaves out.
        private var places: [Int: Int] = [:]
        /// Each book's cover address, for the next run's private state.
        private(set) var addresses = CoverAddresses()

        init(pieces: SpillFile, previousCards: CardList? = nil) {
            self.pieces = pieces
            self.previousCards = previousCards
            cards = previousCards?.stored ?? CardList()
        }

        /// Room for the books the list names, before the first is made: grown by doubling, a
        /// first export's cards took up to twice their size through the render (16 MB of 8 at
        /// 100,000 books), and three times while they grew.
        mutating func expect(_ books: Int) {
            kept.reserveCapacity(books)
            storedAt.reserveCapacity(books)
            places.reserveCapacity(books)
            // A night's cards are the last snapshot's, copied with room to spare at its first new card.
            if previousCards == nil { cards.reserveCapacity(books) }
        }

        var count: Int { kept.count }
        /// Books whose bytes were copied from the last snapshot as they were.
        private(set) var copied = 0

        /// Whether the book is made, or known to be left out.
        func isSettled(_ id: Int) -> Bool { places[id] != nil }

        /// The book, once made; nil when it is not, or privacy leaves it out.
        subscript(id: Int) -> Entry? {
            guard let place = places[id], place >= 0 else { return nil }
            return Entry(entry: kept[place].entry, place: place, read: kept[place].read, coverProblem: coverProblems[place])
        }

        mutating func leaveOut(_ id: Int) {
            places[id] = -1
        }

        mutating func add(_ made: Assembly.Made, id: Int, coverProblem: CoverProblem?) throws {
            var read = false
            if case .read = made.details { read = true }
            if made.copied { copied += 1 }
            if let address = made.imageURL { addresses.add(address, for: id) }
            places[id] = kept.count
            if let coverProblem { coverProblems[kept.count] = coverProblem }
            kept.append(Kept(entry: try pieces.append(made.entry), read: read))
            if let place = made.previousPlace, let previousCards, Self.isSame(previousCards[place], made.card) {
                storedAt.append(Int32(previousCards.storedIndex(of: place)))
                sharedCards += 1
            } else {
                // The previous snapshot's arrays are copied once, with room for a night's changes.
                if previousCards != nil && cards.storedCount == previousCards?.storedCount {
                    cards.reserveCapacity(cards.storedCount + 1024)
                }
                cards.append(made.card)
                storedAt.append(Int32(cards.storedCount - 1))
            }
        }

        /// Whether a card of the previous snapshot shows what `made` shows. Tonight's cards leave
        /// out the book's date and cover address (the next run reads them from `library.json`);
        /// the previous snapshot's keep them, and nothing shown reads them.
        private static func isSame(_ previous: BookEntry, _ made: BookEntry) -> Bool {
            var previous = previous
            previous.updatedAt = made.updatedAt
            previous.imageURL = made.imageURL
            return previous == made
        }

        /// The cards, the one at each place being the one made at `places[place]`. Consumes the cards.
        mutating func cards(arrangedBy places: [Int]) -> CardList {
            var arranged = cards
            let storedAt = self.storedAt
            cards = CardList()
            self.storedAt = []
            // Most of the previous snapshot's cards not used tonight (a library mostly changed)
            // would be kept for the rest of the run for nothing: the cards are packed anew.
            if let previousCards, sharedCards < previousCards.storedCount / 2 {
                return CardList(places.lazy.map { arranged[Int(storedAt[$0])] })
            }
            arranged.arrange(places.map { Int(storedAt[$0]) })
            return arranged
        }
    }
}
