import Foundation
import SampleServer
import SampleServerDoubles
import TestSupport
import Testing

/// A server that stops answering in the middle of a crawl — stopped, or hung — ends the run with
/// exit 69 within the documented bound, nothing written, the last snapshot as it was, and a message
/// that says how far the crawl got. Not "written with gaps", which a nightly unit takes as success.
@Suite(.serialized)
struct OutageTests {
    static func startServer() async throws -> RunningSampleServer {
        var options = SampleServer.Options()
        options.loginDelay = .zero
        // Each answer takes a while, so that the crawl is under way when the server goes.
        options.conditions = ServerDoubles(.init(latency: .milliseconds(40)))
        return try await SampleServer(library: try SampleLibrary.synthetic(books: 600, seed: 45), options: options).start()
    }

    enum Outage { case stopped, hung }

    /// How long after the outage a run must have ended, counted from the request the server went
    /// at to the tool's exit: 20 s of silence, and the next request's failure.
    static let bound: Duration = .seconds(30)

    /// A first night, then a `--full` night during which the server goes at the 120th API request
    /// of it: the run's result, and how long it took after the outage.
    static func night(with outage: Outage, extra: [String] = []) async throws -> (run: ToolRun, afterOutage: Duration, changed: [String]) {
        let server = try await startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("out")
        let first = try await EndToEndTests.export(server, to: output, extra: ["--format", "html,json", "--no-thumbnails"])
        // Written with gaps: the synthetic library has books on deleted shelves, whose details fail.
        #expect(first.status == 2, "\(first.output)")
        let before = SiteInspector(root: output).fingerprints()

        // Well into the books' details, the server goes: it decides so itself as the request
        // arrives, so that a test late on a busy machine cannot let the crawl finish first.
        let mark = server.server.counters.apiRequests + 120
        switch outage {
        case .stopped: server.server.doubles.stop(server, atAPIRequest: mark)
        case .hung: server.server.doubles.hang(fromAPIRequest: mark)
        }
        let run = try await EndToEndTests.export(server, to: output, extra: ["--format", "html,json", "--no-thumbnails", "--full"] + extra)
        await server.stop()
        let wentAt = try #require(server.server.doubles.wentAt, "the run ended before the server went: \(run.output)")
        // The outage begins with the server's last answer: the requests it was already answering
        // when it went were still answered (on a busy machine, seconds later).
        let lastAnswer = max(wentAt, server.server.doubles.lastAnswerAt ?? wentAt)
        let afterOutage = run.ended - lastAnswer
        let changed = SnapshotSwapSafetyTests.changed(before, SiteInspector(root: output).fingerprints())
        print("\(outage): the run ended \(afterOutage) after the outage (its last answer \(lastAnswer - wentAt) after it went)")
        return (run, afterOutage, changed)
    }

    static func expectOutageTold(_ run: ToolRun) {
        #expect(run.status == 69, "\(run.output)")
        #expect(run.stderr.contains("error: the server stopped answering during the crawl ("), "\(run.stderr)")
        #expect(run.stderr.contains(" of 600 books read; nothing heard from it for "), "\(run.stderr)")
        #expect(run.stderr.contains("; the last snapshot is kept"), "\(run.stderr)")
        #expect(!run.stderr.contains("with gaps"), "\(run.stderr)")
    }

    @Test func aServerStoppedMidCrawlEndsTheRunWith69AndKeepsTheLastSnapshot() async throws {
        let (run, afterOutage, changed) = try await Self.night(with: .stopped)
        Self.expectOutageTold(run)
        #expect(run.stderr.contains("connection refused") || run.stderr.contains("could not connect")
                || run.stderr.contains("closed the connection"), "\(run.stderr)")
        // ServerWatchTests decide the 20 s without a clock; here the run as a whole keeps to it.
        #expect(afterOutage < Self.bound, "\(afterOutage): \(run.stderr)")
        #expect(changed.isEmpty, "the last snapshot changed: \(changed.prefix(10))")
    }

    @Test func aServerThatHangsMidCrawlEndsTheRunWith69() async throws {
        // Found when its requests time out, at least 20 s after its last answer.
        let (run, afterOutage, changed) = try await Self.night(with: .hung, extra: ["--timeout", "10"])
        Self.expectOutageTold(run)
        #expect(run.stderr.contains("timed out"), "\(run.stderr)")
        #expect(afterOutage < Self.bound, "\(afterOutage): \(run.stderr)")
        #expect(changed.isEmpty, "the last snapshot changed: \(changed.prefix(10))")
    }

    @Test func aLoginThatHangsSaysHowLongItWaitedAndHowOftenItTried() async throws {
        let server = try await EndToEndTests.startServer()
        server.server.doubles.hang()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let run = try await EndToEndTests.export(server, to: folder.path("out"), extra: ["--timeout", "2"])
        await server.stop()
        #expect(run.status == 69, "\(run.output)")
        #expect(run.stderr.contains("POST /api/v1/sessions: timed out (5 tries in "), "\(run.stderr)")
    }
}
