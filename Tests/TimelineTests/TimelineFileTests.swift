import Foundation
import TestSupport
import Testing
@testable import Timeline

/// `timeline.json` as this version writes it without Foundation's JSON encoder (`JSONLine`), the
/// same bytes as `JSONEncoder`; and as it reads it, a piece at a time, the same events as `JSONDecoder`.
@Suite struct TimelineFileTests {
    /// Every ASCII character, the escapes JSON has, text of every width.
    static let awkward: String = {
        var text = ""
        for value in 0..<0x80 { text.unicodeScalars.append(Unicode.Scalar(value)!) }
        return text + "é\u{2028}\u{2029}😀\u{FEFF}\u{7F} / \\ \""
    }()

    static let events = [
        TimelineEvent(date: "2023-07-17", book: 7, kind: .added, title: awkward, shelves: ["To Read"]),
        TimelineEvent(date: "2026-11-02", book: -3, kind: .moved, title: "Dune", shelves: ["To Read", "no shelf"], to: [awkward, ""]),
        TimelineEvent(date: "2026-11-02", book: 7, kind: .moved, title: "Dune", shelves: [], to: []),
        TimelineEvent(date: "2026-11-02", book: 7, kind: .renamed, title: "Dune (1965)", shelves: ["Read"], formerTitle: "Dune"),
        TimelineEvent(date: "2026-11-03", book: Int.max, kind: .renamed, title: "", shelves: ["Read"], formerTitle: ""),
        TimelineEvent(date: "2026-11-03", book: 9, kind: .noteWritten, title: "Emma", shelves: ["Read"]),
    ]

    @Test func eachEventIsWrittenAsJSONEncoderWritesIt() throws {
        let timeline = Timeline(began: "2026-11-01", through: "2026-11-03T03:15:00Z", events: Self.events)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let lines = try timeline.events.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        #expect(timeline.events.indices.map(timeline.events.line(at:)) == lines)
        #expect(Array(timeline.events) == Self.events.sorted(by: TimelineEvent.precedes))
    }

    @Test func itReadsWhatItWritesAndWhatJSONDecoderReads() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let timeline = Timeline(began: "2026-11-01", through: "2026-11-03T03:15:00Z", events: Self.events)
        let file = folder.url.appendingPathComponent(Timeline.fileName)
        try timeline.encoded().write(to: file)
        #expect(try Timeline.read(in: folder.url) == timeline)
        #expect(try Timeline.read(in: folder.url)?.encoded() == timeline.encoded())
        // Laid out otherwise (white space, keys in another order, nulls, escapes JSONEncoder does
        // not write, events out of order): the same events.
        let other = """
        { "events" : [ {"title": "Emma", "shelves": ["Read"], "kind": "note_written", "date": "2026-11-03", "book": 9, "to": null},
          {"book": 7, "date": "2026-11-02", "kind": "added", "title": "\\u00e9\\ud83d\\ude00\\/", "shelves": [], "former_title": null} ],
          "through": "2026-11-03T03:15:00Z", "began": "2026-11-01", "schema_version": 1 }
        """
        try Data(other.utf8).write(to: file)
        let read = try #require(try Timeline.read(in: folder.url))
        #expect(Array(read.events) == [TimelineEvent(date: "2026-11-02", book: 7, kind: .added, title: "é😀/", shelves: []),
                                       TimelineEvent(date: "2026-11-03", book: 9, kind: .noteWritten, title: "Emma", shelves: ["Read"])])
        // What the reader does not expect is JSONDecoder's to read (an unknown key), or to refuse.
        try Data(other.replacingOccurrences(of: "\"to\": null", with: "\"extra\": [1, {\"a\": 2}]").utf8).write(to: file)
        #expect(try Timeline.read(in: folder.url)?.events.count == 2)
        try Data(other.replacingOccurrences(of: "\"book\": 9", with: "\"book\": 9.5").utf8).write(to: file)
        #expect(throws: Timeline.Unreadable.self) { try Timeline.read(in: folder.url) }
        // Not an array of events (read whole, and refused), and a file cut short.
        try Data(other.replacingOccurrences(of: "\"events\" : [", with: "\"events\" : [ [1], ").utf8).write(to: file)
        #expect(throws: Timeline.Unreadable.self) { try Timeline.read(in: folder.url) }
        try timeline.encoded().dropLast(9).write(to: file)
        #expect(throws: Timeline.Unreadable.self) { try Timeline.read(in: folder.url) }
    }

    @Test func tonightsEventsGoInTheirPlaces() throws {
        var timeline = Timeline(began: "2026-11-01", through: "2026-11-02T03:15:00Z", events: Array(Self.events.prefix(3)))
        timeline.add(Array(Self.events.suffix(3)), through: "2026-11-03T03:15:00Z")
        #expect(Array(timeline.events) == Self.events.sorted(by: TimelineEvent.precedes))
        // A book the server dates before the last night goes among the others.
        let early = TimelineEvent(date: "2025-01-01", book: 1, kind: .added, title: "Early", shelves: ["Read"])
        timeline.add([early], through: "2026-11-04T03:15:00Z")
        #expect(Array(timeline.events) == (Self.events + [early]).sorted(by: TimelineEvent.precedes))
        #expect(timeline.through == "2026-11-04T03:15:00Z")
    }
}
