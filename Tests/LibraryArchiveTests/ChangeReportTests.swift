import Foundation
import TestSupport
import Testing
@testable import LibraryArchive
@testable import Notes
@testable import SnapshotStore

/// What changed between two libraries, walked in id order over both at once.
struct ChangeReportTests {
    static func library(_ books: [Book], shelves: [Shelf]) -> Library {
        Library(generatedAt: "2024-05-06T07:08:09Z", server: "https://reader.example.com", user: "me", userID: 1,
                shelves: shelves, books: books, problems: [])
    }

    @Test func addedRemovedMovedAndEditedInIdOrder() throws {
        let shelves = [Shelf(id: 1, name: "Fiction", bookCount: 3, bookIDs: [1, 2, 3]), Shelf(id: 2, name: "Poetry", bookCount: 1, bookIDs: [5])]
        let before = Self.library([Book(id: 1, title: "One", shelfID: 1), Book(id: 2, title: "Two", shelfID: 1, note: Note(receiving: "<div>a</div>")),
                                   Book(id: 3, title: "Three", shelfID: 1), Book(id: 5, title: "Five", shelfID: 2)], shelves: shelves)
        let now = Self.library([Book(id: 0, title: "Zero", shelfID: 2), Book(id: 1, title: "One", shelfID: 2),
                                Book(id: 2, title: "Two", shelfID: 1, note: Note(receiving: "<div>b</div>")),
                                Book(id: 5, title: "Five!", shelfID: 2), Book(id: 6, title: "Six")],
                               shelves: [Shelf(id: 1, name: "Fiction", bookCount: 1, bookIDs: [2]),
                                         Shelf(id: 2, name: "Poetry", bookCount: 3, bookIDs: [5, 1, 0])])
        let report = try ChangeReport.compare(previous: LibraryFile(before), current: LibraryFile(now))
        #expect(report.added.map(\.id) == [0, 6])
        #expect(report.removed.map(\.id) == [3])
        #expect(report.moved.map(\.id) == [1])
        #expect(report.moved.first?.from == ["Fiction"] && report.moved.first?.to == ["Poetry"])
        #expect(report.edited.map(\.id) == [2, 5], "a move alone is no edit")
        #expect(report.edited.first { $0.id == 2 }?.fields == ["note"])
        #expect(report.edited.first { $0.id == 5 }?.fields == ["title"])
        let unshelved = try ChangeReport.compare(previous: LibraryFile(now), current: LibraryFile(now))
        #expect(unshelved.isEmpty)
    }

    /// A library.json from elsewhere may be out of order or repeat an id: the first of each counts.
    @Test func aPreviousLibraryOutOfOrderIsWalkedInIdOrder() throws {
        let shelves = [Shelf(id: 1, name: "Fiction", bookCount: 2, bookIDs: [1, 2])]
        let now = Self.library([Book(id: 1, title: "One", shelfID: 1), Book(id: 2, title: "Two", shelfID: 1)], shelves: shelves)
        let before = Self.library([Book(id: 4, title: "Four"), Book(id: 2, title: "Two", shelfID: 1), Book(id: 2, title: "Again"),
                                   Book(id: 1, title: "Uno", shelfID: 1)], shelves: shelves)
        let report = try ChangeReport.compare(previous: LibraryFile(before), current: LibraryFile(now))
        #expect(report.removed.map(\.id) == [4])
        #expect(report.added.isEmpty && report.moved.isEmpty)
        #expect(report.edited.map(\.id) == [1])
    }
}
