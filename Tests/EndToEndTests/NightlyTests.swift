import Foundation
import SampleServer
import SampleServerDoubles
import TestSupport
import Testing

/// What a nightly job relies on: faults retried away, a previous snapshot that survives any
/// failure, incremental runs that touch nothing when nothing changed, and a change report.
@Suite(.serialized)
struct NightlyTests {
    static let epoch = ["SOURCE_DATE_EPOCH": "1700000000"]

    static func export(_ server: RunningSampleServer, to output: URL, extra: [String] = []) async throws -> ToolRun {
        try await EndToEndTests.export(server, to: output, extra: extra, environment: epoch)
    }

    /// Starts an export without waiting for it.
    static func startExport(_ server: RunningSampleServer, to output: URL) throws -> Process {
        let process = Process()
        process.executableURL = ToolRunner.executable
        process.arguments = ["export", "--server", server.url, "--email", SampleLibrary.demoEmail, "--output", output.path,
                             "--connect-timeout", ToolRunner.connectTimeout, "--concurrency", "2", "--quiet",
                             // Every book asked for again: a run with work to do, to be cut short.
                             "--full"]
        var environment = ProcessInfo.processInfo.environment
        environment["READER_PASSWORD"] = SampleLibrary.demoPassword
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test func exportWithTwentyPercentFaultsIsByteIdenticalToAFaultFreeOne() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clean = try await Self.export(server, to: folder.path("clean"))
        #expect(clean.status == 2, "\(clean.output)")
        let reference = SiteInspector(root: folder.path("clean"))
        for seed: UInt64 in [1, 2, 3] {
            server.server.doubles.setFaults(FaultPlan(rate: 0.2, seed: seed, stall: .seconds(3)))
            let output = folder.path("faulty-\(seed)")
            let run = try await Self.export(server, to: output, extra: ["--timeout", "1", "--retries", "8"])
            server.server.doubles.setFaults(FaultPlan())
            #expect(run.status == 2, "seed \(seed): \(run.output)")
            #expect(server.server.doubles.faultsInjected > 0)
            let faulty = SiteInspector(root: output)
            #expect(faulty.files() == reference.files(), "seed \(seed)")
            for file in reference.files() {
                #expect(faulty.data(file) == reference.data(file), "seed \(seed): \(file) differs")
            }
            #expect(run.stderr.contains("retries"))
        }
        await server.stop()
    }

    @Test func aDamagedLastSnapshotIsSaidAndTheRunAsksForEveryBook() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("nightly")
        #expect(try await Self.export(server, to: output).status == 2)
        let kept = stateFolder(of: output).appendingPathComponent("library.json")
        let whole = try Data(contentsOf: kept)
        try whole.prefix(whole.count / 2).write(to: kept)
        server.server.resetCounters()
        let run = try await Self.export(server, to: output)
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        #expect(run.stderr.contains("warning: The last snapshot's library could not be read"), "\(run.output)")
        #expect(run.stderr.contains("every book is asked for again"))
        #expect(server.server.counters.detailRequests == server.server.library.books.count, "a full crawl")
        // Nothing lost: the snapshot has every book, and the kept library is whole again.
        let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("library.json"))) as? [String: Any])
        let ids = (written["books"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
        #expect(ids.sorted() == server.server.library.books.map(\.id).sorted(), "\(ids.count) books")
        #expect(try Data(contentsOf: kept).count >= whole.count / 2)
        #expect((try? JSONSerialization.jsonObject(with: Data(contentsOf: kept))) != nil)
    }

    @Test func secondRunWithNothingChangedFetchesNoCoverAndRewritesNoFile() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("nightly")
        let first = try await Self.export(server, to: output)
        #expect(first.status == 2)
        let before = SiteInspector(root: output).fingerprints()
        server.server.resetCounters()
        // Without SOURCE_DATE_EPOCH: the date alone must not make the files change.
        let second = try await EndToEndTests.export(server, to: output)
        let counters = server.server.counters

        #expect(second.status == 2, "\(second.output)")
        #expect(counters.coverBytes == 0, "cover bytes were fetched again; the first run said: \(first.output)")
        #expect(counters.notModified > 0)
        #expect(second.stderr.contains("No changes"))
        let after = SiteInspector(root: output).fingerprints()
        #expect(Set(after.keys) == Set(before.keys))
        for (file, print) in before where !file.hasPrefix(".reader-snapshot/") {
            #expect(after[file] == print, "\(file) was rewritten")
        }
        let state = try FileManager.default.attributesOfItem(atPath: stateFolder(of: output).path)
        #expect((state[.posixPermissions] as? Int) == 0o700)
        // The answers' bodies are kept beside state.json, named by their content, not inside it.
        let bodies = try FileManager.default.contentsOfDirectory(atPath: stateFolder(of: output).appendingPathComponent("responses").path)
        #expect(!bodies.isEmpty && bodies.allSatisfy { $0.count == 37 && $0.hasSuffix(".json") }, "\(bodies)")
        let stateJSON = try #require(SiteInspector(root: stateFolder(of: output)).text("state.json"))
        #expect(!stateJSON.contains(#"\"title\""#), "state.json holds answers' bodies, escaped")
        // The covers' records a line each, once per address: what let the second run fetch none.
        let lines = try #require(SiteInspector(root: stateFolder(of: output)).text("covers.jsonl")).split(separator: "\n")
        let urls = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["url"] as? String }
        #expect(!urls.isEmpty && urls.allSatisfy { $0 != nil } && Set(urls.compactMap { $0 }).count == urls.count)

        // A third night: what failed in both waits its turn, and the list of books says where every
        // book is: the run is the login, the shelves and the list, and nothing else.
        server.server.resetCounters()
        let third = try await EndToEndTests.export(server, to: output)
        #expect(third.status == 2, "\(third.output)")
        #expect(server.server.counters.requests == 3, "\(server.server.counters)")
        #expect(server.server.counters.apiRequests == 3)
        // The snapshot says the same of them as the first night did; the run's output says why.
        #expect(SiteInspector(root: output).text("library.json")?.contains("The details could not be fetched since 2023-11-14.") == true)
        #expect(third.stderr.contains("not fetched since 2023-11-14 (the server failed (HTTP 500)); asked again from"), "\(third.output)")
        await server.stop()
    }

    /// A quiet night (the two lists answer 304, nothing else is asked for, nothing changed) is kept;
    /// the next night with the same two answers is known from them alone: no book is made, and it
    /// says what the quiet night said. A change on the server, a failure falling due, or another
    /// title each make the night crawl again, and see what changed.
    @Test func aQuietNightIsKeptAndTheNextIsKnownFromItsTwoAnswers() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("nightly")
        let record = stateFolder(of: output).appendingPathComponent("quiet-night.json")
        func kept() -> Bool { FileManager.default.fileExists(atPath: record.path) }
        let known = "its library stands"
        // What a night says, but for the debug lines and how long it took.
        func said(_ run: ToolRun) -> [String] {
            run.stderr.split(separator: "\n").filter { !$0.hasPrefix("debug: ") }
                .map { String($0).replacing(#/\sin [0-9.]+ s\./#, with: " in a while.") }
        }
        let onDeletedShelf = server.server.library.books.filter { book in !server.server.library.shelves.contains { $0.id == book.shelfID } }.count
        #expect(onDeletedShelf > 0)

        // The first night, and the second, which asks again for what failed: neither is quiet.
        for night in 1...2 {
            let run = try await Self.export(server, to: output, extra: ["--verbose"])
            #expect(run.status == 2 && !run.stderr.contains(known) && !kept(), "night \(night): \(run.output)")
        }
        let quiet = try await Self.export(server, to: output, extra: ["--verbose"])
        #expect(quiet.status == 2 && !quiet.stderr.contains(known), "\(quiet.output)")
        #expect(kept(), "\(quiet.output)")
        let before = SiteInspector(root: output).fingerprints()

        server.server.resetCounters()
        let again = try await Self.export(server, to: output, extra: ["--verbose"])
        #expect(again.status == 2, "\(again.output)")
        #expect(again.stderr.contains(known), "\(again.output)")
        #expect(!again.stderr.contains("Books made while crawling"), "no book is made: \(again.output)")
        #expect(server.server.counters.requests == 3 && server.server.counters.notModified == 2, "\(server.server.counters)")
        #expect(said(again) == said(quiet), "the same words as the quiet night: \(again.output)")
        #expect(said(again).contains { $0.contains("not fetched since 2023-11-14 (the server failed (HTTP 500)); asked again from") })
        #expect(said(again).contains { $0.hasPrefix("Covers: 0 fetched, ") && !$0.hasPrefix("Covers: 0 fetched, 0 unchanged") }, "\(again.output)")
        #expect(SiteInspector(root: output).fingerprints() == before, "the snapshot is left as it was")
        #expect(kept())

        // One note edited: the list answers anew; the night crawls, sees the edit, and the record goes.
        server.server.update { library in
            library.updateBook(id: 101) { $0.comments = "<div class=\"trix-content\">\n  <div>A quiet thought.</div>\n</div>\n" }
        }
        let edited = try await Self.export(server, to: output, extra: ["--verbose"])
        #expect(!edited.stderr.contains(known) && edited.stderr.contains("1 edited"), "\(edited.output)")
        #expect(SiteInspector(root: output).text("books/101-pride-and-prejudice.html")?.contains("A quiet thought.") == true)
        #expect(!kept())
        let quietAgain = try await Self.export(server, to: output, extra: ["--verbose"])
        #expect(!quietAgain.stderr.contains(known) && kept(), "\(quietAgain.output)")

        // Two days later the books that failed are due: asked for again, whatever the record says.
        let later = ["SOURCE_DATE_EPOCH": String(1_700_000_000 + 2 * 86_400)]
        server.server.resetCounters()
        let due = try await EndToEndTests.export(server, to: output, extra: ["--verbose"], environment: later)
        #expect(due.status == 2 && !due.stderr.contains(known), "\(due.output)")
        #expect(server.server.counters.detailRequests == onDeletedShelf, "\(server.server.counters)")
        #expect(!kept(), "what failed again was written, and the record with it let go")

        // Kept again, then another title: the list is as it was, but the library is not.
        let quietLater = try await EndToEndTests.export(server, to: output, extra: ["--verbose"], environment: later)
        #expect(!quietLater.stderr.contains(known) && kept(), "\(quietLater.output)")
        let titled = try await EndToEndTests.export(server, to: output, extra: ["--verbose", "--title", "Shelf of Quiet"], environment: later)
        #expect(!titled.stderr.contains(known), "\(titled.output)")
        #expect(SiteInspector(root: output).text("index.html")?.contains("Shelf of Quiet") == true)
        await server.stop()
    }

    /// The crawl's progress counts the books it fetches, of a total the list gives, which does not
    /// move; a night that fetches a few prints no count (it would count work it did not do).
    @Test func progressCountsTheBooksFetchedOfAFixedTotalAndAQuietNightCountsNothing() async throws {
        let server = try await SampleServer.startSynthetic(books: 600, seed: 5)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("progress")
        func counts(_ run: ToolRun) -> [(done: Int, total: Int)] {
            run.stderr.split(separator: "\n").compactMap { line in
                guard line.hasPrefix("Crawl: "), line.hasSuffix(" books") else { return nil }
                let words = line.split(separator: " ")
                guard words.count == 5, let done = Int(words[1]), let total = Int(words[3]) else { return nil }
                return (done, total)
            }
        }
        let extra = ["--format", "json", "--no-thumbnails"]
        for (night, more) in [(1, [String]()), (3, ["--full"])] {
            let run = try await EndToEndTests.export(server, to: output, extra: extra + more)
            #expect(run.status == 2, "night \(night): \(run.output)")
            let seen = counts(run)
            #expect(seen.count >= 5, "night \(night): \(run.stderr)")
            #expect(seen.allSatisfy { $0.total == 600 && $0.done < 600 }, "night \(night): \(seen)")
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.done < $1.done }, "night \(night): \(seen)")
            if night == 1 {
                let quiet = try await EndToEndTests.export(server, to: output, extra: extra)
                #expect(quiet.stderr.contains(" unchanged since the last snapshot, ") && counts(quiet).isEmpty, "\(quiet.stderr)")
            }
        }
        await server.stop()
    }

    @Test func onlyBooksWhoseDateMovedAreAskedForAgainAndFullAsksForAll() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("nightly")
        #expect(try await Self.export(server, to: output).status == 2)
        let books = server.server.library.books.count
        let onDeletedShelf = server.server.library.books.filter { book in !server.server.library.shelves.contains { $0.id == book.shelfID } }.count
        #expect(onDeletedShelf > 0)

        // Nothing changed: no book is asked for but those whose details could not be read.
        server.server.resetCounters()
        let folderBefore = try FileManager.default.attributesOfItem(atPath: output.path)[.systemFileNumber] as? Int
        let unchanged = try await Self.export(server, to: output)
        #expect(unchanged.status == 2, "\(unchanged.output)")
        #expect(server.server.counters.detailRequests == onDeletedShelf)
        #expect(try FileManager.default.attributesOfItem(atPath: output.path)[.systemFileNumber] as? Int == folderBefore,
                "an unchanged snapshot is left in place, not swapped")

        // One note edited: that book is asked for again, and its page says so. The books on the
        // deleted shelf failed twice in a row (the run above asked again): they wait a day now.
        server.server.update { library in
            library.updateBook(id: 101) { $0.comments = "<div class=\"trix-content\">\n  <div>A new thought.</div>\n</div>\n" }
        }
        server.server.resetCounters()
        let edited = try await Self.export(server, to: output, extra: ["--verbose"])
        #expect(edited.stderr.contains("Changes: 1 edited."), "\(edited.output)")
        // Every other book taken unchanged is copied from the last library.json as it was; the
        // --full run below finds each of them byte for byte what encoding it again gives.
        #expect(edited.stderr.contains("; \(books - onDeletedShelf - 1) copied from the last snapshot as they were"), "\(edited.output)")
        #expect(server.server.counters.detailRequests == 1)
        #expect(edited.stderr.contains("Not asked again yet (they failed in the last runs; --full asks for them): \(onDeletedShelf) books' details"),
                "\(edited.output)")
        #expect(SiteInspector(root: output).text("books/101-pride-and-prejudice.html")?.contains("A new thought.") == true)
        let waiting = edited.stderr
        #expect(waiting.components(separatedBy: "not fetched since 2023-11-14 (the server failed (HTTP 500)); asked again from 2023-11-15").count
                == onDeletedShelf + 1, "each book that waits says since when: \(waiting)")
        let snapshot = try #require(SiteInspector(root: output).text("library.json"))
        #expect(snapshot.components(separatedBy: "The details could not be fetched since 2023-11-14.").count == onDeletedShelf + 1)

        // Two days later, their turn: asked for again, failed again (a week's wait now).
        let later = ["SOURCE_DATE_EPOCH": String(1_700_000_000 + 2 * 86_400)]
        server.server.resetCounters()
        let due = try await EndToEndTests.export(server, to: output, environment: later)
        #expect(due.status == 2, "\(due.output)")
        #expect(server.server.counters.detailRequests == onDeletedShelf)
        #expect(SiteInspector(root: output).text("library.json")?.contains("not fetched since") == false)
        let state = try #require(SiteInspector(root: stateFolder(of: output)).text("state.json"))
        #expect(state.contains(#""tries":3"#), "\(state)")

        // --full asks for every book, and finds the same library.
        server.server.resetCounters()
        let full = try await EndToEndTests.export(server, to: output, extra: ["--full"], environment: later)
        await server.stop()
        #expect(full.stderr.contains("No changes"), "\(full.output)")
        #expect(server.server.counters.detailRequests == books)
    }

    /// A night that changes a few books renders their pages and links the others from the last
    /// snapshot: the same bytes as a full render, over rounds of random edits, moves, renames,
    /// additions and removals (two outputs from the same nights: one linking what it can, one
    /// that has lost its digests and renders every page).
    @Test func aNightWithAFewChangesRendersTheirPagesAndGivesTheBytesOfAFullRender() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (incremental, full) = (folder.path("incremental"), folder.path("full"))
        var night = 1_700_000_000
        func export(_ output: URL, _ extra: [String] = []) async throws -> ToolRun {
            try await EndToEndTests.export(server, to: output, extra: extra + ["--verbose"], environment: ["SOURCE_DATE_EPOCH": String(night)])
        }
        #expect(try await export(incremental).status == 2)
        #expect(try await export(full).status == 2)
        var random = SplitMix64(seed: 18)
        for round in 1...4 {
            night += 86_400
            server.server.update { library in
                let ids = library.books.map(\.id)
                let shelves = library.shelves.map(\.id)
                for _ in 0..<3 {
                    let id = ids[Int.random(in: 0..<ids.count, using: &random)]
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: library.updateBook(id: id) { $0.comments = "<div class=\"trix-content\">\n  <div>Round \(round).</div>\n</div>\n" }
                    case 1: library.updateBook(id: id) { $0.shelfID = shelves[Int.random(in: 0..<shelves.count, using: &random)] }
                    case 2: library.updateBook(id: id) { $0.title += " (revised)" }
                    default: library.books.removeAll { $0.id == id && id != 101 }
                    }
                }
                if round == 2, let first = library.shelves.first?.id, let index = library.shelves.firstIndex(where: { $0.id == first }) {
                    library.shelves[index].name += " Renamed"
                }
                if round == 3, var copy = library.books.first {
                    copy.id = 9_000 + round
                    copy.title = "A book added in round \(round)"
                    library.books.append(copy)
                }
            }
            if round == 1 {
                // A page changed by hand is made again, not linked as it is.
                let page = incremental.appendingPathComponent("books/102-moby-dick-or-the-whale.html")
                var bytes = try Data(contentsOf: page)
                bytes.append(contentsOf: Array("<!-- by hand -->".utf8))
                try FileManager.default.removeItem(at: page)
                try bytes.write(to: page)
            }
            let quick = try await export(incremental)
            #expect(quick.status == 2, "\(quick.output)")
            #expect(quick.stderr.contains(" book and shelf pages unchanged, kept from the last snapshot"), "round \(round): \(quick.output)")
            // Without the last run's page digests, every page is rendered again.
            try FileManager.default.removeItem(at: stateFolder(of: full).appendingPathComponent("pages.bin"))
            let whole = try await export(full)
            #expect(whole.status == 2)
            #expect(!whole.stderr.contains("linked"), "\(whole.output)")
            let (a, b) = (SiteInspector(root: incremental), SiteInspector(root: full))
            let files = a.files().filter { !$0.hasPrefix(".reader-snapshot/") }
            #expect(files == b.files().filter { !$0.hasPrefix(".reader-snapshot/") }, "round \(round)")
            for file in files where a.data(file) != b.data(file) {
                Issue.record("round \(round): \(file) differs from a full render")
            }
        }
        await server.stop()
    }

    /// The list of books says where each book is: no shelf's page is asked for. A server whose
    /// list does not (Reader's older documents) is read shelf by shelf, to the same shelves.
    @Test func shelfPagesAreAskedForOnlyWhenTheListDoesNotSayWhereBooksAre() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let modern = try await EndToEndTests.startServer()
        let fromList = try await Self.export(modern, to: folder.path("list"))
        #expect(fromList.status == 2, "\(fromList.output)")
        #expect(modern.server.counters.shelfRequests == 0)
        let shelves = modern.server.library.shelves.count
        await modern.stop()
        // On the same address: the server's address is in the pages.
        let older = try await EndToEndTests.startServer(listsShelfIDs: false, port: modern.port)
        let fromPages = try await Self.export(older, to: folder.path("pages"))
        #expect(fromPages.status == 2, "\(fromPages.output)")
        #expect(older.server.counters.shelfRequests == shelves)
        await older.stop()
        let (list, pages) = (SiteInspector(root: folder.path("list")), SiteInspector(root: folder.path("pages")))
        let shelfPages = list.files().filter { $0.hasPrefix("shelves/") && $0.hasSuffix(".html") }
        #expect(shelfPages.count == shelves)
        #expect(pages.files().filter { !$0.hasPrefix(".") } == list.files().filter { !$0.hasPrefix(".") })
        for file in shelfPages + ["index.html", "books.html"] {
            #expect(pages.data(file) == list.data(file), "\(file) differs")
        }
    }

    /// The same library on a server that moved (another port): none of the last snapshot's books
    /// stands in for a request, and the change report still compares against it.
    @Test func aServerThatMovedIsAskedForEveryBookAndComparedWithTheLastSnapshot() async throws {
        let first = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("nightly")
        #expect(try await Self.export(first, to: output).status == 2)
        await first.stop()

        let moved = try await EndToEndTests.startServer()
        #expect(moved.url != first.url)
        moved.server.update { library in
            library.updateBook(id: 101) { $0.comments = "<div class=\"trix-content\">\n  <div>Written after the move.</div>\n</div>\n" }
        }
        moved.server.resetCounters()
        let run = try await Self.export(moved, to: output)
        await moved.stop()
        #expect(run.status == 2, "\(run.output)")
        #expect(moved.server.counters.detailRequests == moved.server.library.books.count)
        #expect(run.stderr.contains("Changes: 1 edited."), "\(run.output)")
        let report = try #require(SiteInspector(root: output).text("changes.json"))
        #expect(report.contains("\"first_run\" : false"))
    }

    @Test func changedNoteMovedBookAndDeletedBookAreReported() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("nightly")
        #expect(try await Self.export(server, to: output).status == 2)
        let first = try #require(SiteInspector(root: output).text("changes.json"))
        #expect(first.contains("\"first_run\" : true"))

        server.server.update { library in
            library.updateBook(id: 101) { $0.comments = "<div class=\"trix-content\">\n  <div>Changed my mind.</div>\n</div>\n" }
            library.updateBook(id: 102) { $0.shelfID = 2 }
            library.books.removeAll { $0.id == 103 }
        }
        let run = try await EndToEndTests.export(server, to: output)
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        #expect(run.stderr.contains("Changes: 1 removed, 1 moved, 1 edited."), "\(run.output)")
        let site = SiteInspector(root: output)
        let reportData = try #require(site.data("changes.json"))
        let report = try #require(try JSONSerialization.jsonObject(with: reportData) as? [String: Any])
        #expect(report["first_run"] as? Bool == false)
        #expect((report["removed"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [103])
        let moved = try #require((report["moved"] as? [[String: Any]])?.first)
        #expect(moved["id"] as? Int == 102 && moved["to"] as? [String] == ["Classics"])
        let edited = try #require((report["edited"] as? [[String: Any]])?.first)
        #expect(edited["id"] as? Int == 101 && edited["fields"] as? [String] == ["note"])
        let page = try #require(site.text("changes.html"))
        #expect(page.contains("Frankenstein") && page.contains("books/102-moby-dick-or-the-whale.html") && page.contains("Pride and Prejudice"))
        let markdown = try #require(site.text("markdown/index.md"))
        #expect(markdown.contains("- Removed: Frankenstein"))
        #expect(markdown.contains("- Edited: [Pride and Prejudice](books/101-pride-and-prejudice.md) (note)"))
        #expect(!site.files().contains { $0.hasPrefix("books/103-") }, "the deleted book's page is gone")
    }

    /// A published snapshot, and a second export of it under way against a slowed server.
    struct RunUnderWay {
        var server: RunningSampleServer
        var folder: TemporaryFolder
        var output: URL
        var before: [String: SiteInspector.Fingerprint]
        var process: Process
        /// The API requests the server had seen before this run started.
        var requestsBefore: Int

        /// Returns once the run waits on its held request (a fixed wait, or watching the counters,
        /// lost the race when the test was late and the run ended first).
        /// With `staging`, once its staging folder is made too.
        func underWay(staging: Bool = false) async throws {
            let deadline = ContinuousClock.now + .seconds(30)
            while try server.server.doubles.waiting == 0 || (staging && SnapshotSwapSafetyTests.stagingFolders(of: output).isEmpty),
                  process.isRunning, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(2))
            }
        }
    }

    /// The second run's API request numbered `heldAt` (counted from its first) waits until the
    /// server's `release()`.
    static func secondRunUnderWay(latency: Duration, heldAt: Int) async throws -> RunUnderWay {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        let output = folder.path("nightly")
        #expect(try await export(server, to: output).status == 2)
        let before = SiteInspector(root: output).fingerprints()
        server.server.doubles.setLatency(latency)
        let requestsBefore = server.server.counters.apiRequests
        server.server.doubles.hold(fromAPIRequest: requestsBefore + heldAt)
        return RunUnderWay(server: server, folder: folder, output: output, before: before,
                           process: try startExport(server, to: output), requestsBefore: requestsBefore)
    }

    @Test func killedRunLeavesThePreviousSnapshotAndTheNextRunSucceeds() async throws {
        let run = try await Self.secondRunUnderWay(latency: .milliseconds(60), heldAt: 4)
        let (server, folder, output, before, process) = (run.server, run.folder, run.output, run.before, run.process)
        defer { folder.remove() }
        try await run.underWay(staging: true)
        #expect(process.isRunning, "the export ended before it could be killed")
        kill(process.processIdentifier, SIGKILL)
        await ToolRunner.wait(for: process)
        server.server.doubles.release()
        #expect(SiteInspector(root: output).fingerprints() == before, "the previous snapshot changed")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains(".staging-") }
        #expect(!leftovers.isEmpty, "the killed run should have left its staging folder")

        server.server.doubles.setLatency(.zero)
        let next = try await Self.export(server, to: output)
        await server.stop()
        #expect(next.status == 2, "\(next.output)")
        let after = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(!after.contains { $0.contains(".staging-") || $0.contains(".previous-") }, "\(after)")
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("index.html").path))
    }

    @Test func keyRevokedMidRunGivesTheCredentialsCodeAndKeepsThePreviousSnapshot() async throws {
        // Revoked once the run has logged in: its third request (the shelves' or the list's, which
        // are asked for at once) waits until then.
        let run = try await Self.secondRunUnderWay(latency: .milliseconds(40), heldAt: 3)
        let (server, folder, output, before, process) = (run.server, run.folder, run.output, run.before, run.process)
        defer { folder.remove() }
        try await run.underWay()
        server.server.revokeKey()
        server.server.doubles.release()
        await ToolRunner.wait(for: process)
        await server.stop()
        #expect(process.terminationStatus == 77)
        #expect(SiteInspector(root: output).fingerprints() == before, "the previous snapshot changed")
        let after = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(!after.contains { $0.contains(".staging-") }, "\(after)")
    }

    /// With `--keep`, a quiet night links the last snapshot into tonight's folder; the nights after
    /// it are known from their two answers and link it too, keeping the covers' records whole: the
    /// night a note is edited fetches no cover again.
    @Test func keepLinksTheLastSnapshotOnNightsKnownFromTheirTwoAnswers() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("kept")
        let state = stateFolder(of: output)
        let known = "its library stands"
        func night(_ day: Int) async throws -> ToolRun {
            let run = try await EndToEndTests.export(server, to: output, extra: ["--keep", "10", "--verbose"],
                                                     environment: ["SOURCE_DATE_EPOCH": String(1_700_000_000 + day * 86_400)])
            #expect(run.status == 2, "day \(day): \(run.output)")
            return run
        }
        // The books on a deleted shelf are asked for on days 1, 2 and 3 (then they wait a week).
        for day in 1...3 { #expect(try await !night(day).stderr.contains(known)) }
        let quiet = try await night(4)
        #expect(!quiet.stderr.contains(known) && quiet.stderr.contains("Nothing changed: linking"), "\(quiet.output)")
        #expect(FileManager.default.fileExists(atPath: state.appendingPathComponent("quiet-night.json").path))
        let covers = try Data(contentsOf: state.appendingPathComponent("covers.jsonl"))
        for day in 5...6 {
            server.server.resetCounters()
            let run = try await night(day)
            #expect(run.stderr.contains(known) && run.stderr.contains("Nothing changed: linking"), "day \(day): \(run.output)")
            #expect(server.server.counters.requests == 3, "day \(day): \(server.server.counters)")
            #expect(try Data(contentsOf: state.appendingPathComponent("covers.jsonl")) == covers, "day \(day)")
            #expect(FileManager.default.fileExists(atPath: state.appendingPathComponent("quiet-night.json").path), "day \(day)")
        }
        let days = try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("snapshots").path).sorted()
        #expect(days.count == 6, "\(days)")
        let fourth = SiteInspector(root: output.appendingPathComponent("snapshots/\(days[3])"))
        let sixth = SiteInspector(root: output.appendingPathComponent("snapshots/\(days[5])"))
        #expect(!sixth.files().isEmpty && sixth.files() == fourth.files())
        for file in fourth.files() { #expect(sixth.data(file) == fourth.data(file), "\(file)") }

        // A note edited: the night crawls, renders, and takes every cover from the last snapshot.
        server.server.update { library in
            library.updateBook(id: 101) { $0.comments = "<div class=\"trix-content\">\n  <div>Kept, then edited.</div>\n</div>\n" }
        }
        server.server.resetCounters()
        let edited = try await night(7)
        #expect(!edited.stderr.contains(known) && edited.stderr.contains("1 edited"), "\(edited.output)")
        #expect(server.server.counters.coverBytes == 0, "\(server.server.counters)")
        #expect(SiteInspector(root: output.appendingPathComponent("latest")).text("books/101-pride-and-prejudice.html")?.contains("Kept, then edited.") == true)
        await server.stop()
    }

    @Test func keepHoldsTheLastNightsSharingUnchangedCovers() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("kept")
        for day in 1...4 {
            let run = try await EndToEndTests.export(server, to: output, extra: ["--keep", "3"],
                                                     environment: ["SOURCE_DATE_EPOCH": String(1_700_000_000 + day * 86_400)])
            #expect(run.status == 2, "\(run.output)")
        }
        await server.stop()
        let snapshots = try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("snapshots").path).sorted()
        #expect(snapshots == ["2023-11-16", "2023-11-17", "2023-11-18"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: output.appendingPathComponent("latest").path) == "snapshots/2023-11-18")
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("latest/index.html").path))
        // One cover, stored once: the three snapshots hold the same inode.
        let covers = try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("snapshots/2023-11-16/covers").path)
        let cover = try #require(covers.first)
        let inodes = try snapshots.map { day in
            try FileManager.default.attributesOfItem(atPath: output.appendingPathComponent("snapshots/\(day)/covers/\(cover)").path)[.systemFileNumber] as? Int
        }
        #expect(Set(inodes).count == 1)
    }
}
