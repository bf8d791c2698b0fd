import Foundation
import SampleServer
import SampleServerDoubles
import TestSupport
import Testing

/// Thirty nights of a cron job, as a user runs it: `--keep 7 --history --markdown-into … --quiet`
/// against a server that costs what Reader does, with books on a deleted shelf, a dead cover host,
/// edits on some nights and none on others, and nights when some books' details fail.
@Suite(.serialized)
struct MonthOfNightsTests {
    struct Night {
        var edit = false
        var failing: Set<Int> = []
    }

    /// Which nights edit the library and which meet failing details: drawn once, the same every run.
    static func plan(books: [SampleLibrary.Book]) -> [Night] {
        var random = SystemRandomNumberGenerator.Seeded(seed: 30)
        let withNotes = books.filter { !$0.comments.isEmpty && $0.id < 125 }.map(\.id)
        return (0..<30).map { night in
            var plan = Night()
            guard night > 0 else { return plan }
            plan.edit = random.next() % 3 == 0
            if random.next() % 4 == 0 {
                plan.failing = Set((0..<2).map { _ in withNotes[Int(random.next() % UInt64(withNotes.count))] })
            }
            return plan
        }
    }

    @Test func aMonthOfNightsLosesNothingAndSpeaksOnlyOfNews() async throws {
        var options = SampleServer.Options()
        options.loginDelay = .zero
        options.conditions = ServerDoubles(.init(costs: .reader))
        let server = try await SampleServer(library: try SampleLibrary.bundled(), options: options).start()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library"), vault = folder.path("Notes")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o750], ofItemAtPath: output.path)
        let plan = Self.plan(books: server.server.library.books)
        var lastLibrary: Data?
        var lastSnapshot: URL?
        var commits = 0
        // The books with a note the first night: edits only add to notes, so each keeps one.
        var withNotes = Set<Int>()
        for (night, tonight) in plan.enumerated() {
            if tonight.edit {
                server.server.update { library in
                    let index = (night * 7) % library.books.count
                    library.books[index].title += " (night \(night))"
                    library.books[index].comments += "<div>Read again on night \(night).</div>"
                    library.books[index].updatedAt = String(format: "2024-02-%02dT08:00:00.000Z", night % 28 + 1)
                }
            }
            // A book is asked for when it changed: an outage meets the books edited that night.
            let newlyFailing = tonight.failing.subtracting(night > 0 ? plan[night - 1].failing : [])
            server.server.update { library in
                for index in library.books.indices where newlyFailing.contains(library.books[index].id) {
                    library.books[index].updatedAt = String(format: "2024-03-%02dT08:00:00.000Z", night % 28 + 1)
                }
            }
            server.server.setFailingDetails(tonight.failing)
            let run = try await EndToEndTests.export(server, to: output,
                                                     extra: ["--keep", "7", "--history", "--markdown-into", vault.path, "--quiet", "--retries", "0"],
                                                     environment: ["SOURCE_DATE_EPOCH": String(1_700_000_000 + night * 86_400)])
            #expect(run.status == 2, "night \(night): \(run.output)")
            let latest = output.appendingPathComponent("latest").resolvingSymlinksInPath()
            let site = SiteInspector(root: latest)
            let library = try #require(site.data("library.json"), "night \(night)")
            // Nothing lost: every book the server has is there with its note and its cover.
            let books = try #require(try JSONSerialization.jsonObject(with: library) as? [String: Any])["books"] as? [[String: Any]] ?? []
            for book in server.server.library.books where book.id < 125 {
                let entry = try #require(books.first { $0["id"] as? Int == book.id }, "night \(night): book \(book.id) is missing")
                let note = (entry["note"] as? [String: Any])?["markdown"] as? String ?? ""
                if night == 0, !note.isEmpty { withNotes.insert(book.id) }
                #expect(!withNotes.contains(book.id) || !note.isEmpty, "night \(night): book \(book.id)'s note is missing")
                #expect(book.cover == nil || entry["cover"] != nil, "night \(night): book \(book.id)'s cover is missing")
                if let md = site.files().first(where: { $0.hasPrefix("markdown/books/\(book.id)-") }) {
                    let kept = vault.appendingPathComponent("Reader").appendingPathComponent(md)
                    #expect(FileManager.default.fileExists(atPath: kept.path), "night \(night): \(md) is not in the vault")
                }
            }
            // A commit exactly on the nights the library changed; no file rewritten on the others.
            let count = Int(try await HistoryTests.git(historyFolder(of: output), ["rev-list", "--count", "HEAD"]).output) ?? 0
            let changed = library != lastLibrary
            #expect((count > commits) == changed, "night \(night): changed \(changed), commits \(commits) → \(count)")
            if !changed, let lastSnapshot {
                for file in site.files() {
                    let now = try FileManager.default.attributesOfItem(atPath: latest.appendingPathComponent(file).path)[.systemFileNumber] as? Int
                    let then = try? FileManager.default.attributesOfItem(atPath: lastSnapshot.appendingPathComponent(file).path)[.systemFileNumber] as? Int
                    #expect(now == then, "night \(night): \(file) was written again")
                }
            }
            // Output only on nights with news: a new gap, a healed one.
            let news = tonight.failing != (night > 0 ? plan[night - 1].failing : []) || night == 0
            #expect(run.output.isEmpty != news, "night \(night): news \(news), said: \(run.output)")
            commits = count
            lastLibrary = library
            lastSnapshot = latest
        }
        server.server.setFailingDetails([])
        await server.stop()
        #expect(withNotes.count > 20)
        #expect(plan.contains { !$0.failing.isEmpty } && plan.contains { $0.edit } && plan.contains { !$0.edit && $0.failing.isEmpty })
        let snapshots = try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("snapshots").path)
        #expect(snapshots.filter { !$0.hasPrefix(".") }.count == 7, "\(snapshots)")
        // Each dated snapshot holds the timeline of its night: the one before it, with what that
        // night changed added, dated by the night.
        var told: [String] = []
        var renamed = 0
        for day in snapshots.filter({ !$0.hasPrefix(".") }).sorted() {
            let data = try #require(SiteInspector(root: output.appendingPathComponent("snapshots").appendingPathComponent(day)).data("timeline.json"), "\(day)")
            let timeline = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let events = (timeline["events"] as? [[String: Any]] ?? []).map { "\($0["date"] as? String ?? "") \($0["kind"] as? String ?? "") \($0["book"] as? Int ?? 0)" }
            #expect(Array(events.prefix(told.count)) == told, "\(day): the nights before are not as the snapshot before told them")
            let tonight = events.dropFirst(told.count)
            #expect(told.isEmpty || tonight.allSatisfy { $0.hasPrefix(day + " ") }, "\(day): \(tonight)")
            renamed += told.isEmpty ? 0 : tonight.filter { $0.contains(" renamed ") }.count
            told = events
        }
        #expect(renamed > 0, "the kept nights tell no rename: the test would prove nothing")
        #expect(try FileManager.default.attributesOfItem(atPath: output.path)[.posixPermissions] as? Int == 0o750)
        let leaks = TrustTests.filesHolding(TrustTests.privateNeedles(server), under: output)
        #expect(leaks.isEmpty, "\(leaks.prefix(20))")
    }
}

extension SystemRandomNumberGenerator {
    /// SplitMix64: the same numbers for the same seed, on every machine.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
