import Foundation
@testable import History
import LibraryArchive
import Notes
import TestSupport
import Testing

/// The history read back: git's own log and `library.json` of each commit, from a repository made
/// here with plain git commands (not by the code that records the nights), as a user's could be.
@Suite struct HistoryLogTests {
    static let day = 86_400
    static let first = 1_760_000_000

    let folder: TemporaryFolder
    let gitDirectory: URL
    let workTree: URL

    init() throws {
        folder = try TemporaryFolder()
        gitDirectory = folder.path(".library.history.git")
        workTree = folder.path("library")
        try FileManager.default.createDirectory(at: workTree, withIntermediateDirectories: true)
    }

    static func book(_ id: Int, _ title: String, note: String = "") -> Book {
        Book(id: id, title: title, author: "Herman Melville", isbn: "978014243724\(id)", shelfID: 1,
             note: Note(source: note, format: note.isEmpty ? .none : .plainText, markdown: note))
    }

    /// A night's `library.json`: the books, and the shelves with the books on each.
    func write(_ books: [Book], shelves: [(name: String, ids: [Int])]) throws {
        let library = Library(generatedAt: "2025-10-09T03:00:00Z", shelves: shelves.enumerated().map {
            Shelf(id: $0.offset + 1, name: $0.element.name, bookCount: $0.element.ids.count, bookIDs: $0.element.ids)
        }, books: books, problems: [])
        try library.jsonData().write(to: workTree.appendingPathComponent("library.json"))
    }

    /// Commits the work tree as it is, dated `night` days after the first.
    func commit(night: Int, _ subject: String, _ body: String? = nil) async throws {
        try await HistoryRepositoryTests.git(gitDirectory, ["add", "--all", "."], workTree: workTree)
        try await HistoryRepositoryTests.git(gitDirectory, ["commit", "--quiet", "--allow-empty", "-m", subject] + (body.map { ["-m", $0] } ?? []),
                                             workTree: workTree, date: Self.first + night * Self.day)
    }

    /// Five nights: the first; book 8 retitled; book 7's note changed and it moved; book 7 gone;
    /// a night kept without `library.json`.
    func makeFiveNights() async throws {
        try await HistoryRepositoryTests.git(gitDirectory, ["init", "--quiet", "--initial-branch=main"])
        try write([Self.book(7, "Moby-Dick", note: "Whaling.\n"), Self.book(8, "Typee")], shelves: [("To read", [7, 8]), ("Read", [])])
        try await commit(night: 0, "2025-10-09: first snapshot, 2 books")
        try write([Self.book(7, "Moby-Dick", note: "Whaling.\n"), Self.book(8, "Typee: A Peep")], shelves: [("To read", [7, 8]), ("Read", [])])
        try await commit(night: 1, "2025-10-10: 1 edited", "edited: Typee: A Peep (title, was Typee)")
        try write([Self.book(7, "Moby-Dick", note: "Whaling,\nat length.\n"), Self.book(8, "Typee: A Peep")],
                  shelves: [("To read", [8]), ("Read", [7])])
        try await commit(night: 2, "2025-10-11: 1 moved, 1 edited")
        try write([Self.book(8, "Typee: A Peep")], shelves: [("To read", [8]), ("Read", [])])
        try await commit(night: 3, "2025-10-12: 1 removed", "removed: Moby-Dick")
        try FileManager.default.removeItem(at: workTree.appendingPathComponent("library.json"))
        try Data("# Typee\n".utf8).write(to: workTree.appendingPathComponent("typee.md"))
        try await commit(night: 4, "2025-10-13: the files changed, no book did")
    }

    var log: HistoryLog { HistoryLog(HistoryRepository(gitDirectory: gitDirectory)) }

    @Test func theNightsAreGitsCommitsNewestFirstWithTheirDatesAndWholeMessages() async throws {
        defer { folder.remove() }
        try await makeFiveNights()
        let ids = try await HistoryRepositoryTests.git(gitDirectory, ["rev-list", "refs/heads/main"])
            .split(separator: "\n").map(String.init)
        let nights = try await log.nights()
        #expect(nights.map(\.commit) == ids)
        #expect(nights.map(\.date) == [4, 3, 2, 1, 0].map { Self.first + $0 * Self.day })
        #expect(nights.map(\.message) == ["2025-10-13: the files changed, no book did", "2025-10-12: 1 removed\n\nremoved: Moby-Dick",
                                          "2025-10-11: 1 moved, 1 edited", "2025-10-10: 1 edited\n\nedited: Typee: A Peep (title, was Typee)",
                                          "2025-10-09: first snapshot, 2 books"])
        // From a date on: that day's night and the later ones.
        #expect(try await log.nights(since: Self.first + 2 * Self.day).map(\.date) == [4, 3, 2].map { Self.first + $0 * Self.day })
        #expect(try await log.nights(since: Self.first + 4 * Self.day + 1).isEmpty)
    }

    @Test func aHistoryWithoutCommitsHasNoNightsAndNoLibrary() async throws {
        defer { folder.remove() }
        try await HistoryRepositoryTests.git(gitDirectory, ["init", "--quiet", "--initial-branch=main"])
        #expect(try await log.nights().isEmpty)
        let error = await #expect(throws: HistoryError.self) { try await log.book(7) }
        guard case .noLibrary? = error?.reason else { Issue.record("not noLibrary: \(String(describing: error))"); return }
        #expect(error?.path == HistoryRepository(gitDirectory: gitDirectory).gitDirectory.path)
    }

    @Test func aBooksStoryIsTheNightsItChangedOldestFirstWithItsNotesDiff() async throws {
        defer { folder.remove() }
        try await makeFiveNights()
        let nights = try await log.book(7)
        // Not the night only book 8 changed, nor the night kept without library.json.
        #expect(nights.map(\.night.date) == [0, 2, 3].map { Self.first + $0 * Self.day })
        try #require(nights.count == 3)
        let first = HistoryLog.BookVersion(title: "Moby-Dick", author: "Herman Melville", isbn: "9780142437247",
                                           shelves: ["To read"], note: "Whaling.\n")
        #expect(nights[0].version == first && nights[0].previous == nil && nights[0].noteDiff.isEmpty)
        #expect(nights[0].night.message == "2025-10-09: first snapshot, 2 books")

        var moved = first
        moved.shelves = ["Read"]
        moved.note = "Whaling,\nat length.\n"
        #expect(nights[1].version == moved && nights[1].previous == first)
        // git's hunk, without the file headers.
        #expect(nights[1].noteDiff == "@@ -1 +1,2 @@\n-Whaling.\n+Whaling,\n+at length.", "\(nights[1].noteDiff)")

        #expect(nights[2].version == nil && nights[2].previous == moved && nights[2].noteDiff.isEmpty)
        #expect(nights[2].night.message == "2025-10-12: 1 removed\n\nremoved: Moby-Dick")

        // From a date on: the changes since, each still compared with the night before it.
        let since = try await log.book(7, since: Self.first + 2 * Self.day)
        #expect(since.map(\.night.date) == [2, 3].map { Self.first + $0 * Self.day })
        #expect(since.first?.previous == first)

        let typee = try await log.book(8)
        #expect(typee.map(\.version?.title) == ["Typee", "Typee: A Peep"])
    }

    @Test func aBookInNoNightIsNotFound() async throws {
        defer { folder.remove() }
        try await makeFiveNights()
        let error = await #expect(throws: HistoryError.self) { try await log.book(99) }
        guard case .bookNotFound(let id)? = error?.reason else { Issue.record("not bookNotFound: \(String(describing: error))"); return }
        #expect(id == 99)
    }

    /// Each night's `library.json`, oldest first: a night kept without it is not handed, and a
    /// library kept from an earlier night still reads its books once later nights were read.
    @Test func eachNightsLibraryIsHandedOldestFirstAndStaysReadable() async throws {
        defer { folder.remove() }
        try await makeFiveNights()
        var dates: [Int] = [], titles: [[String]] = [], kept: [LibraryFile] = []
        try await log.eachLibrary { night, library in
            dates.append(night.date)
            titles.append(library.entries.indices.map { library.entries[$0].title })
            kept.append(library)
        }
        #expect(dates == [0, 1, 2, 3].map { Self.first + $0 * Self.day })
        #expect(titles == [["Moby-Dick", "Typee"], ["Moby-Dick", "Typee: A Peep"], ["Moby-Dick", "Typee: A Peep"], ["Typee: A Peep"]])
        #expect(try kept[0].noteMarkdown(at: 0) == "Whaling.\n" && kept[2].noteMarkdown(at: 0) == "Whaling,\nat length.\n")
        // A history with no commit yet hands nothing.
        let empty = folder.path("empty.git")
        try await HistoryRepositoryTests.git(empty, ["init", "--quiet", "--initial-branch=main"])
        var none = 0
        try await HistoryLog(HistoryRepository(gitDirectory: empty)).eachLibrary { _, _ in none += 1 }
        #expect(none == 0)
    }
}
