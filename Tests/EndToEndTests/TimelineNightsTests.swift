import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import SampleServer
import TestSupport
import Testing

/// The reading timeline over simulated nights against the sample server's editable library, each
/// night dated by `SOURCE_DATE_EPOCH`: what each night changed is on its night, in `timeline.json`,
/// the timeline's page and its Markdown, and `render --from` makes the same files again.
@Suite(.serialized)
struct TimelineNightsTests {
    /// 2025-11-24 03:00 UTC, and a day after it for each night.
    static func night(_ number: Int) -> [String: String] { ["SOURCE_DATE_EPOCH": String(1_763_953_200 + (number - 1) * 86_400)] }

    static func events(_ output: URL) throws -> [[String: Any]] {
        let data = try #require(SiteInspector(root: output).data("timeline.json"))
        let timeline = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(timeline["events"] as? [[String: Any]])
    }

    /// "2025-11-25 moved 103": each event, as a line the test can compare.
    static func lines(_ output: URL, kinds: Set<String>? = nil) throws -> [String] {
        try events(output).compactMap { event in
            let kind = event["kind"] as? String ?? ""
            guard kinds?.contains(kind) ?? true else { return nil }
            return "\(event["date"] as? String ?? "") \(kind) \(event["book"] as? Int ?? 0)"
        }
    }

    /// What changes on the server before each of the nights after the first: a move; a note
    /// rewritten, a rename, a note removed; a removal, a note written and an addition.
    static func change(_ server: RunningSampleServer, before night: Int) {
        server.server.update { library in
            switch night {
            case 2: library.updateBook(id: 103) { $0.shelfID = 3 }
            case 3:
                library.updateBook(id: 101) { $0.comments = "<div class=\"trix-content\">\n  <div>Read again in winter.</div>\n</div>\n" }
                library.updateBook(id: 104) { $0.title = "Dracula (Norton Critical Edition)" }
                library.updateBook(id: 106) { $0.comments = "" }
            case 4:
                library.books.removeAll { $0.id == 105 }
                library.updateBook(id: 106) { $0.comments = "<div class=\"trix-content\">\n  <div>Written at last.</div>\n</div>\n" }
                library.updateBook(id: 101) { $0.comments = "<div class=\"trix-content\">\n  <div>Read again in spring.</div>\n</div>\n" }
                var added = library.books[0]
                added.id = 9_001
                added.title = "The Waves"
                added.createdAt = "2025-11-26T22:00:00.000Z"
                library.books.append(added)
            default: break
            }
        }
    }

    /// Four nights of a library: a move, a note written and one rewritten, a rename, a removal and
    /// an addition, each on its night; then the copy `render --from` makes of the last snapshot.
    @Test func eachNightsChangesAreOnTheirNightInEveryFileAndRenderFromMakesTheSame() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        func export(_ number: Int, _ extra: [String] = []) async throws {
            let run = try await EndToEndTests.export(server, to: output, extra: extra, environment: Self.night(number))
            #expect(run.status == 2 && (number != 5 || run.stderr.contains("Changes: none since the last run.")), "night \(number): \(run.output)")
        }
        try await export(1)
        // The first night: every book arrived on the day the server says.
        let first = try Self.lines(output)
        #expect(first.count >= 25 && first.allSatisfy { $0.contains(" added ") }, "\(first)")
        #expect(first.contains("2024-01-03 added 101") && first.contains("2021-01-17 added 102"), "\(first)")

        for night in 2...4 {
            Self.change(server, before: night)
            try await export(night)
        }
        // A quiet night, a day later: no event, and the timeline's data and feed keep their bytes.
        let (quietTimeline, quietFeed) = (SiteInspector(root: output).data("timeline.json"), SiteInspector(root: output).data("timeline.xml"))
        Self.change(server, before: 5)
        try await export(5)
        #expect(SiteInspector(root: output).data("timeline.json") == quietTimeline && SiteInspector(root: output).data("timeline.xml") == quietFeed)
        await server.stop()

        let nights = try Self.lines(output).filter { $0 >= "2025-11-25" }
        // In the timeline's order: by date, then book.
        #expect(nights == ["2025-11-25 moved 103", "2025-11-26 note_rewritten 101", "2025-11-26 renamed 104", "2025-11-26 note_removed 106",
                           "2025-11-26 added 9001", "2025-11-27 note_rewritten 101", "2025-11-27 removed 105",
                           "2025-11-27 note_written 106"], "\(nights)")
        let moved = try #require(try Self.events(output).first { $0["kind"] as? String == "moved" })
        #expect(moved["shelves"] as? [String] == ["Currently Reading 📖"] && moved["to"] as? [String] == ["To Read"])

        // The page tells it month by month, each event linking to its book while it is there.
        let site = SiteInspector(root: output)
        let page = try #require(site.text("timeline.html"))
        #expect(page.contains("<h2>November 2025</h2>"), "\(page)")
        #expect(page.contains("href=\"books/103-frankenstein-or-the-modern-prometheus.html\"") && page.contains("moved from Currently Reading 📖 to To Read"), "\(page)")
        #expect(page.contains("renamed, was “Dracula”") && page.contains("note written") && page.contains("removed from Classics"), "\(page)")
        #expect(page.contains("1 moved to To Read"), "\(page)")
        #expect(try #require(site.text("index.html")).contains("href=\"timeline.html\""))
        let markdown = try #require(site.text("markdown/timeline.md"))
        #expect(markdown.contains("# Timeline") && markdown.contains("(books/103-frankenstein-or-the-modern-prometheus.md): moved from"), "\(markdown)")

        // Its feed: an entry for each night that changed something, newest first, dated by the night.
        let feed = try #require(site.data("timeline.xml"))
        let parser = XMLParser(data: feed)
        #expect(parser.parse(), "timeline.xml is not well-formed XML: \(String(describing: parser.parserError))")
        let entries = SiteInspector.matches(of: #"<id>tag:reader-snapshot,2024:[^<]*:timeline:([0-9-]+)</id>"#, in: String(decoding: feed, as: UTF8.self))
        #expect(entries == ["2025-11-27", "2025-11-26", "2025-11-25"], "\(entries)")
        #expect(String(decoding: feed, as: UTF8.self).contains("moved from Currently Reading 📖 to To Read"))
        #expect(page.contains("<link rel=\"alternate\" type=\"application/atom+xml\" title=\"Timeline\" href=\"timeline.xml\">"))

        // The book's story: a note rewritten on two nights is one part of it.
        let bookFile = try #require(site.files().first { $0.hasPrefix("books/101-") && $0.hasSuffix(".html") })
        let story = try #require(site.text(bookFile))
        #expect(story.contains("note rewritten 2 times, last 2025-11-27"), "\(story)")

        // The year's page tells the year: the books that reached each shelf (a move, or an addition
        // on a night the timeline saw), the notes written, the books added, the longest wait.
        let year = try #require(site.text("years/2025.html"))
        #expect(year.contains("<h1>2025 in books</h1>") && year.contains("<h2 id=\"added\">Added in 2025</h2>"), "\(year)")
        #expect(year.contains("<div><dt>Notes written</dt><dd>1</dd></div>"), "\(year)")
        #expect(year.contains("<span dir=\"auto\">To Read</span> <span class=\"count\">(1 book)</span>"), "\(year)")
        #expect(year.contains("frankenstein-or-the-modern-prometheus.html\" dir=\"auto\">Frankenstein") && year.contains("days from being added (2022-02-02) to To Read (2025-11-25)"), "\(year)")
        // A year before the timeline began is told by its books added alone: nothing more of it is known.
        let before = try #require(site.text("years/2024.html"))
        #expect(before.contains("<h1>Added in 2024</h1>") && !before.contains("Notes written"), "\(before)")
        let yearMarkdown = try #require(site.text("markdown/years/2025.md"))
        #expect(yearMarkdown.contains("# 2025 in books") && yearMarkdown.contains("- Notes written: 1"), "\(yearMarkdown)")
        // The stats chart the moves and the notes month by month, each chart named with its figures.
        let stats = try #require(site.text("stats.html"))
        #expect(stats.contains("aria-label=\"Moved to To Read, per month: November 2025, 1\""), "\(stats)")
        #expect(stats.contains("aria-label=\"Notes written, per month: November 2025, 1\""), "\(stats)")

        // render --from the last snapshot: the same timeline, the same pages of it.
        let copy = folder.path("copy")
        let render = try await ToolRunner.run(["render", "--from", output.appendingPathComponent("library.json").path, "--output", copy.path],
                                              environment: Self.night(4))
        #expect(render.status == 0, "\(render.output)")
        for file in ["timeline.json", "timeline.html", "markdown/timeline.md", "timeline.xml", "years/2025.html", "markdown/years/2025.md", "stats.html"] {
            #expect(SiteInspector(root: copy).data(file) == site.data(file), "\(file) differs in the copy render --from made")
        }

        // The pages of four nights, the timeline's, the year's and the stats' charts among them: valid
        // HTML, and in Chromium no error and no serious accessibility problem (axe-core), light and dark.
        try await HostileInputTests.validateHTML(output)
        try await HostileInputTests.checkInBrowser(output)
    }

    /// Privacy fails closed, for what a timeline carries from nights before the options too:
    /// `--no-notes` tells no note event anywhere; `--exclude-shelf` tells no event of a book on that
    /// shelf, and none that names it (a move out of it says neither the shelf nor the book).
    @Test func whatPrivacyLeavesOutIsInNoFileOfTheTimeline() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (noNotes, noShelf) = (folder.path("no-notes"), folder.path("no-shelf"))
        let favourites = server.server.library.books.filter { $0.shelfID == 4 }.map(\.id)
        #expect(favourites.count >= 2, "the test would prove nothing")
        // Two nights without the options: the timelines name the shelf, and tell of a note.
        for night in 1...2 {
            if night == 2 {
                server.server.update { library in
                    library.updateBook(id: 101) { $0.comments = "<div class=\"trix-content\">\n  <div>Read again in winter.</div>\n</div>\n" }
                }
            }
            for output in [noNotes, noShelf] {
                let run = try await EndToEndTests.export(server, to: output, environment: Self.night(night))
                #expect(run.status == 2, "\(run.output)")
            }
        }
        #expect(try Self.lines(noNotes, kinds: ["note_rewritten"]) == ["2025-11-25 note_rewritten 101"])
        // The third night with them: what the timelines carried from before is shown as they say.
        server.server.update { library in
            // Out of the shelf left out, and into it.
            library.updateBook(id: favourites[0]) { $0.shelfID = 2 }
            library.updateBook(id: 102) { $0.shelfID = 4 }
        }
        for (output, option) in [(noNotes, ["--no-notes"]), (noShelf, ["--exclude-shelf", "4"])] {
            let run = try await EndToEndTests.export(server, to: output, extra: option, environment: Self.night(3))
            #expect(run.status == 2, "\(run.output)")
        }
        await server.stop()
        #expect(try Self.lines(noNotes, kinds: ["note_written", "note_rewritten", "note_removed"]).isEmpty)
        for file in ["timeline.json", "timeline.html", "markdown/timeline.md", "timeline.xml", "years/2025.html", "stats.html"] {
            let text = try #require(SiteInspector(root: noNotes).text(file))
            #expect(!text.contains("note_rewritten") && !text.contains("note rewritten"), "\(file) tells of a note")
            // With the shelf left out, 2025 is told of nowhere: it has no year's page.
            let shelfText = try #require(SiteInspector(root: noShelf).text(file) ?? (file.hasPrefix("years/") ? "" : nil))
            #expect(!shelfText.contains("Favourites"), "\(file) names the shelf left out")
            #expect(!shelfText.contains("Moby-Dick"), "\(file) tells of a book now on the shelf left out")
            let still = try #require(server.server.library.books.first { $0.id == favourites[1] }).title
            #expect(!shelfText.contains(still), "\(file) tells of a book on the shelf left out")
        }
        // The book that came out of the shelf arrived, as far as the timeline tells, on the day the
        // server says, on the shelf it is on now: nothing of where it was, or of its move.
        let out = try Self.events(noShelf).filter { $0["book"] as? Int == favourites[0] }
        #expect(out.map { $0["kind"] as? String } == ["added"], "\(out)")
        #expect(out.first?["shelves"] as? [String] == ["Classics"], "\(out)")
    }
}
