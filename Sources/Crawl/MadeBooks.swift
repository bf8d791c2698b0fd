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
        private var cards = CardList()
        /// The few books whose cover could not be fetched, by place.
        private var coverProblems: [Int: CoverProblem] = [:]
        /// Place by book id; -1 for a book privacy leaves out.
        private var places: [Int: Int] = [:]
        /// Each book's cover address, for the next run's private state.
        private(set) var addresses = CoverAddresses()

        init(pieces: SpillFile) {
            self.pieces = pieces
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
            cards.append(made.card)
        }

        /// The cards, the one at each place being the one made at `places[place]`. Consumes the cards.
        mutating func cards(arrangedBy places: [Int]) -> CardList {
            var arranged = cards
            cards = CardList()
            arranged.arrange(places)
            return arranged
        }
    }
}
