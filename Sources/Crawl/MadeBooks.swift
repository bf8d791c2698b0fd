import Covers
import Foundation
import LibraryArchive
import Notes
import ReaderAPI
import SnapshotStore
import Support

extension Crawler {
    /// The books made so far, in the order they were made (most while requests were in flight,
    /// the rest at the end): each one's bytes in `pieces` and its entry, put in id order once, at
    /// the end, without a second copy of the entries.
    struct MadeBooks {
        /// What the summary says of a book made.
        struct Entry {
            var entry: Range<Int>
            /// Its place among the entries, in the order made.
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
        /// Tonight's entries, after the previous snapshot's when there is one: a book copied as it
        /// was shares its entry there rather than packing the same text again (a quiet night of
        /// 100,000 books held two lists of 28 MB).
        private var entries: EntryList
        /// The previous snapshot's entries, whose places a copied book names.
        private let previousEntries: EntryList?
        /// Where each book made lies in `entries`, in the order made.
        private var storedAt: [Int32] = []
        /// Books whose entry is the previous snapshot's.
        private(set) var sharedEntries = 0
        /// The few books whose cover could not be fetched, by place.
        private var coverProblems: [Int: CoverProblem] = [:]
        /// The addresses of those covers, each once: two books may share a cover, and the run
        /// counts covers, not books, wherever it says how many failed.
        private(set) var coversNotFetched = Set<String>()
        /// Place by book id; -1 for a book privacy leaves out.
        private var places: [Int: Int] = [:]
        /// Each book's cover address, for the next run's private state.
        private(set) var addresses = CoverAddresses()

        init(pieces: SpillFile, previousEntries: EntryList? = nil) {
            self.pieces = pieces
            self.previousEntries = previousEntries
            entries = previousEntries?.stored ?? EntryList()
        }

        /// Room for the books the list names, before the first is made: grown by doubling, a
        /// first export's entries took up to twice their size through the render (16 MB of 8 at
        /// 100,000 books), and three times while they grew.
        mutating func expect(_ books: Int) {
            kept.reserveCapacity(books)
            storedAt.reserveCapacity(books)
            places.reserveCapacity(books)
            // A night's entries are the last snapshot's, copied with room to spare at its first new entry.
            if previousEntries == nil { entries.reserveCapacity(books) }
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
            if let coverProblem {
                coverProblems[kept.count] = coverProblem
                if let address = made.coverMissing { coversNotFetched.insert(address) }
            }
            kept.append(Kept(entry: try pieces.append(made.entry), read: read))
            if let place = made.previousPlace, let previousEntries, Self.isSame(previousEntries[place], made.bookEntry) {
                storedAt.append(Int32(previousEntries.storedIndex(of: place)))
                sharedEntries += 1
            } else {
                // The previous snapshot's arrays are copied once, with room for a night's changes.
                if previousEntries != nil && entries.storedCount == previousEntries?.storedCount {
                    entries.reserveCapacity(entries.storedCount + 1024)
                }
                entries.append(made.bookEntry)
                storedAt.append(Int32(entries.storedCount - 1))
            }
        }

        /// Whether an entry of the previous snapshot shows what `made` shows. Tonight's entries leave
        /// out the book's date and cover address (the next run reads them from `library.json`);
        /// the previous snapshot's keep them, and nothing shown reads them.
        private static func isSame(_ previous: BookEntry, _ made: BookEntry) -> Bool {
            var previous = previous
            previous.updatedAt = made.updatedAt
            previous.imageURL = made.imageURL
            return previous == made
        }

        /// The entries, the one at each place being the one made at `places[place]`. Consumes the entries.
        mutating func entries(arrangedBy places: [Int]) -> EntryList {
            var arranged = entries
            let storedAt = self.storedAt
            entries = EntryList()
            self.storedAt = []
            // Most of the previous snapshot's entries not used tonight (a library mostly changed)
            // would be kept for the rest of the run for nothing: the entries are packed anew.
            if let previousEntries, sharedEntries < previousEntries.storedCount / 2 {
                return EntryList(places.lazy.map { arranged[Int(storedAt[$0])] })
            }
            arranged.arrange(places.map { Int(storedAt[$0]) })
            return arranged
        }
    }
}
