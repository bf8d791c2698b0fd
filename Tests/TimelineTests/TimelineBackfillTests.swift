import Foundation
import LibraryArchive
import Notes
import TestSupport
import Testing
@testable import Timeline

/// The nights before a timeline began, told from the libraries an earlier `--history` kept: each
/// night's `library.json` read back from a file, as the history's are, and compared with the one
/// before it.
@Suite struct TimelineBackfillTests {
    /// The library as a `library.json` on disk, read back the way the history's nights are.
    static func file(_ library: LibraryFile, _ name: String, in folder: TemporaryFolder) throws -> LibraryFile {
        var data = Data()
        try library.writeJSON { data.append($0) }
        let url = folder.path(name)
        try data.write(to: url)
        return try LibraryFile.read(from: url)
    }

    static func cover(_ hash: String) -> CoverFile { CoverFile(path: "covers/\(hash).jpg", format: .jpeg, bytes: 10, sha256: hash) }

    /// "2026-11-02 moved 7": each event, as a line to compare.
    static func lines(_ timeline: Timeline?) -> [String] {
        (timeline.map { Array($0.events) } ?? []).map { "\($0.date) \($0.kind.rawValue) \($0.book)" }
    }

    /// Two nights' library files: the first gives the arrivals, dated by the server; the second,
    /// compared with it, every kind of change a night can see, dated by its own night.
    @Test func theSecondLibraryComparedWithTheFirstGivesItsNightsEvents() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var dune = Book(id: 7, title: "Dune", author: "Frank Herbert", createdAt: "2023-07-17T10:00:00Z")
        var emma = Book(id: 9, title: "Emma", isbn: "9780141439587", createdAt: "2024-02-01T08:00:00Z",
                        cover: Self.cover("aa"), note: TimelineTests.note("Emma."))
        let gone = Book(id: 5, title: "Gone", createdAt: "2025-01-01T08:00:00Z")
        let first = try Self.file(TimelineTests.night("2026-11-01", [(dune, TimelineTests.toRead), (emma, TimelineTests.read),
                                                                     (gone, TimelineTests.read)]), "first.json", in: folder)
        dune.author = "F. Herbert"
        dune.note = TimelineTests.note("Spice.")
        dune.cover = Self.cover("bb")
        emma.title = "Emma (Penguin)"
        emma.isbn = "9780141199542"
        emma.note = Note(receiving: nil)
        emma.cover = Self.cover("cc")
        let ulysses = Book(id: 12, title: "Ulysses", createdAt: "2026-10-30T01:00:00Z")
        let second = try Self.file(TimelineTests.night("2026-11-02", [(dune, TimelineTests.reading), (emma, TimelineTests.read),
                                                                      (ulysses, TimelineTests.toRead)]), "second.json", in: folder)
        var backfill = TimelineBackfill()
        try backfill.add(first)
        #expect(Self.lines(backfill.told) == ["2023-07-17 added 7", "2024-02-01 added 9", "2025-01-01 added 5"])
        try backfill.add(second)
        let told = try #require(backfill.told)
        // By date, then book, then how a story reads; the addition dated by the server.
        #expect(Self.lines(told).dropFirst(3) == [
            "2026-10-30 added 12",
            "2026-11-02 removed 5",
            "2026-11-02 moved 7", "2026-11-02 author_changed 7", "2026-11-02 note_written 7", "2026-11-02 cover_added 7",
            "2026-11-02 renamed 9", "2026-11-02 isbn_changed 9", "2026-11-02 note_removed 9", "2026-11-02 cover_changed 9",
        ])
        #expect(told.began == "2026-11-01" && told.through == "2026-11-02T03:15:00Z")
        #expect(told.events.first { $0.kind == .moved }.map { [$0.shelves, $0.to ?? []] } == [["To Read"], ["Reading"]])
        #expect(told.events.first { $0.kind == .renamed }?.formerTitle == "Emma")
        #expect(told.events.first { $0.kind == .removed }?.shelves == ["Read"])
    }

    /// The history told again is the timeline the nights would have kept, one by one.
    @Test func theHistoryToldAgainIsTheTimelineKeptNightByNight() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let dune = Book(id: 7, title: "Dune", createdAt: "2023-07-17T10:00:00Z")
        var written = dune
        written.note = TimelineTests.note("Spice.")
        let nights = [
            TimelineTests.night("2026-11-01", [(dune, TimelineTests.toRead)]),
            TimelineTests.night("2026-11-02", [(dune, TimelineTests.reading)]),
            TimelineTests.night("2026-11-04", [(written, TimelineTests.reading)]),
            TimelineTests.night("2026-11-05", [(written, TimelineTests.read), (Book(id: 8, title: "Emma", createdAt: nil), nil)]),
        ]
        var backfill = TimelineBackfill()
        for (number, night) in nights.enumerated() { try backfill.add(try Self.file(night, "\(number).json", in: folder)) }
        #expect(backfill.told == (try TimelineTests.nights(nights)))
        #expect(Self.lines(backfill.told).filter { $0 >= "2026-11" }
                == ["2026-11-02 moved 7", "2026-11-04 note_written 7", "2026-11-05 moved 7", "2026-11-05 added 8"])
    }

    /// Tonight's events go on top, dated by tonight; a night that changed nothing carries the
    /// last night's report, which the history told already: nothing is added. No night, no timeline.
    @Test func tonightGoesOnTopAndANightThatChangedNothingAddsNothing() throws {
        let dune = Book(id: 7, title: "Dune", createdAt: "2023-07-17T10:00:00Z")
        let first = TimelineTests.night("2026-11-01", [(dune, TimelineTests.toRead)])
        let second = TimelineTests.night("2026-11-02", [(dune, TimelineTests.reading)])
        let tonight = TimelineTests.night("2026-11-03", [(dune, TimelineTests.read)])
        var backfill = TimelineBackfill()
        #expect(backfill.withTonight(report: try ChangeReport.compare(previous: nil, current: first), library: first, unchanged: false) == nil)
        try backfill.add(first)
        try backfill.add(second)
        let report = try ChangeReport.compare(previous: second, current: tonight)
        let filled = try #require(backfill.withTonight(report: report, library: tonight, unchanged: false))
        #expect(Self.lines(filled) == ["2023-07-17 added 7", "2026-11-02 moved 7", "2026-11-03 moved 7"])
        #expect(filled.began == "2026-11-01" && filled.through == "2026-11-03T03:15:00Z")
        let lastReport = try ChangeReport.compare(previous: first, current: second)
        #expect(backfill.withTonight(report: lastReport, library: second, unchanged: true) == backfill.told)
    }
}
