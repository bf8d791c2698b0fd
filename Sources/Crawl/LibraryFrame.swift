import Foundation
import LibraryArchive
import ReaderAPI
import Support

extension Crawler {
    /// What is known of the whole library once the list and every shelf are in: from then on, a
    /// book whose details and cover are in can be made while the other requests go on.
    struct Frame {
        var shelves: [Shelf]
        var problems: [Problem]
        /// Every book, by id.
        var order: [Int]
        /// Each book's fields from the first shelf that lists it.
        var onShelves: [Int: KeptBook]
        var plan: Privacy.Plan?
        /// Shelf names as they are now: a renamed shelf does not touch its books' dates.
        var shelfNames: [Int: String]
        /// What the log should say of the shelves: a page that failed, a name that matched none.
        var warnings: [String]
    }

    /// The frame from the shelves' pages and the list of books (`listing`, in the server's order).
    /// A shelf whose page failed holds the books the list puts on it (`shelfOfListed`).
    static func frame(summaries: [ShelfSummary], pages: [Int: Swift.Result<KeptShelf, ReaderAPIError>], listing: [Int],
                      shelfOfListed: (Int) -> Int?, privacy: Privacy) -> Frame {
        var problems: [Problem] = []
        var warnings: [String] = []
        var order = listing
        var onShelves: [Int: KeptBook] = [:]
        var shelves: [Shelf] = []
        var shelfNames: [Int: String] = [:]
        // The list's books by shelf, for the shelves whose page was not read.
        let pagesRead = summaries.allSatisfy { if case .success = pages[$0.id] { true } else { false } }
        let listedOnShelf = pagesRead ? [:] : Dictionary(grouping: order, by: { shelfOfListed($0) ?? -1 })
        for summary in summaries {
            switch pages[summary.id] {
            case nil:
                // The list of books said where each of this shelf's books is: its page was not needed.
                shelves.append(Shelf(id: summary.id, name: UntrustedText.displayable(summary.name), bookCount: summary.bookCount,
                                     bookIDs: listedOnShelf[summary.id] ?? []))
                shelfNames[summary.id] = summary.name
            case .success(let answer):
                for (id, book) in zip(answer.ids, answer.books) where onShelves[id] == nil { onShelves[id] = book }
                shelves.append(Shelf(id: summary.id, name: UntrustedText.displayable(answer.shelf.name.isEmpty ? summary.name : answer.shelf.name),
                                     bookCount: summary.bookCount ?? answer.shelf.bookCount,
                                     bookIDs: answer.ids))
            case .failure(let error):
                warnings.append("Shelf \(summary.id): \(error)")
                problems.append(Problem(kind: .shelfDetails, shelfID: summary.id, message: error.description))
                let ids = listedOnShelf[summary.id] ?? []
                shelves.append(Shelf(id: summary.id, name: UntrustedText.displayable(summary.name), bookCount: summary.bookCount, bookIDs: ids, complete: false))
            }
        }
        // A book a shelf lists but /books does not is still the user's book.
        var known = Set<Int>()
        order = order.filter { known.insert($0).inserted }
        for shelf in shelves {
            for id in shelf.bookIDs where known.insert(id).inserted { order.append(id) }
        }
        // The server promises no order: the snapshot uses the ids', so that runs compare byte for byte.
        order.sort()
        shelves.sort { $0.id < $1.id }
        for index in shelves.indices { shelves[index].bookIDs.sort() }
        for page in pages.values { if case .success(let answer) = page { shelfNames[answer.shelf.id] = answer.shelf.name } }

        // What privacy leaves out is known from the shelves, before any book is written.
        let plan = privacy.isActive ? privacy.plan(shelves: shelves) : nil
        return Frame(shelves: shelves, problems: problems, order: order, onShelves: onShelves, plan: plan,
                     shelfNames: shelfNames, warnings: warnings)
    }
}
