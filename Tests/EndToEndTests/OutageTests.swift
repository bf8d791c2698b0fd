import Foundation
import SampleServer
import SampleServerDoubles
import TestSupport
import Testing

/// A server that stops answering in the middle of a crawl — stopped, or hung — ends the run with
/// exit 69 once its watch finds the outage, nothing written, the last snapshot as it was, and a
/// message that says how far the crawl got. Not "written with gaps", which a nightly unit takes as
/// success.
///
/// No time is bounded here: how soon the watch decides (20 s of silence) is ServerWatchTests', with
/// a clock of their own, and a busy machine only makes a run slower. Here the run is held to what it
/// says and to the requests it sent, which no machine's speed changes: the watch counted every
/// request after the outage, and once it decided, no request left but those already under way.
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

    /// The API request of the night at which the server goes: well into the books' details.
    static let goneAt = 120

    /// The watch's silence before an outage (`ServerWatch.bound`), in the whole seconds it says.
    static let watchBound = 20

    /// A `--full` night during which the server went, and what the run and the server counted.
    struct Night {
        var run: ToolRun
        /// Requests the run sent (its metrics file), the night's first `goneAt - 1` answered among them.
        var sent: Int
        /// API requests that reached the server from the one it went at on.
        var arrivedSinceOutage: Int
        /// The files of the last snapshot that changed.
        var changed: [String]

        /// What the run said of the watch's decision: the silence, in whole seconds, and the
        /// requests in a row that went unanswered.
        var told: (silence: Int, unanswered: Int)? {
            guard let silence = SiteInspector.matches(of: #"nothing heard from it for ([0-9]+) s, "#, in: run.stderr).first.flatMap({ Int($0) }),
                  let unanswered = SiteInspector.matches(of: #"nothing heard from it for [0-9]+ s, ([0-9]+) requests in a row"#, in: run.stderr)
                    .first.flatMap({ Int($0) }) else { return nil }
            return (silence, unanswered)
        }
    }

    /// A first night, then a `--full` night during which the server goes at the `goneAt`th API
    /// request of it.
    static func night(with outage: Outage, extra: [String] = []) async throws -> Night {
        let server = try await startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("out")
        let metrics = folder.path("reader-snapshot.prom")
        // No covers: the run's count of requests is then the API's alone, as the server's is.
        let options = ["--format", "html,json", "--no-covers", "--metrics-file", metrics.path]
        let first = try await EndToEndTests.export(server, to: output, extra: options)
        // Written with gaps: the synthetic library has books on deleted shelves, whose details fail.
        #expect(first.status == 2, "\(first.output)")
        // Every request the run counts is one the server counts: what the server answered before
        // it went can stand for the run's requests before the outage.
        let beforeNight = server.server.counters.apiRequests
        #expect(try MetricsFileTests.values(metrics)["reader_snapshot_run_requests"] == Double(beforeNight))
        let before = SiteInspector(root: output).fingerprints()

        // The server decides as the request arrives that it is gone, so that a test late on a
        // busy machine cannot let the crawl finish first.
        let mark = beforeNight + goneAt
        switch outage {
        case .stopped: server.server.doubles.stop(server, atAPIRequest: mark)
        case .hung: server.server.doubles.hang(fromAPIRequest: mark)
        }
        let run = try await EndToEndTests.export(server, to: output, extra: options + ["--full"] + extra)
        await server.stop()
        #expect(server.server.doubles.wentAt != nil, "the run ended before the server went: \(run.output)")
        let sent = Int(try #require(try MetricsFileTests.values(metrics)["reader_snapshot_run_requests"], "\(run.output)"))
        let night = Night(run: run, sent: sent, arrivedSinceOutage: server.server.counters.apiRequests - (mark - 1),
                          changed: SnapshotSwapSafetyTests.changed(before, SiteInspector(root: output).fingerprints()))
        print("\(outage): \(sent) requests sent, \(night.arrivedSinceOutage) reached the server after it went; the run said: \(night.told.map { "\($0)" } ?? "nothing")")
        return night
    }

    static func expectOutageTold(_ run: ToolRun) {
        #expect(run.status == 69, "\(run.output)")
        #expect(run.stderr.contains("error: the server stopped answering during the crawl ("), "\(run.stderr)")
        #expect(run.stderr.contains(" of 600 books read; nothing heard from it for "), "\(run.stderr)")
        #expect(run.stderr.contains("; the last snapshot is kept"), "\(run.stderr)")
        #expect(!run.stderr.contains("with gaps"), "\(run.stderr)")
    }

    @Test func aServerStoppedMidCrawlEndsTheRunWith69AndKeepsTheLastSnapshot() async throws {
        // One request at a time, so that nothing the server was still answering when it went can
        // come back after the first refusal: every request after the outage goes unanswered, in a row.
        let night = try await Self.night(with: .stopped, extra: ["--concurrency", "1"])
        Self.expectOutageTold(night.run)
        #expect(night.run.stderr.contains("connection refused") || night.run.stderr.contains("could not connect")
                || night.run.stderr.contains("closed the connection"), "\(night.run.stderr)")
        let told = try #require(night.told, "\(night.run.stderr)")
        // Found by the watch's bound, not by the end of the crawl, which would find it sooner.
        #expect(told.silence >= Self.watchBound && told.unanswered >= 3, "\(night.run.stderr)")
        // The requests after the outage are exactly those the watch counted: each one went to it,
        // and none was sent once it decided (not the next book's, not a retry).
        #expect(night.sent - (Self.goneAt - 1) == told.unanswered, "sent \(night.sent): \(night.run.stderr)")
        #expect(night.changed.isEmpty, "the last snapshot changed: \(night.changed.prefix(10))")
    }

    /// At most this many requests in flight in the hung night: the tool's default, given on the
    /// command line so that the count below does not rest on what the default is.
    static let concurrency = 8

    @Test func aServerThatHangsMidCrawlEndsTheRunWith69() async throws {
        // Found when its requests time out, at least 20 s after its last answer.
        let night = try await Self.night(with: .hung, extra: ["--timeout", "10", "--concurrency", String(Self.concurrency)])
        Self.expectOutageTold(night.run)
        #expect(night.run.stderr.contains("timed out"), "\(night.run.stderr)")
        let told = try #require(night.told, "\(night.run.stderr)")
        #expect(told.silence >= Self.watchBound && told.unanswered >= 3, "\(night.run.stderr)")
        // A hung server still takes every request, so the server counts them. The answers to those
        // under way when it went all came before the first timeout (each was sent before the outage
        // and waited at most the same 10 s), so nothing broke the watch's count: the requests that
        // reached it after it went are those the watch counted, and those under way beside the one
        // that decided. None was sent after.
        #expect(night.arrivedSinceOutage >= told.unanswered && night.arrivedSinceOutage <= told.unanswered + Self.concurrency - 1,
                "\(night.arrivedSinceOutage) requests after the outage: \(night.run.stderr)")
        #expect(night.changed.isEmpty, "the last snapshot changed: \(night.changed.prefix(10))")
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
