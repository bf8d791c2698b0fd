import Foundation
import SampleServer
import TestSupport
import Testing

/// A run killed outright (SIGKILL: no handler runs, nothing is cleaned up) at a random point of its
/// render, or right after its swap, leaves one whole snapshot in place, last night's or tonight's,
/// and the next run, finding what it left, writes what an uninterrupted night writes.
@Suite(.serialized)
struct KillsDuringTheNightTests {
    static let books = 400
    static let night = ["SOURCE_DATE_EPOCH": "1700086400"]

    /// Every file of a snapshot by path, with its bytes: what a reader of it sees.
    static func contents(_ folder: URL) -> [String: Data] { SiteInspector(root: folder).contents() }

    /// What a killed run may leave beside `output`: its staging folder, a snapshot set aside.
    static func leftovers(beside output: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: output.deletingLastPathComponent().path)
            .filter { $0.hasPrefix(".\(output.lastPathComponent).staging-") || $0.hasPrefix(".\(output.lastPathComponent).previous-") }
    }

    /// Where a run is killed: once its staging folder holds `pages` book pages, or as soon as the
    /// output is the new snapshot (the swap's exchange done; the old one being removed, the state
    /// being written).
    enum Point: CustomStringConvertible {
        case render(pages: Int)
        case afterTheExchange
        var description: String {
            switch self {
            case .render(let pages): return "in the render, at \(pages) book pages"
            case .afterTheExchange: return "right after the swap's exchange"
            }
        }
    }

    static func inode(_ url: URL) -> UInt64? {
        var info = stat()
        return lstat(url.path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    static func pages(inStagingOf output: URL) -> Int {
        guard let staging = try? leftovers(beside: output).first(where: { $0.contains(".staging-") }) else { return 0 }
        let books = output.deletingLastPathComponent().appendingPathComponent(staging).appendingPathComponent("books")
        return (try? FileManager.default.contentsOfDirectory(atPath: books.path).count) ?? 0
    }

    /// Waits until the process `pid` is stopped (its state in /proc is T), or gone.
    static func waitUntilStopped(_ pid: Int32) {
        while let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")"), let state = stat[stat.index(after: close)...].split(separator: " ").first,
              state != "T", state != "t", state != "Z" {
            usleep(50)
        }
    }

    /// Runs tonight's export into `output` and kills it at `point`; false if it ended first.
    static func kill(_ server: RunningSampleServer, into output: URL, at point: Point) async throws -> Bool {
        let process = Process()
        process.executableURL = ToolRunner.executable
        process.arguments = ["export", "--server", server.url, "--email", SampleLibrary.demoEmail, "--output", output.path,
                             "--connect-timeout", ToolRunner.connectTimeout, "--quiet"]
        process.environment = ProcessInfo.processInfo.environment.merging(night.merging(["READER_PASSWORD": SampleLibrary.demoPassword]) { $1 }) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let before = inode(output)
        try process.run()
        let pid = process.processIdentifier
        // The run goes on in short steps and is stopped (SIGSTOP) while it is looked at: however
        // busy the machine, it cannot be carried past the point between two looks. The steps are
        // short once its render has begun (its staging folder has books/).
        while process.isRunning {
            Foundation.kill(pid, SIGSTOP)
            Self.waitUntilStopped(pid)
            let reached: Bool
            switch point {
            case .render(let pages): reached = Self.pages(inStagingOf: output) >= pages
            case .afterTheExchange: reached = inode(output) != before
            }
            if reached { break }
            let rendering = Self.pages(inStagingOf: output) > 0
            Foundation.kill(pid, SIGCONT)
            usleep(rendering ? 300 : 5_000)
        }
        let killed = process.isRunning
        // A render point is before the swap: a step that went past it is not that point.
        var pastTheSwap = false
        if case .render = point { pastTheSwap = inode(output) != before }
        Foundation.kill(pid, SIGKILL)
        await ToolRunner.wait(for: process)
        return killed && !pastTheSwap && process.terminationReason == .uncaughtSignal
    }

    @Test func aRunKilledInItsRenderOrItsSwapLeavesOneWholeSnapshotAndTheNextRunWritesTheUninterruptedNight() async throws {
        let seed = UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed)
        let points: [Point] = [.render(pages: Int.random(in: 1..<Self.books / 2, using: &random)),
                               .render(pages: Int.random(in: Self.books / 2..<Self.books, using: &random)), .afterTheExchange]
        let server = try await HistoryTests.startServer(books: Self.books, seed: 11)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Last night, in a folder for each kill and one for the uninterrupted night.
        let reference = folder.path("reference"), outputs = points.indices.map { folder.path("killed-\($0)") }
        for output in [reference] + outputs {
            let run = try await EndToEndTests.export(server, to: output, extra: ["--quiet"], environment: ["SOURCE_DATE_EPOCH": "1700000000"])
            #expect(run.status == 0, "\(run.output)")
        }
        let lastNight = Self.contents(reference)
        // Tonight: a note written, a title corrected, a book moved; the pages of the rest linked.
        let ids = Array(server.server.library.books.map(\.id).prefix(3))
        let shelves = server.server.library.shelves.map(\.id)
        server.server.update { library in
            library.updateBook(id: ids[0]) { $0.comments = "<div>Written tonight.</div>" }
            library.updateBook(id: ids[1]) { $0.title += " (corrected)" }
            library.updateBook(id: ids[2]) { book in book.shelfID = shelves.first { $0 != book.shelfID } ?? book.shelfID }
        }
        let uninterrupted = try await EndToEndTests.export(server, to: reference, extra: ["--quiet"], environment: Self.night)
        #expect(uninterrupted.status == 0, "\(uninterrupted.output)")
        let tonight = Self.contents(reference)
        #expect(tonight != lastNight && tonight.count > Self.books)

        for (point, output) in zip(points, outputs) {
            let said = "seed \(seed), killed \(point)"
            #expect(try await Self.kill(server, into: output, at: point), "\(said): the run ended before it was killed")
            // One whole snapshot in place, whichever the kill left.
            let left = Self.contents(output)
            // Compared as booleans: a failure names the files that differ, not every file's bytes.
            let isLastNight = left == lastNight, isTonight = left == tonight
            let differing = { (other: [String: Data]) in Set(left.keys).union(other.keys).filter { left[$0] != other[$0] }.sorted().prefix(5) }
            #expect(isLastNight || isTonight, "\(said): the snapshot in place is neither night's whole: \(differing(lastNight)) from last night's")
            if case .render = point { #expect(isLastNight, "\(said): a kill before the swap left tonight's files in place: \(differing(lastNight))") }
            // The next run clears what the killed one left, and writes tonight's snapshot as it is uninterrupted.
            let next = try await EndToEndTests.export(server, to: output, extra: ["--quiet"], environment: Self.night)
            #expect(next.status == 0, "\(said): \(next.output)")
            let written = Self.contents(output)
            let differ = Set(written.keys).union(tonight.keys).filter { written[$0] != tonight[$0] }.sorted()
            #expect(differ.isEmpty, "\(said): the next run differs from the uninterrupted night in \(differ.prefix(5))")
            let leftovers = try Self.leftovers(beside: output)
            #expect(leftovers.isEmpty, "\(said): left \(leftovers)")
        }
        await server.stop()
    }
}
