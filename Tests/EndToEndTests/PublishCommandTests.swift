import Foundation
import SampleServer
import TestSupport
import Testing

/// `publish` and `export --publish` against real hosts on loopback, through rclone: an S3 API
/// (moto's server), a WebDAV server (rclone's own), one that refuses writes, and one not there.
@Suite(.serialized)
struct PublishCommandTests {
    /// A snapshot of the bundled library, exported from the sample server.
    static func exportBundled(to output: URL, extra: [String] = [], environment: [String: String] = [:],
                              server: RunningSampleServer? = nil) async throws -> ToolRun {
        let running: RunningSampleServer
        if let server { running = server } else { running = try await EndToEndTests.startServer() }
        let run = try await EndToEndTests.export(running, to: output, extra: extra,
                                                 environment: NightlyTests.epoch.merging(environment) { _, new in new },
                                                 removing: PublishHost.removing)
        if server == nil { await running.stop() }
        return run
    }

    static func count(_ word: String, in output: String) -> Int? {
        guard let range = output.range(of: #"(\d+) "# + word, options: .regularExpression) else { return nil }
        return Int(output[range].split(separator: " ")[0])
    }

    @Test func aFirstPublishIsTheSnapshotsVisitorFilesByteForByteAndASecondSendsNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("books")
        #expect(try await Self.exportBundled(to: output).status == 2)
        let host = try await PublishHost.s3()
        do {
            let first = try await host.run(["publish", output.path, "\(host.remote):site/books"])
            #expect(first.status == 0, "\(first.output)")
            let local = SiteInspector(root: output).contents()
            #expect(first.stderr.contains("Published: \(local.count) uploaded, 0 deleted, 0 unchanged"), "\(first.output)")
            // In the order a live site needs: what pages link before the pages, the index last.
            let waves = ["covers, thumbnails and assets", "book pages", "shelf, author and year pages", "the index, lists, feeds"]
                .map { first.stderr.range(of: $0)?.lowerBound }
            #expect(waves.allSatisfy { $0 != nil } && waves.map { $0! } == waves.map { $0! }.sorted(), "\(first.output)")

            let remote = try await host.files(under: "site/books")
            #expect(remote.keys.sorted() == local.keys.sorted())
            #expect(remote == local, "the host holds the snapshot's bytes")
            // What is private never leaves the machine: no hidden file, no state, no login, no server.
            #expect(!remote.keys.contains { $0.hasPrefix(".") || $0.contains("/.") })
            for (path, bytes) in remote {
                let text = String(decoding: bytes, as: UTF8.self)
                #expect(!text.contains(SampleLibrary.demoEmail) && !text.contains("127.0.0.1:"), "\(path)")
            }
            // Headers by kind: a page changes any night, a cover never under its name.
            let page = try await host.rclone(["lsjson", "-M", "\(host.remote):site/books/index.html"])
            #expect(page.contains(#""content-type":"text/html; charset=utf-8""#) && page.contains(#""cache-control":"public, max-age=300""#), "\(page)")
            let cover = try #require(local.keys.first { $0.hasPrefix("covers/") && $0.hasSuffix("-192.jpg") })
            let coverHeaders = try await host.rclone(["lsjson", "-M", "\(host.remote):site/books/\(cover)"])
            #expect(coverHeaders.contains("immutable") && coverHeaders.contains(#""content-type":"image/jpeg""#), "\(coverHeaders)")
            let feed = try await host.rclone(["lsjson", "-M", "\(host.remote):site/books/opds/index.xml"])
            #expect(feed.contains("application/atom+xml;profile=opds-catalog;kind=navigation"), "\(feed)")

            let second = try await host.run(["publish", output.path, "\(host.remote):site/books"])
            #expect(second.status == 0 && second.stderr.contains("Published: 0 uploaded, 0 deleted, \(local.count) unchanged, 0 B"), "\(second.output)")
            let quiet = try await host.run(["publish", output.path, "\(host.remote):site/books", "--quiet"])
            #expect(quiet.status == 0 && quiet.output.isEmpty, "\(quiet.output)")
        } catch {
            await host.stop()
            throw error
        }
        await host.stop()
    }

    @Test func nightlyExportWithPublishSendsOnlyWhatChangedAndNothingOnAQuietNight() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("books")
        let server = try await EndToEndTests.startServer()
        let host = try await PublishHost.s3()
        do {
            let publish = ["--publish", "\(host.remote):site/books"]
            let first = try await Self.exportBundled(to: output, extra: publish, environment: host.environment, server: server)
            #expect(first.status == 2, "\(first.output)")
            #expect(first.stderr.contains("Published: \(SiteInspector(root: output).contents().count) uploaded"), "\(first.output)")

            let quiet = try await Self.exportBundled(to: output, extra: publish + ["--quiet"], environment: host.environment, server: server)
            #expect(quiet.status == 2 && !quiet.output.contains("Publish"), "\(quiet.output)")
            let second = try await Self.exportBundled(to: output, extra: publish + ["--verbose"], environment: host.environment, server: server)
            #expect(second.stderr.contains("Publish: nothing new since the last publish"), "\(second.output)")
            // The night's last step, timed like the others.
            let steps = SiteInspector.matches(of: #"Time: ([a-z ()']+): [0-9.]+ s"#, in: second.output)
            #expect(steps.last == "publish" && steps.contains("swap it into place"), "\(steps)")

            let before = SiteInspector(root: output).contents()
            server.server.update { library in
                library.updateBook(id: 101) { $0.comments = "<div class=\"trix-content\">\n  <div>Read again in winter.</div>\n</div>\n" }
                library.books.removeAll { $0.id == 103 }
            }
            let edited = try await Self.exportBundled(to: output, extra: publish, environment: host.environment, server: server)
            let after = SiteInspector(root: output).contents()
            let changed = after.filter { before[$0.key] != $0.value }.count
            let gone = before.keys.filter { after[$0] == nil }.count
            #expect(changed > 0 && gone > 0)
            #expect(edited.stderr.contains("Published: \(changed) uploaded, \(gone) deleted, \(after.count - changed) unchanged"), "\(edited.output)")
            #expect(try await host.files(under: "site/books") == after)
        } catch {
            await server.stop()
            await host.stop()
            throw error
        }
        await server.stop()
        await host.stop()
    }

    @Test func aPublishKilledMidwayIsFinishedByTheNextAndTheHostEqualsTheSnapshot() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("books"), served = folder.path("dav")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        #expect(try await Self.exportBundled(to: output).status == 2)
        let host = try await PublishHost.webdav(serving: served)
        do {
            // Killed as a power cut would: the tool and its rclone, once the book pages are going up.
            let (process, pipe, said) = try Self.startPublish(output, to: "\(host.remote):site", host: host, in: folder)
            try await Self.waitForTheBookPages(of: process, in: folder)
            // Every thread's children: rclone is started from a thread of the concurrency pool, not the main one.
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/task")) ?? []
            let children = tasks.compactMap { try? String(contentsOfFile: "/proc/\(process.processIdentifier)/task/\($0)/children", encoding: .utf8) }
                .joined(separator: " ").split(separator: " ").compactMap { Int32($0) }
            #expect(!children.isEmpty, "no rclone was found to kill with the tool")
            kill(process.processIdentifier, SIGKILL)
            for child in children { kill(child, SIGKILL) }
            await ToolRunner.wait(for: process)
            pipe.fileHandleForReading.readabilityHandler = nil
            #expect(process.terminationReason == .uncaughtSignal, "the publish ended before it was killed: \(said.text)")
            let local = SiteInspector(root: output).contents()
            #expect(try await host.files(under: "site") != local, "the kill left the host half done")

            let again = try await host.run(["publish", output.path, "\(host.remote):site"])
            #expect(again.status == 0, "\(again.output)")
            #expect(try await host.files(under: "site") == local)
            let once = try await host.run(["publish", output.path, "\(host.remote):site"])
            #expect(once.stderr.contains("Published: 0 uploaded, 0 deleted, \(local.count) unchanged"), "\(once.output)")
        } catch {
            await host.stop()
            throw error
        }
        await host.stop()
    }

    /// Starts `publish` of `output` to `remote`; what it says is gathered as it goes. The rclone it
    /// runs is the real one behind a script first on its PATH: the upload of the book pages starts,
    /// leaves `bookPagesGoing` in `folder`, and then goes one request in a thousand seconds, so a
    /// signal or a kill sent once that file is there comes while the uploads go, long before any
    /// deletion, however busy the machine (it went to the end first once, under CI's load).
    static func startPublish(_ output: URL, to remote: String, host: PublishHost, in folder: TemporaryFolder) throws -> (Process, Pipe, Said) {
        let bin = folder.path("slow-rclone")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let script = bin.appendingPathComponent("rclone")
        try Data("""
            #!/bin/sh
            list=""; previous=""
            for argument in "$@"; do [ "$previous" = "--files-from-raw" ] && list="$argument"; previous="$argument"; done
            if [ -n "$list" ] && grep -q '^books/' "$list"; then
                : > '\(folder.path("bookPagesGoing").path)'
                exec '\(try PublishHost.rcloneExecutable())' "$@" --tpslimit 0.001
            fi
            exec '\(try PublishHost.rcloneExecutable())' "$@"

            """.utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let process = Process()
        process.executableURL = ToolRunner.executable
        process.arguments = ["publish", output.path, remote]
        let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        process.environment = ProcessInfo.processInfo.environment.merging(host.environment) { $1 }.merging(["PATH": path]) { $1 }
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        let said = Said()
        pipe.fileHandleForReading.readabilityHandler = { said.append($0.availableData) }
        try process.run()
        return (process, pipe, said)
    }

    /// Waits until the publish started by `startPublish` is uploading the book pages, or has ended.
    static func waitForTheBookPages(of process: Process, in folder: TemporaryFolder) async throws {
        let going = folder.path("bookPagesGoing").path
        while !FileManager.default.fileExists(atPath: going), process.isRunning { try await Task.sleep(for: .milliseconds(5)) }
    }

    final class Said: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        func append(_ more: Data) { lock.withLock { data.append(more) } }
        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
    }

    @Test func aHostThatRefusesOrIsNotThereGetsAClearErrorAndNothingIsDeleted() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("books")
        #expect(try await Self.exportBundled(to: output).status == 2)
        let requests = PublishHost.Requests()
        let refusing = try await PublishHost.refusingWrites(requests: requests)
        let refused = try await refusing.run(["publish", output.path, "\(refusing.remote):site"])
        await refusing.stop()
        #expect(refused.status == 74, "\(refused.output)")
        #expect(refused.stderr.contains("rclone failed while uploading") && refused.stderr.contains("403"), "\(refused.output)")
        #expect(refused.stderr.contains("Nothing was deleted on the host"), "\(refused.output)")
        #expect(requests["PUT"] > 0 && requests["DELETE /site/old.html"] == 0, "the old file there was not deleted")

        let gone = try PublishHost.unreachable()
        let unreachable = try await gone.run(["publish", output.path, "\(gone.remote):site"])
        #expect(unreachable.status == 74, "\(unreachable.output)")
        #expect(unreachable.stderr.contains("connection refused"), "\(unreachable.output)")
    }

    @Test func aPublishToTheWrongPathOfAFullBucketIsRefusedBeforeAnythingIsSent() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("books")
        #expect(try await Self.exportBundled(to: output).status == 2)
        let host = try await PublishHost.s3()
        do {
            #expect(try await host.run(["publish", output.path, "\(host.remote):site/books"]).status == 0)
            let before = try await host.rclone(["lsf", "-R", "--files-only", "\(host.remote):site"])
            // The bucket's top instead of its books/ folder: every file of books/ would go.
            let wrong = try await host.run(["publish", output.path, "\(host.remote):site"])
            #expect(wrong.status == 65, "\(wrong.output)")
            #expect(wrong.stderr.contains("more than --max-deletes 256 allows; nothing was uploaded or deleted"), "\(wrong.output)")
            #expect(try await host.rclone(["lsf", "-R", "--files-only", "\(host.remote):site"]) == before)

            // A dry run shows the plan it would refuse, and exits as the publish would.
            let over = try await host.run(["publish", output.path, "\(host.remote):site", "--dry-run"])
            #expect(over.status == 65 && over.stderr.contains("Would delete") && over.stderr.contains("more than --max-deletes 256 allows"), "\(over.output)")
            let plan = try #require(over.stderr.range(of: "Would delete")), refusal = try #require(over.stderr.range(of: "more than --max-deletes"))
            #expect(plan.lowerBound < refusal.lowerBound, "the plan first, then why it would be refused")
            let dry = try await host.run(["publish", output.path, "\(host.remote):site", "--dry-run", "--force"])
            #expect(dry.status == 0 && dry.stderr.contains("Would delete") && dry.stderr.contains("nothing was sent"), "\(dry.output)")
            #expect(try await host.rclone(["lsf", "-R", "--files-only", "\(host.remote):site"]) == before)
        } catch {
            await host.stop()
            throw error
        }
        await host.stop()
    }

    @Test func withKeepTheLatestSnapshotIsWhatIsPublished() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("nightly")
        #expect(try await Self.exportBundled(to: output, extra: ["--keep", "3"]).status == 2)
        let host = try await PublishHost.s3()
        do {
            let run = try await host.run(["publish", output.path, "\(host.remote):site/books"])
            #expect(run.status == 0, "\(run.output)")
            let latest = SiteInspector(root: output.appendingPathComponent("latest").resolvingSymlinksInPath()).contents()
            let remote = try await host.files(under: "site/books")
            #expect(!latest.isEmpty && remote == latest)
        } catch {
            await host.stop()
            throw error
        }
        await host.stop()
    }

    @Test func publishingNeedsRcloneAKnownRemoteAndASnapshot() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("books")
        #expect(try await Self.exportBundled(to: output).status == 2)
        let environment = ["RCLONE_CONFIG": "/nonexistent/rclone.conf"]

        let noRclone = try await ToolRunner.run(["publish", output.path, "s3:bucket"], environment: ["PATH": "/nonexistent"])
        #expect(noRclone.status == 68 && noRclone.stderr.contains("publishing needs rclone"), "\(noRclone.output)")
        let unknown = try await ToolRunner.run(["publish", output.path, "nosuch:bucket"], environment: environment)
        #expect(unknown.status == 68 && unknown.stderr.contains("no remote named 'nosuch'"), "\(unknown.output)")
        #expect(unknown.stderr.contains("RCLONE_CONFIG_NOSUCH_TYPE"), "\(unknown.output)")
        let relative = try await ToolRunner.run(["publish", output.path, "www/books"], environment: environment)
        #expect(relative.status == 64 && relative.stderr.contains("or a folder of this machine by its absolute path"), "\(relative.output)")
        let notOurs = try await ToolRunner.run(["publish", folder.url.path, "s3:bucket"],
                                               environment: environment.merging(["RCLONE_CONFIG_S3_TYPE": "s3"]) { _, new in new })
        #expect(notOurs.status == 64 && notOurs.stderr.contains("not a snapshot written by reader-snapshot"), "\(notOurs.output)")
        let stray = try await ToolRunner.run(["export", "--server", "http://127.0.0.1:9", "--email", "a@b.c", "--output", output.path, "--force"],
                                             environment: ["READER_PASSWORD": "x"])
        #expect(stray.status == 64 && stray.stderr.contains("--max-deletes, --force and --check-host go with --publish"), "\(stray.output)")
    }

    /// A folder of this machine, as rclone takes one: the snapshot's visitor files byte for byte,
    /// nothing sent again; a folder that is not there is not made, and one around the snapshot or
    /// its private state is refused (its own files would be deleted).
    @Test func aFolderOfThisMachineIsPublishedIntoOnlyWhenItIsThereAndApart() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("books")
        #expect(try await Self.exportBundled(to: output).status == 2)
        let environment = ["RCLONE_CONFIG": "/nonexistent/rclone.conf"]
        let site = folder.path("www/books")

        let missing = try await ToolRunner.run(["publish", output.path, site.path], environment: environment)
        #expect(missing.status == 68 && missing.stderr.contains("no such folder on this machine"), "\(missing.output)")
        #expect(!FileManager.default.fileExists(atPath: site.path), "publish made the folder")
        for around in [folder.url, output, output.appendingPathComponent("books")] {
            try? FileManager.default.createDirectory(at: around, withIntermediateDirectories: true)
            let refused = try await ToolRunner.run(["publish", output.path, around.path], environment: environment)
            #expect(refused.status == 64 && refused.stderr.contains("a publish there would delete its own files"), "\(around.path): \(refused.output)")
        }

        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        let first = try await ToolRunner.run(["publish", output.path, site.path], environment: environment)
        #expect(first.status == 0, "\(first.output)")
        let local = SiteInspector(root: output).contents()
        #expect(SiteInspector(root: site).contents() == local, "the folder holds the snapshot's visitor files, and nothing else")
        let second = try await ToolRunner.run(["publish", output.path, site.path], environment: environment)
        #expect(second.status == 0 && second.stderr.contains("0 uploaded, 0 deleted, \(local.count) unchanged"), "\(second.output)")
    }

    /// After a publish that finished, the next compares with its record rather than list the host
    /// (listing was half of a one-note night's publish): a file changed on the host by hand stays
    /// so until `--check-host`, or until the record's listing is a week old.
    @Test func theRecordOfAFinishedPublishStandsForTheHostForAWeek() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("books")
        #expect(try await Self.exportBundled(to: output).status == 2)
        let environment = ["RCLONE_CONFIG": "/nonexistent/rclone.conf"]
        let site = folder.path("www")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        #expect(try await ToolRunner.run(["publish", output.path, site.path], environment: environment).status == 0)
        let local = SiteInspector(root: output).contents()
        let page = site.appendingPathComponent("index.html")
        try FileManager.default.removeItem(at: page)

        let trusted = try await ToolRunner.run(["publish", output.path, site.path, "--verbose"], environment: environment)
        #expect(trusted.status == 0 && trusted.stderr.contains("0 uploaded, 0 deleted, \(local.count) unchanged"), "\(trusted.output)")
        #expect(trusted.stderr.contains("Compared with the record of the last publish"), "\(trusted.output)")
        #expect(!FileManager.default.fileExists(atPath: page.path))

        let checked = try await ToolRunner.run(["publish", output.path, site.path, "--check-host"], environment: environment)
        #expect(checked.status == 0 && checked.stderr.contains("1 uploaded, 0 deleted"), "\(checked.output)")
        #expect(SiteInspector(root: site).contents() == local)

        // A week after the record's listing, the host is listed again without being asked.
        try FileManager.default.removeItem(at: page)
        let records = folder.path(".books.reader-snapshot/published")
        let record = try #require(try FileManager.default.contentsOfDirectory(at: records, includingPropertiesForKeys: nil).first)
        let text = try String(contentsOf: record, encoding: .utf8)
        let listed = try #require(text.range(of: #"\tlisted [0-9]+"#, options: .regularExpression))
        let weekAgo = Int(Date().timeIntervalSince1970) - 7 * 86_400 - 60
        try text.replacingCharacters(in: listed, with: "\tlisted \(weekAgo)").write(to: record, atomically: true, encoding: .utf8)
        let late = try await ToolRunner.run(["publish", output.path, site.path], environment: environment)
        #expect(late.status == 0 && late.stderr.contains("1 uploaded, 0 deleted"), "\(late.output)")
        #expect(SiteInspector(root: site).contents() == local)
    }

    @Test func aPublishedCatalogWorksOverHTTPFromTheHost() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("books"), served = folder.path("dav")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        #expect(try await Self.exportBundled(to: output).status == 2)
        let host = try await PublishHost.webdav(serving: served)
        do {
            let run = try await host.run(["publish", output.path, "\(host.remote):public/books"])
            #expect(run.status == 0, "\(run.output)")
            let base = try #require(host.environment["RCLONE_CONFIG_\(host.remote.uppercased())_URL"]) + "/public/books/"
            let (status, printed) = try await BrowserCheck.run("check_published.py", [base, "prejudice", "Pride and Prejudice"])
            #expect(status == 0, "\(printed)")
            #expect(printed.contains("published site: 1 passed"), "\(printed)")
        } catch {
            await host.stop()
            throw error
        }
        await host.stop()
    }
}
