import Foundation
import SampleServer
import TestSupport
import Testing

/// `reader-snapshot history` and the timeline's pages tell the same story, over simulated nights
/// against the sample server's editable library (each night dated by `SOURCE_DATE_EPOCH`); and an
/// earlier `--history` fills in the nights before a timeline began, as the nights themselves
/// would have told them.
@Suite(.serialized)
struct TimelineHistoryTests {
    /// The four nights of `TimelineNightsTests`; night 5 moves a book, so that it renders.
    static func change(_ server: RunningSampleServer, before night: Int) {
        guard night == 5 else { return TimelineNightsTests.change(server, before: night) }
        server.server.update { library in library.updateBook(id: 107) { $0.shelfID = 3 } }
    }

    static func export(_ server: RunningSampleServer, to output: URL, night: Int, extra: [String] = []) async throws {
        let run = try await EndToEndTests.export(server, to: output, extra: extra, environment: TimelineNightsTests.night(night))
        #expect(run.status == 2, "night \(night): \(run.output)")
    }

    static func history(_ arguments: [String]) async throws -> String {
        let run = try await ToolRunner.run(["history"] + arguments)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(arguments): \(run.output)")
        return run.stdout
    }

    /// What `history` says: "DAY · TITLE: WHAT" for each event under its day's line, and the days' lines.
    static func told(_ text: String) -> (events: [String], days: [String]) {
        var events: [String] = [], days: [String] = []
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix(String(repeating: " ", count: 12)), let day = days.last {
                events.append(String(day.prefix(10)) + " · " + line.dropFirst(12))
            } else {
                days.append(line)
            }
        }
        return (events, days)
    }

    /// What the timeline's pages show: "DAY · TITLE: WHAT" for each event, on every page of it.
    static func shown(_ output: URL) throws -> [String] {
        let site = SiteInspector(root: output)
        let item = try NSRegularExpression(pattern: #"<li><time>([^<]*)</time> · (?:<a [^>]*>|<bdi>)(.*?)(?:</a>|</bdi>): (.*?)</li>"#)
        var shown: [String] = [], page = 1
        while let html = site.text(page == 1 ? "timeline.html" : "timeline-\(page).html") {
            for match in item.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
                let part = { (index: Int) in SiteInspector.decodeEntities(String(html[Range(match.range(at: index), in: html)!])) }
                shown.append("\(part(1)) · \(part(2)): \(part(3))")
            }
            page += 1
        }
        return shown
    }

    @Test func historyTellsEachNightsEventsOnItsNightInThePagesWords() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        for night in 1...4 {
            Self.change(server, before: night)
            try await Self.export(server, to: output, night: night)
        }
        await server.stop()

        let (events, days) = Self.told(try await Self.history([output.path]))
        // The same events as the pages, book titles and words alike: the arrivals on the server's
        // days, then each night's.
        let shown = try Self.shown(output)
        #expect(shown.count >= 30 && events.sorted() == shown.sorted(), "history:\n\(events)\npages:\n\(shown)")
        // Newest first, each day with its counts as the page's words say them.
        let dates = days.map { String($0.prefix(10)) }
        #expect(dates == dates.sorted().reversed() && Set(dates).count == dates.count, "\(days)")
        #expect(Array(days.prefix(3)) == ["2025-11-27  1 note written · 2 other changes",
                                          "2025-11-26  1 added · 3 other changes",
                                          "2025-11-25  1 moved to To Read"], "\(days)")
        #expect(events.contains("2025-11-25 · Frankenstein; or, The Modern Prometheus: moved from Currently Reading 📖 to To Read"), "\(events)")
        #expect(events.contains("2025-11-26 · Dracula (Norton Critical Edition): renamed, was “Dracula”"), "\(events)")
        // The feed says each night's counts as history does.
        let feed = try #require(SiteInspector(root: output).text("timeline.xml"))
        let titles = SiteInspector.matches(of: #"<entry>\s*<title>([^<]*)</title>"#, in: feed).map(SiteInspector.decodeEntities)
        #expect(titles == days.prefix(3).map { $0.replacingOccurrences(of: "  ", with: ": ") }, "\(titles)")

        let since = Self.told(try await Self.history([output.path, "--since", "2025-11-26"]))
        #expect(since.days.map { String($0.prefix(10)) } == ["2025-11-27", "2025-11-26"], "\(since.days)")
        // A book's story, oldest first, in the same words: when it came, and each night since.
        let story = try await Self.history([output.path, "--book", "104"])
        let expected = shown.filter { $0.contains("Dracula") }.sorted()
        #expect(story.split(separator: "\n").map { $0.replacingOccurrences(of: "  ", with: " · ") } == expected, "\(story)")
        #expect(story.hasSuffix("2025-11-26  Dracula (Norton Critical Edition): renamed, was “Dracula”\n"), "\(story)")
        let unknown = try await ToolRunner.run(["history", output.path, "--book", "99999"])
        #expect(unknown.status == 66 && unknown.stderr.contains("book 99999 is in no night of the timeline"), "\(unknown.output)")
    }

    /// A history made by this release, with its timeline taken away: the next night's timeline
    /// begins, and the history's nights fill in the time before. It holds what a twin kept night
    /// by night: every event on its night, the same bytes. (Nothing here is lost: what
    /// `library.json` cannot tell is under which privacy options each night was written, and these
    /// nights all had the same.)
    @Test func anEarlierHistoryFillsInTheNightsBeforeTheTimelineBegan() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (kept, filled) = (folder.path("kept"), folder.path("filled"))
        for night in 1...5 {
            Self.change(server, before: night)
            if night == 5 {
                // As an older release left it: a snapshot without a timeline.
                try FileManager.default.removeItem(at: filled.appendingPathComponent("timeline.json"))
            }
            for output in [kept, filled] { try await Self.export(server, to: output, night: night, extra: ["--history"]) }
        }
        await server.stop()

        let nights = try TimelineNightsTests.lines(filled).filter { $0 >= "2025-11-25" }
        #expect(nights == ["2025-11-25 moved 103", "2025-11-26 note_rewritten 101", "2025-11-26 renamed 104", "2025-11-26 note_removed 106",
                           "2025-11-26 added 9001", "2025-11-27 note_rewritten 101", "2025-11-27 removed 105", "2025-11-27 note_written 106",
                           "2025-11-28 moved 107"], "\(nights)")
        let (twin, site) = (SiteInspector(root: kept), SiteInspector(root: filled))
        for file in ["timeline.json", "timeline.html", "markdown/timeline.md", "timeline.xml"] {
            #expect(site.data(file) != nil && site.data(file) == twin.data(file), "\(file) differs from the twin's")
        }
        #expect(try await Self.history([filled.path]) == (try await Self.history([kept.path])))
        // With --history, a book's story shows its note's change under the note's event.
        let story = try await Self.history([filled.path, "--book", "101"])
        #expect(story.contains("2025-11-26  Pride and Prejudice: note rewritten\n") && story.contains("+Read again in winter."), "\(story)")
    }
}
