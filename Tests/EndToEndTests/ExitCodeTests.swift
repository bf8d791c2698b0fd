import Foundation
import SampleServer
import TestSupport
import Testing

/// The exit codes the other suites do not reach, each from the command that gives it: a night
/// with gaps whose upload fails must not come out as 2 (the units count 2 as success), a publish
/// or a render stopped by a signal says so and deletes nothing, and git missing is 1.
@Suite(.serialized)
struct ExitCodeTests {
    static func exitCode(in metrics: URL) throws -> Double? {
        try MetricsFileTests.values(metrics)["reader_snapshot_run_exit_code"]
    }

    /// `export --publish`: the sample library's gaps (2) and a publish that fails, three ways.
    @Test func aNightWithGapsWhosePublishFailsEndsWithThePublishsCodeAndTheMetricsSaySo() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("books"), metrics = folder.path("reader-snapshot.prom")
        func night(_ extra: [String], _ environment: [String: String]) async throws -> ToolRun {
            try await EndToEndTests.export(server, to: output, extra: ["--metrics-file", metrics.path] + extra,
                                           environment: environment, removing: PublishHost.removing)
        }

        // 68: a remote rclone does not know.
        let unknown = try await night(["--publish", "nosuch:site"], ["RCLONE_CONFIG": "/nonexistent/rclone.conf"])
        #expect(unknown.status == 68 && unknown.stderr.contains("no remote named 'nosuch'"), "\(unknown.output)")
        #expect(try Self.exitCode(in: metrics) == 68)

        // 74: a host that refuses every write; its old file is not deleted.
        let requests = PublishHost.Requests()
        let refusing = try await PublishHost.refusingWrites(requests: requests)
        let refused = try await night(["--publish", "\(refusing.remote):site"], refusing.environment)
        await refusing.stop()
        #expect(refused.status == 74 && refused.stderr.contains("Nothing was deleted on the host"), "\(refused.output)")
        #expect(requests["PUT"] > 0 && requests["DELETE /site/old.html"] == 0)
        #expect(try Self.exitCode(in: metrics) == 74)
        #expect(SiteInspector(root: output).text("library.json") != nil, "the night's snapshot is written all the same")

        // 65: a folder of this machine with more files of its own than --max-deletes lets go.
        let host = folder.path("host")
        try FileManager.default.createDirectory(at: host, withIntermediateDirectories: true)
        for number in 1...5 { try Data("mine".utf8).write(to: host.appendingPathComponent("mine-\(number).txt")) }
        let tooMany = try await night(["--publish", host.path, "--max-deletes", "2"], [:])
        await server.stop()
        #expect(tooMany.status == 65 && tooMany.stderr.contains("more than --max-deletes 2 allows"), "\(tooMany.output)")
        #expect(try Self.exitCode(in: metrics) == 65)
        #expect(try FileManager.default.contentsOfDirectory(atPath: host.path).sorted() == (1...5).map { "mine-\($0).txt" })
    }

    /// `publish` stopped by SIGTERM (systemctl stop) or Ctrl-C once the uploads are going: 143 or
    /// 130, and nothing deleted on the host, whose file of its own is still there.
    @Test func aPublishStoppedBySigtermOrCtrlCEndsWith143Or130AndDeletesNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("books"), served = folder.path("dav")
        try FileManager.default.createDirectory(at: served.appendingPathComponent("site"), withIntermediateDirectories: true)
        try Data("old".utf8).write(to: served.appendingPathComponent("site/old.html"))
        #expect(try await PublishCommandTests.exportBundled(to: output).status == 2)
        let host = try await PublishHost.webdav(serving: served)
        for (signal, code) in [(SIGTERM, Int32(143)), (SIGINT, Int32(130))] {
            try? FileManager.default.removeItem(at: folder.path("bookPagesGoing"))
            let (process, pipe, said) = try PublishCommandTests.startPublish(output, to: "\(host.remote):site", host: host, in: folder)
            try await PublishCommandTests.waitForTheBookPages(of: process, in: folder)
            kill(process.processIdentifier, signal)
            await ToolRunner.wait(for: process)
            pipe.fileHandleForReading.readabilityHandler = nil
            #expect(process.terminationReason == .exit && process.terminationStatus == code, "signal \(signal): \(said.text)")
            #expect(FileManager.default.fileExists(atPath: served.appendingPathComponent("site/old.html").path), "signal \(signal): a file was deleted on the host")
        }
        await host.stop()
    }

    /// `render` stopped by SIGTERM or Ctrl-C while it writes: 143 or 130, its staging folder gone,
    /// and the copy it was replacing as it was.
    @Test func aRenderStoppedBySigtermOrCtrlCEndsWith143Or130AndLeavesTheOutputAsItWas() async throws {
        let server = try await HistoryTests.startServer(books: 400, seed: 5)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let snapshot = folder.path("snapshot"), friends = folder.path("friends")
        #expect(try await EndToEndTests.export(server, to: snapshot, extra: ["--quiet"]).status == 0)
        await server.stop()
        #expect(try await ToolRunner.run(["render", "--from", snapshot.path, "--output", friends.path, "--no-notes"]).status == 0)
        let before = SiteInspector(root: friends).fingerprints()
        func staging() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.url.path)) ?? []).filter { $0.hasPrefix(".friends.staging-") }
        }
        for (signal, code) in [(SIGTERM, Int32(143)), (SIGINT, Int32(130))] {
            let process = Process()
            process.executableURL = ToolRunner.executable
            process.arguments = ["render", "--from", snapshot.path, "--output", friends.path, "--no-notes", "--language", "de"]
            let err = Pipe()
            process.standardError = err
            process.standardOutput = FileHandle.nullDevice
            let said = PipeReader(err)
            try process.run()
            while staging().isEmpty, process.isRunning { try await Task.sleep(for: .milliseconds(1)) }
            kill(process.processIdentifier, signal)
            await ToolRunner.wait(for: process)
            let text = String(decoding: said.wait(), as: UTF8.self)
            #expect(process.terminationReason == .exit && process.terminationStatus == code, "signal \(signal): \(text)")
            #expect(text.contains("error: interrupted; the last snapshot is kept"), "\(text)")
            #expect(staging().isEmpty, "signal \(signal): the staging folder was left")
            let changed = SnapshotSwapSafetyTests.changed(before, SiteInspector(root: friends).fingerprints())
            #expect(changed.isEmpty, "signal \(signal): the copy changed: \(changed.prefix(5))")
        }
    }

    /// 1, "any other failure": `history --book` without git to read the history's note diffs with
    /// (the timeline alone needs none).
    @Test func historyWithoutGitEndsWith1AndSaysSo() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("books")
        let night = try await EndToEndTests.export(server, to: output, extra: ["--history"])
        await server.stop()
        #expect(night.status == 2, "\(night.output)")
        let timeline = try await ToolRunner.run(["history", output.path], environment: ["PATH": "/nonexistent"])
        #expect(timeline.status == 0 && timeline.stdout.contains("Pride and Prejudice: added on"), "\(timeline.output)")
        let run = try await ToolRunner.run(["history", output.path, "--book", "101"], environment: ["PATH": "/nonexistent"])
        #expect(run.status == 1, "\(run.output)")
        #expect(run.stderr.contains("git could not be run") && run.stderr.contains("--history needs git on the PATH"), "\(run.output)")
    }
}
