import Foundation
import TestSupport
import Testing
@testable import Crawl
@testable import LibraryArchive
@testable import Notes
@testable import SnapshotStore
@testable import ReaderAPI
@testable import Support

/// `--exclude-shelf`: one rule for what a value names, whether it excludes or is refused.
@Suite struct ShelfExclusionTests {
    static let shelves = [
        Shelf(id: 5, name: "Sci-Fi", bookCount: 2, bookIDs: [1, 2]),
        Shelf(id: 12, name: "2024", bookCount: 1, bookIDs: [3]),
        Shelf(id: 2024, name: "Été", bookCount: 1, bookIDs: [4]),
        Shelf(id: 7, name: "Poetry", bookCount: 1, bookIDs: [5]),
    ]

    static func excluded(_ values: [String]) -> (shelves: Set<Int>, books: Set<Int>) {
        let plan = Privacy(excludedShelves: values).plan(shelves: shelves)
        return (plan.excludedShelves, plan.droppedBooks)
    }

    /// What `check` refuses, in its words; nil when every value names a shelf.
    static func refused(_ values: [String]) -> String? {
        do {
            try Privacy(excludedShelves: values).check(shelves.map { ShelfSummary(id: $0.id, name: $0.name) })
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func anIdWithOrWithoutLeadingZerosNamesTheShelf() {
        #expect(Self.excluded(["5"]).shelves == [5])
        #expect(Self.excluded(["05"]).shelves == [5])
        #expect(Self.excluded([" 05 "]).shelves == [5])
        #expect(Self.excluded(["05"]).books == [1, 2])
        #expect(Self.refused(["05"]) == nil)
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

    @Test func aValueThatNamesNothingIsRefusedWithTheClosestNames() throws {
        let refused = try #require(Self.refused(["6", "Poems", "5", "sci fi"]))
        // With none near, the library's shelves are listed.
        #expect(refused.contains("--exclude-shelf 6: no shelf has that name or id; the shelves: \""), "\(refused)")
        #expect(refused.contains("--exclude-shelf Poems: no shelf has that name or id; the shelves: \""), "\(refused)")
        #expect(refused.contains(#""Sci-Fi" (id 5)"#) && refused.hasSuffix("Nothing was written: a shelf meant to be left out must be named exactly (any case), or by its id."), "\(refused)")
        #expect(refused.contains(#"--exclude-shelf sci fi: no shelf has that name or id; the closest: "Sci-Fi" (id 5)"#), "\(refused)")
        #expect(!refused.contains("--exclude-shelf 5"), "\(refused)")
    }

    /// Nearness is told on letters and digits alone: a shelf whose name begins or ends with emoji
    /// or symbols is as near a misspelt value as one without them.
    @Test func emojiAndSymbolsAroundANameDoNotKeepItFromBeingTheClosest() throws {
        let shelves = [ShelfSummary(id: 1, name: "📚 To Read"), ShelfSummary(id: 2, name: "Cookbooks"),
                       ShelfSummary(id: 3, name: "★ Favourites ★"), ShelfSummary(id: 4, name: "Currently Reading 📖"),
                       ShelfSummary(id: 5, name: "🤷‍♂️")]
        #expect(Privacy.closest(to: "To Raed", among: shelves).map(\.id) == [1])
        #expect(Privacy.closest(to: "to read", among: shelves).map(\.id) == [1])
        #expect(Privacy.closest(to: "Cookbok", among: shelves).map(\.id) == [2])
        #expect(Privacy.closest(to: "favorites", among: shelves).map(\.id) == [3])
        #expect(Privacy.closest(to: "Curently Reading", among: shelves).map(\.id) == [4])
        // A value of no letter or digit is near nothing, not near every name.
        #expect(Privacy.closest(to: "📚", among: shelves).isEmpty)
        let refused = "\(try #require(throws: (any Error).self) { try Privacy(excludedShelves: ["To Raed"]).check(shelves) })"
        #expect(refused.contains(#"--exclude-shelf To Raed: no shelf has that name or id; the closest: "📚 To Read" (id 1)"#), "\(refused)")
    }

    @Test func aLibraryOfManyShelvesIsListedInPart() throws {
        let many = (1...14).map { ShelfSummary(id: $0, name: "Shelf \($0)") }
        let refused = "\(try #require(throws: (any Error).self) { try Privacy(excludedShelves: ["Privat"]).check(many) })"
        #expect(refused.contains(#"the shelves: "Shelf 1" (id 1), "Shelf 2" (id 2)"#) && refused.contains(#""Shelf 10" (id 10), and 4 more"#), "\(refused)")
        #expect(!refused.contains("Shelf 11"))
        let none = "\(try #require(throws: (any Error).self) { try Privacy(excludedShelves: ["Privat"]).check([]) })"
        #expect(none.contains("--exclude-shelf Privat: no shelf has that name or id; the library has no shelf"), "\(none)")
    }
}
