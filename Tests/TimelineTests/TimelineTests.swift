import Foundation
import LibraryArchive
import Notes
import TestSupport
import Testing
@testable import Timeline

/// The timeline over simulated nights: each night's library compared with the last, as the export
/// does, and the events read back from what the night's timeline holds.
@Suite struct TimelineTests {
    static let toRead = Shelf(id: 1, name: "To Read", bookCount: nil, bookIDs: [])
    static let reading = Shelf(id: 2, name: "Reading", bookCount: nil, bookIDs: [])
    static let read = Shelf(id: 3, name: "Read", bookCount: nil, bookIDs: [])

    /// A night's library: its books, each on the shelf named beside it.
    static func night(_ date: String, _ books: [(Book, Shelf?)]) -> LibraryFile {
        var shelves = [toRead, reading, read]
        for (book, shelf) in books {
            if let shelf, let index = shelves.firstIndex(where: { $0.id == shelf.id }) { shelves[index].bookIDs.append(book.id) }
        }
        let library = Library(generatedAt: "\(date)T03:15:00Z", shelves: shelves,
                              books: books.map { book, shelf in var book = book; book.shelfID = shelf?.id; return book }, problems: [])
        return LibraryFile(library)
    }

    static func note(_ text: String) -> Note { Note(receiving: "<div>\(text)</div>") }

    /// Each night's timeline from the last one and the night's report, as the export makes it.
    static func nights(_ libraries: [LibraryFile]) throws -> Timeline {
        var timeline: Timeline?
        var previous: LibraryFile?
        for library in libraries {
            let report = try ChangeReport.compare(previous: previous, current: library)
            timeline = Timeline.tonight(last: timeline, report: report, library: library)
            previous = library
        }
        return try #require(timeline)
    }

    @Test func eachNightsMovesNotesRenamesAndRemovalsAreDatedByTheirNight() throws {
        let dune = Book(id: 7, title: "Dune", createdAt: "2023-07-17T10:00:00.000Z")
        let emma = Book(id: 9, title: "Emma", createdAt: "2024-02-01T08:00:00Z")
        var nights = [Self.night("2026-11-01", [(dune, Self.toRead), (emma, Self.read)])]
        nights.append(Self.night("2026-11-02", [(dune, Self.reading), (emma, Self.read)]))
        var written = dune
        written.note = Self.note("Spice.")
        nights.append(Self.night("2026-11-03", [(written, Self.reading), (emma, Self.read)]))
        var rewritten = written
        rewritten.note = Self.note("Spice, and water.")
        rewritten.title = "Dune (1965)"
        let added = Book(id: 12, title: "Ulysses", createdAt: "2026-11-04T01:00:00Z")
        nights.append(Self.night("2026-11-05", [(rewritten, Self.read), (added, nil)]))
        let timeline = try Self.nights(nights)

        #expect(timeline.began == "2026-11-01")
        func events(_ book: Int) -> [String] { timeline.events.filter { $0.book == book }.map { "\($0.date) \($0.kind.rawValue)" } }
        #expect(events(7) == ["2023-07-17 added", "2026-11-02 moved", "2026-11-03 note_written", "2026-11-05 moved",
                              "2026-11-05 renamed", "2026-11-05 note_rewritten"])
        #expect(events(9) == ["2024-02-01 added", "2026-11-05 removed"])
        // Added on the server the day before the night that saw it: dated by the server.
        #expect(events(12) == ["2026-11-04 added"])
        let moves = timeline.events.filter { $0.kind == .moved }
        #expect(moves.map(\.shelves) == [["To Read"], ["Reading"]] && moves.map(\.to) == [["Reading"], ["Read"]])
        #expect(timeline.events.first { $0.kind == .renamed }?.formerTitle == "Dune")
        #expect(timeline.events.first { $0.kind == .removed }?.shelves == ["Read"])
        #expect(timeline.events.first { $0.book == 12 }?.shelves == ["no shelf"])
        // In the timeline's order: by date.
        #expect(timeline.events.map(\.date) == timeline.events.map(\.date).sorted())
    }

    @Test func aNightWithNothingChangedAddsNothing() throws {
        let dune = Book(id: 7, title: "Dune", createdAt: "2023-07-17T10:00:00Z")
        let first = try Self.nights([Self.night("2026-11-01", [(dune, Self.toRead)])])
        let again = try Self.nights([Self.night("2026-11-01", [(dune, Self.toRead)]), Self.night("2026-11-02", [(dune, Self.toRead)])])
        // Left as it was, `through` too: a quiet night rewrites nothing of it.
        #expect(again == first)
    }

    /// A run killed between its swap and the keeping of its state: the snapshot in place (and its
    /// timeline) is a night ahead of the library the next night compares with. What that night told
    /// is not told again, dated by the next.
    @Test func aNightToldBeforeItsStateWasKeptIsNotToldAgain() throws {
        let dune = Book(id: 7, title: "Dune", createdAt: "2023-07-17T10:00:00Z")
        let first = Self.night("2026-11-01", [(dune, Self.toRead)])
        let second = Self.night("2026-11-02", [(dune, Self.reading)])
        var third = Self.night("2026-11-03", [(dune, Self.reading)])
        third.frame.shelves[1].name = "Reading now"
        let ahead = try Self.nights([first, second])
        // The state still holds the first night's library: tonight compares with it.
        let report = try ChangeReport.compare(previous: first, current: third)
        let tonight = Timeline.tonight(last: ahead, report: report, library: third)
        #expect(tonight.events.filter { $0.kind == .moved }.map { "\($0.date) \($0.to ?? [])" }
                == ["2026-11-02 [\"Reading\"]", "2026-11-03 [\"Reading now\"]"])
        // Told again as it was, the same move is not added a second time.
        let again = Timeline.tonight(last: ahead, report: try ChangeReport.compare(previous: first, current: second), library: second)
        #expect(again.events.filter { $0.kind == .moved }.count == 1)
    }

    /// Open Library's cover coming or going is no event: the server's book did not change.
    @Test func aCoverFromOpenLibraryIsNoEvent() {
        let edit = { (cover: String) in ChangeReport.Edit(id: 1, title: "A", fields: ["cover", "title"], formerTitle: "B", cover: cover) }
        #expect(Timeline.kinds(of: edit("enriched")) == [.renamed])
        #expect(Timeline.kinds(of: edit("added")) == [.coverAdded, .renamed])
        #expect(ChangeReport.Edit.coverChange(nil, CoverCard(path: "covers/a.jpg", width: nil, height: nil, fromOpenLibrary: true)) == "enriched")
        #expect(ChangeReport.Edit.coverChange(nil, CoverCard(path: "covers/a.jpg", width: nil, height: nil)) == "added")
    }

    /// A server date that is not a date, or is after the night, tells nothing: the night dates it.
    @Test func anArrivalIsDatedByTheServerOnlyWhenItsDateIsADayNoLaterThanTheNight() throws {
        let books = [Book(id: 1, title: "A", createdAt: "yesterday"), Book(id: 2, title: "B", createdAt: "2099-01-01T00:00:00Z"),
                     Book(id: 3, title: "C", createdAt: nil), Book(id: 4, title: "D", createdAt: "2020-0a-01")]
        let timeline = try Self.nights([Self.night("2026-11-01", books.map { ($0, Self.toRead) })])
        #expect(timeline.events.map(\.date) == Array(repeating: "2026-11-01", count: 4))
    }

    @Test func itReadsBackAsWrittenAndRefusesWhatIsNotATimeline() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var dune = Book(id: 7, title: "Dune \"quoted\" / slashed", createdAt: "2023-07-17T10:00:00Z")
        let first = Self.night("2026-11-01", [(dune, Self.toRead)])
        dune.note = Self.note("Spice.")
        let timeline = try Self.nights([first, Self.night("2026-11-02", [(dune, Self.read)])])
        let file = folder.url.appendingPathComponent(Timeline.fileName)
        try timeline.encoded().write(to: file)
        #expect(try Timeline.read(in: folder.url) == timeline)
        #expect(try timeline.encoded() == Data(contentsOf: file), "the same timeline, the same bytes")
        // An event a line: a night's additions are lines added.
        #expect(try String(contentsOf: file, encoding: .utf8).split(separator: "\n").count == timeline.events.count + 7)

        try Data("{\"schema_version\": 1, \"began\": \"2026-11-01\", \"through\": \"2026-11-02T03:15:00Z\", \"events\": [{\"date\": \"11/02\", \"book\": 1, \"kind\": \"added\", \"title\": \"x\", \"shelves\": []}]}".utf8).write(to: file)
        #expect(throws: Timeline.Unreadable.self) { try Timeline.read(in: folder.url) }
        try Data("{\"schema_version\": 2, \"began\": \"2026-11-01\", \"through\": \"2026-11-02T03:15:00Z\", \"events\": []}".utf8).write(to: file)
        #expect(throws: Timeline.Unreadable.self) { try Timeline.read(in: folder.url) }
        try FileManager.default.removeItem(at: file)
        #expect(try Timeline.read(in: folder.url) == nil)
    }

    /// Privacy fails closed: without notes, no note event; with shelves left out, only the books
    /// the library still shows, and no event that names a shelf it does not show.
    @Test func whatPrivacyLeavesOutTheTimelineDoesNotTell() throws {
        var dune = Book(id: 7, title: "Dune", createdAt: "2023-07-17T10:00:00Z")
        let diary = Book(id: 8, title: "My diary", createdAt: "2023-01-01T10:00:00Z")
        let private_ = Shelf(id: 4, name: "Private", bookCount: nil, bookIDs: [])
        var first = Self.night("2026-11-01", [(dune, private_), (diary, private_)])
        first.frame.shelves.append(Shelf(id: 4, name: "Private", bookCount: 2, bookIDs: [7, 8]))
        dune.note = Self.note("Spice.")
        let second = Self.night("2026-11-02", [(dune, Self.read)])
        let timeline = try Self.nights([first, second])
        #expect(timeline.events.contains { $0.shelvesNamed.contains("Private") })

        let noNotes = timeline.shown(with: second, notes: false, covers: true, restricted: false)
        #expect(!noNotes.events.contains { $0.kind.isNote } && noNotes.events.count == timeline.events.count - 1)
        // The library as --exclude-shelf Private shows it: the diary and the Private shelf gone.
        let shown = timeline.shown(with: second, notes: true, covers: true, restricted: true)
        #expect(!shown.events.contains { $0.book == 8 }, "a book the library no longer shows")
        #expect(!shown.events.contains { $0.shelvesNamed.contains("Private") }, "\(shown.events)")
        #expect(shown.events.map(\.kind) == [.noteWritten])
    }
}
