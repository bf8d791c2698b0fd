import Foundation
import SampleServer
import SampleServerDoubles
import TestSupport
import Testing

/// Nothing lost in everyday use: a forgotten or an extra `--keep` is refused before anything is
/// replaced, the output folder keeps its mode and owner across the swap, and a run stopped by
/// Ctrl-C or SIGTERM says so, removes its staging folder and leaves the last snapshot as it was.
@Suite(.serialized)
struct SnapshotSwapSafetyTests {
    static func export(_ server: RunningSampleServer, to output: URL, extra: [String] = [], day: Int = 0) async throws -> ToolRun {
        try await EndToEndTests.export(server, to: output, extra: extra,
                                       environment: ["SOURCE_DATE_EPOCH": String(1_700_000_000 + day * 86_400)])
    }

    /// The staging folders a run left beside `output`.
    static func stagingFolders(of output: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: output.deletingLastPathComponent().path)
            .filter { $0.hasPrefix(".\(output.lastPathComponent).staging-") }
    }

    /// The files added, removed or changed between two fingerprints of a folder: a short list to print.
    static func changed(_ before: [String: SiteInspector.Fingerprint], _ after: [String: SiteInspector.Fingerprint]) -> [String] {
        Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
    }

    static func mode(_ url: URL) throws -> (permissions: Int, owner: Int, group: Int) {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return ((attributes[.posixPermissions] as? Int) ?? -1, (attributes[.ownerAccountID] as? Int) ?? -1,
                (attributes[.groupOwnerAccountID] as? Int) ?? -1)
    }

    @Test func aRunWithoutKeepRefusesAFolderOfDatedSnapshots() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        for day in 1...2 {
            let run = try await Self.export(server, to: output, extra: ["--keep", "3"], day: day)
            #expect(run.status == 2, "\(run.output)")
        }
        // The dated snapshots, what the user keeps them for (the run's private state is not looked at here).
        let snapshots = output.appendingPathComponent("snapshots")
        let before = SiteInspector(root: snapshots).fingerprints()
        let plain = try await Self.export(server, to: output, day: 3)
        await server.stop()

        #expect(plain.status == 73, "\(plain.output)")
        #expect(plain.stderr.contains("error: \(output.path): cannot write the snapshot: it holds dated snapshots (made with --keep); run with --keep N to add to them, or choose another folder"),
                "\(plain.stderr)")
        let changed = Self.changed(before, SiteInspector(root: snapshots).fingerprints())
        #expect(changed.isEmpty, "the dated snapshots changed: \(changed.prefix(10))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("snapshots").path).sorted()
                == ["2023-11-15", "2023-11-16"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: output.appendingPathComponent("latest").path) == "snapshots/2023-11-16")
        #expect(try Self.stagingFolders(of: output).isEmpty)
    }

    @Test func keepRefusesAFolderHoldingAPlainSnapshot() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        #expect(try await Self.export(server, to: output).status == 2)
        let before = SiteInspector(root: output).fingerprints()
        let dated = try await Self.export(server, to: output, extra: ["--keep", "3"], day: 1)
        await server.stop()

        #expect(dated.status == 73, "\(dated.output)")
        #expect(dated.stderr.contains("error: \(output.path): cannot write the snapshot: it holds a snapshot made without --keep; run without --keep to replace it, or choose another folder"),
                "\(dated.stderr)")
        let changed = Self.changed(before, SiteInspector(root: output).fingerprints())
        #expect(changed.isEmpty, "the snapshot changed: \(changed.prefix(10))")
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("snapshots").path))
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("latest").path))
    }

    /// With `--keep`, tonight's dated snapshot shares yesterday's unchanged files (hard links): a
    /// night that renders writes new files beside them, never into one. Yesterday's snapshot stays
    /// as it was, every file's bytes, inode and time.
    @Test func yesterdaysDatedSnapshotIsAsItWasAfterANightThatRenders() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        #expect(try await Self.export(server, to: output, extra: ["--keep", "3"], day: 1).status == 2)
        let yesterday = output.appendingPathComponent("snapshots/2023-11-15")
        let before = SiteInspector(root: yesterday).fingerprints()
        #expect(before["books/101-pride-and-prejudice.html"] != nil)
        server.server.update { library in
            library.updateBook(id: 101) { $0.comments = "<div>Read again in winter.</div>" }
            library.updateBook(id: 102) { $0.title += " (corrected)" }
        }
        let tonight = try await Self.export(server, to: output, extra: ["--keep", "3"], day: 2)
        await server.stop()
        #expect(tonight.status == 2, "\(tonight.output)")
        let changed = Self.changed(before, SiteInspector(root: yesterday).fingerprints())
        #expect(changed.isEmpty, "yesterday's snapshot changed: \(changed.prefix(10))")
        // The night did render, and did share: the edited page is new, most files are yesterday's.
        let after = SiteInspector(root: output.appendingPathComponent("snapshots/2023-11-16")).fingerprints()
        #expect(after["books/101-pride-and-prejudice.html"]?.bytes != before["books/101-pride-and-prejudice.html"]?.bytes)
        let shared = after.filter { before[$0.key]?.inode == $0.value.inode }.count
        #expect(shared > after.count / 2, "\(shared) of \(after.count) files shared with yesterday's")
    }

    @Test func theOutputKeepsItsModeAndOwnerAcrossTheSwap() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer {
            _ = chmod(folder.path("library").path, 0o755)
            folder.remove()
        }
        let output = folder.path("library")
        #expect(try await Self.export(server, to: output).status == 2)
        // Only root may give a folder to another user: elsewhere the owner is this user's, as before.
        let asRoot = getuid() == 0
        if asRoot { #expect(chown(output.path, 65534, 65534) == 0) }
        let owner = try Self.mode(output)
        for permissions in [0o700, 0o555] {
            #expect(chmod(output.path, mode_t(permissions)) == 0)
            let inode = try FileManager.default.attributesOfItem(atPath: output.path)[.systemFileNumber] as? Int
            // --full renders every page again: a new folder is swapped in, even with nothing changed.
            let run = try await Self.export(server, to: output, extra: ["--full"])
            #expect(run.status == 2, "\(run.output)")
            #expect(try FileManager.default.attributesOfItem(atPath: output.path)[.systemFileNumber] as? Int != inode,
                    "no new folder was swapped in")
            let after = try Self.mode(output)
            #expect(after.permissions == permissions, "mode \(String(after.permissions, radix: 8)) after a swap of a \(String(permissions, radix: 8)) folder")
            #expect(after.owner == owner.owner && after.group == owner.group)
            #expect(try Self.stagingFolders(of: output).isEmpty, "the old snapshot was left beside the output")
        }
        await server.stop()
    }

    /// Starts an export of `server` into `output`, every book asked for again; its output is read
    /// once it ends.
    static func startExport(_ server: RunningSampleServer, to output: URL, extra: [String] = []) throws -> (Process, PipeReader, PipeReader) {
        let process = Process()
        process.executableURL = ToolRunner.executable
        process.arguments = ["export", "--server", server.url, "--email", SampleLibrary.demoEmail, "--output", output.path,
                             "--connect-timeout", ToolRunner.connectTimeout, "--concurrency", "2", "--quiet", "--full"] + extra
        var environment = ProcessInfo.processInfo.environment
        environment["READER_PASSWORD"] = SampleLibrary.demoPassword
        environment["SOURCE_DATE_EPOCH"] = "1700000000"
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let readers = (PipeReader(out), PipeReader(err))
        try process.run()
        return (process, readers.0, readers.1)
    }

    /// One run at a time (a timer's and a manual one overlapping): a second run into the same
    /// folder while the first is at work stops at once with 73, touching neither the last snapshot
    /// nor the first run's staging folder; the first then finishes as if alone.
    @Test func aSecondRunIntoTheSameFolderStopsWith73AndTheFirstFinishes() async throws {
        let held = try await EndToEndTests.startServer(), other = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        #expect(try await Self.export(other, to: output).status == 2)
        let before = SiteInspector(root: output).fingerprints()
        // The first run's fourth request (a book's) waits until the second run is over.
        held.server.doubles.hold(fromAPIRequest: held.server.counters.apiRequests + 4)
        let (first, out, err) = try Self.startExport(held, to: output)
        while try held.server.doubles.waiting == 0 || Self.stagingFolders(of: output).isEmpty, first.isRunning {
            try await Task.sleep(for: .milliseconds(2))
        }
        let staging = try Self.stagingFolders(of: output)
        #expect(first.isRunning && staging.count == 1, "the first run ended before the second began: \(String(decoding: err.wait(), as: UTF8.self))")

        // The second run is not held: without the lock it would write and swap at once.
        let second = try await Self.export(other, to: output)
        #expect(second.status == 73, "\(second.output)")
        #expect(second.stderr.contains("error: \(output.path): cannot write the snapshot: another reader-snapshot run is writing in \(folder.url.standardizedFileURL.path)"),
                "\(second.stderr)")
        #expect(try Self.stagingFolders(of: output) == staging, "the second run touched the first one's staging folder")
        let changed = Self.changed(before, SiteInspector(root: output).fingerprints())
        #expect(changed.isEmpty, "the second run changed the snapshot: \(changed.prefix(10))")

        held.server.doubles.release()
        await ToolRunner.wait(for: first)
        _ = out.wait()
        #expect(first.terminationStatus == 2, "\(String(decoding: err.wait(), as: UTF8.self))")
        #expect(try Self.stagingFolders(of: output).isEmpty)
        #expect(SiteInspector(root: output).text("library.json")?.contains("\"Pride and Prejudice\"") == true)
        await held.stop()
        await other.stop()
    }

    /// The Markdown vault is one run's at a time too: a run that finds it in use (its lock held, as
    /// another run holds it while it writes there) leaves it as it is and ends with 73; the snapshot
    /// itself is written. The lock is held here by the test: the vault is written at the very end of
    /// a run, after the server, where no answer held back can keep a real run there.
    @Test func aRunThatFindsTheMarkdownVaultInUseLeavesItAndEndsWith73() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let vault = folder.path("notes"), kept = vault.appendingPathComponent("Reader")
        let state = kept.appendingPathComponent(".reader-snapshot")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let lock = open(state.path, O_RDONLY | O_DIRECTORY)
        #expect(lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0)
        let run = try await Self.export(server, to: folder.path("library"), extra: ["--markdown-into", vault.path])
        #expect(run.status == 73, "\(run.output)")
        #expect(run.stderr.contains("another reader-snapshot run is writing in this vault"), "\(run.stderr)")
        #expect(SiteInspector(root: kept).files().isEmpty, "the vault in use was written: \(SiteInspector(root: kept).files().prefix(5))")
        #expect(SiteInspector(root: folder.path("library")).text("library.json") != nil)

        flock(lock, LOCK_UN)
        close(lock)
        let again = try await Self.export(server, to: folder.path("library"), extra: ["--markdown-into", vault.path])
        await server.stop()
        #expect(again.status == 2, "\(again.output)")
        #expect(SiteInspector(root: kept).files().contains { $0.hasSuffix(".md") })
    }

    /// A snapshot, a second run of it under way against a slowed server, the signal, and what the
    /// run printed and left.
    static func interruptedRun(by signal: Int32, extra: [String] = []) async throws -> (run: ToolRun, reason: Process.TerminationReason) {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        let first = try await Self.export(server, to: output, extra: extra)
        #expect(first.status == 2, "\(first.output)")
        if extra.contains("--history") {
            #expect(FileManager.default.fileExists(atPath: historyFolder(of: output).appendingPathComponent("HEAD").path), "no history to keep")
        }
        let before = SiteInspector(root: output).fingerprints()
        let historyBefore = SiteInspector(root: historyFolder(of: output)).fingerprints()
        server.server.doubles.setLatency(.milliseconds(60))
        let requestsBefore = server.server.counters.apiRequests
        // Its fourth request (a book's, after the login, the shelves and the list) waits for the signal.
        server.server.doubles.hold(fromAPIRequest: requestsBefore + 4)

        let (process, outData, errData) = try Self.startExport(server, to: output, extra: extra)
        // Signalled once the run is at work: logged in, its staging folder made, books being read
        // (held there until the signal: no time bound is needed, the run cannot get further).
        while try server.server.doubles.waiting == 0 || Self.stagingFolders(of: output).isEmpty, process.isRunning {
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(process.isRunning, "the export ended before it could be signalled")
        #expect(try !Self.stagingFolders(of: output).isEmpty, "the run had no staging folder to remove")
        kill(process.processIdentifier, signal)
        await ToolRunner.wait(for: process)
        server.server.doubles.release()
        await server.stop()
        let run = ToolRun(status: process.terminationStatus, stdout: String(decoding: outData.wait(), as: UTF8.self),
                          stderr: String(decoding: errData.wait(), as: UTF8.self))

        #expect(run.stderr.contains("error: interrupted; the last snapshot is kept"), "\(run.stderr)")
        #expect(try Self.stagingFolders(of: output).isEmpty, "the staging folder was left")
        let changed = Self.changed(before, SiteInspector(root: output).fingerprints())
        #expect(changed.isEmpty, "the last snapshot changed: \(changed.prefix(10))")
        let historyChanged = Self.changed(historyBefore, SiteInspector(root: historyFolder(of: output)).fingerprints())
        #expect(historyChanged.isEmpty, "the history changed: \(historyChanged.prefix(10))")
        return (run, process.terminationReason)
    }

    @Test func ctrlCEndsTheRunWith130AndKeepsTheLastSnapshot() async throws {
        // With --metrics-file: the stopped run says so there too, and keeps the first run's success.
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let metrics = folder.path("reader-snapshot.prom")
        let (run, reason) = try await Self.interruptedRun(by: SIGINT, extra: ["--metrics-file", metrics.path])
        #expect(reason == .exit, "the signal ended the process before the tool could")
        #expect(run.status == 130, "\(run.output)")
        let written = try String(contentsOf: metrics, encoding: .utf8)
        #expect(written.contains("\nreader_snapshot_run_exit_code{output=\""), "\(written)")
        #expect(written.contains("} 130.0\n") || written.contains("} 130\n"), "\(written)")
        #expect(written.contains("\nreader_snapshot_last_success_timestamp_seconds{"), "\(written)")
        #expect(written.contains("\nreader_snapshot_books{"), "\(written)")
    }

    @Test func sigtermEndsTheRunWith143AndKeepsTheLastSnapshotAndItsHistory() async throws {
        // With --history: the output's .git is part of what must be left as it was.
        let (run, reason) = try await Self.interruptedRun(by: SIGTERM, extra: ["--history"])
        #expect(reason == .exit, "the signal ended the process before the tool could")
        #expect(run.status == 143, "\(run.output)")
    }
}
