import Foundation
import TestSupport
import Testing
@testable import Crawl
@testable import LibraryArchive
@testable import Notes
@testable import SnapshotStore
@testable import ReaderAPI
@testable import Support

/// `--exclude-shelf`: one rule for what a value names, whether it excludes or warns.
@Suite struct ShelfExclusionTests {
    static let shelves = [
        Shelf(id: 5, name: "Sci-Fi", bookCount: 2, bookIDs: [1, 2]),
        Shelf(id: 12, name: "2024", bookCount: 1, bookIDs: [3]),
        Shelf(id: 2024, name: "Été", bookCount: 1, bookIDs: [4]),
        Shelf(id: 7, name: "Poetry", bookCount: 1, bookIDs: [5]),
    ]

    static func excluded(_ values: [String]) -> (shelves: Set<Int>, books: Set<Int>, unmatched: [String]) {
        let plan = Privacy(excludedShelves: values).plan(shelves: shelves)
        return (plan.excludedShelves, plan.droppedBooks, plan.unmatched)
    }

    @Test func anIdWithOrWithoutLeadingZerosNamesTheShelf() {
        #expect(Self.excluded(["5"]).shelves == [5])
        #expect(Self.excluded(["05"]).shelves == [5])
        #expect(Self.excluded([" 05 "]).shelves == [5])
        #expect(Self.excluded(["05"]).books == [1, 2])
        #expect(Self.excluded(["05"]).unmatched.isEmpty)
    }

    @Test func aNameInAnyCaseNamesTheShelf() {
        #expect(Self.excluded(["sci-fi"]).shelves == [5])
        #expect(Self.excluded(["SCI-FI"]).shelves == [5])
        #expect(Self.excluded(["été"]).shelves == [2024])
        #expect(Self.excluded(["ÉTÉ"]).shelves == [2024])
    }

    @Test func aNameThatLooksLikeANumberNamesTheShelfOfThatNameAndOfThatId() {
        #expect(Self.excluded(["2024"]).shelves == [12, 2024])
        #expect(Self.excluded(["12"]).shelves == [12])
    }

    @Test func aValueThatNamesNothingExcludesNothingAndIsReported() {
        let result = Self.excluded(["6", "Poems", "5"])
        #expect(result.shelves == [5])
        #expect(result.unmatched == ["6", "Poems"])
    }
}
