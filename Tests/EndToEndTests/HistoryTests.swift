import Foundation
import LibraryArchive
import SampleServer
import SnapshotStore
import TestSupport
import Testing

/// `--history`: a commit for each night that changed something, holding exactly that night's
/// changes, and a repository that survives a run killed at any moment of its commit.
@Suite(.serialized)
struct HistoryTests {
    static let firstNight = 1_760_000_000
    static let day = 86_400

    static func export(_ server: RunningSampleServer, to output: URL, night: Int, extra: [String] = []) async throws -> ToolRun {
        try await EndToEndTests.export(server, to: output, extra: ["--history", "--quiet"] + extra,
                                       environment: ["SOURCE_DATE_EPOCH": String(firstNight + night * day)])
    }

    /// git in `repository`: a git directory, or a snapshot folder whose history is beside it.
    static func git(_ repository: URL, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let isGitDirectory = FileManager.default.fileExists(atPath: repository.appendingPathComponent("HEAD").path)
        let place = isGitDirectory ? ["--git-dir", repository.path]
            : ["--git-dir", historyFolder(of: repository).path, "--work-tree", repository.path]
        let (status, output) = try await ToolRunner.runChecker("/usr/bin/env", ["git"] + place + arguments)
        return (status, output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// A library where every book's details can be read: a night without changes is then a night
    /// whose snapshot is the same.
    static func startServer(books: Int, seed: UInt64) async throws -> RunningSampleServer {
        var library = try SampleLibrary.synthetic(books: books, seed: seed)
        let shelf = library.shelves[0].id
        library.books = library.books.map { book in
            var book = book
            if library.shelf(id: book.shelfID) == nil { book.shelfID = shelf }
            return book
        }
        var options = SampleServer.Options()
        options.loginDelay = .zero
        return try await SampleServer(library: library, options: options).start()
    }

    /// The ids of the books whose Markdown a commit changed.
    static func booksChanged(in commit: String, _ repository: URL) async throws -> Set<Int> {
        let paths = try await git(repository, ["diff-tree", "-r", "--root", "--name-only", "--no-commit-id", commit, "--", "markdown/books"]).output
        return Set(paths.split(separator: "\n").compactMap { Int($0.dropFirst("markdown/books/".count).prefix { $0.isNumber }) })
    }

    @Test func thirtyNightsOfRandomChangesGiveACommitPerChangedNightHoldingExactlyItsChanges() async throws {
        let server = try await Self.startServer(books: 120, seed: 21)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        var random = SplitMix64(seed: 30)
        var expected: [(night: Int, books: Set<Int>)] = []
        for night in 0..<30 {
            var changed = Set<Int>()
            if night > 0 {
                // Most nights change a few books; some change none.
                let library = server.server.library
                let ids = library.books.map(\.id)
                for _ in 0..<Int.random(in: 0..<4, using: &random) {
                    let id = ids[Int.random(in: 0..<ids.count, using: &random)]
                    guard !changed.contains(id) else { continue }
                    changed.insert(id)
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0: server.server.update { $0.updateBook(id: id) { $0.comments += "<div>Night \(night).</div>" } }
                    case 1: server.server.update { $0.updateBook(id: id) { $0.title += " (night \(night))" } }
                    case 2:
                        let shelf = library.shelves[Int.random(in: 0..<library.shelves.count, using: &random)].id
                        if library.book(id: id)?.shelfID == shelf { changed.remove(id); continue }
                        server.server.update { $0.updateBook(id: id) { $0.shelfID = shelf } }
                    case 3: server.server.update { $0.books.removeAll { $0.id == id } }
                    default:
                        changed.remove(id)
                        var new = 0
                        server.server.update { new = $0.addBook(title: "Added on night \(night)", shelfID: library.shelves[0].id) }
                        changed.insert(new)
                    }
                }
            }
            let run = try await Self.export(server, to: output, night: night)
            #expect(run.status == 0, "night \(night): \(run.output)")
            if night == 0 || !changed.isEmpty { expected.append((night, changed)) }
        }
        await server.stop()
        #expect(try await Self.git(output, ["fsck", "--strict"]).status == 0)
        #expect(try await Self.git(output, ["status", "--porcelain"]).output == "", "the last commit is the snapshot")
        let log = try await Self.git(output, ["log", "--reverse", "--format=%H %at"]).output.split(separator: "\n")
        #expect(log.count == expected.count, "one commit a night that changed something, none for the others")
        for (line, night) in zip(log, expected) {
            let fields = line.split(separator: " ")
            let commit = String(fields[0])
            #expect(Int(fields[1]) == Self.firstNight + night.night * Self.day, "dated by the snapshot")
            if night.night == 0 { continue }
            #expect(try await Self.booksChanged(in: commit, output) == night.books, "night \(night.night)")
        }
        // Each cover's bytes once, whatever the nights.
        let covers = try await Self.git(output, ["rev-list", "--objects", "--all", "--", "covers"]).output
            .split(separator: "\n").filter { $0.contains(" covers/") }
        // Their thumbnails are not kept: they are made again from the covers.
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("covers").path)
            .filter { CoverFile.isWellFormed(path: "covers/" + $0) }
        #expect(covers.count == onDisk.count && !onDisk.isEmpty)
        // The history command reads it back: its commits, for a snapshot without a timeline (an
        // older version's).
        try FileManager.default.removeItem(at: output.appendingPathComponent("timeline.json"))
        let history = try await ToolRunner.run(["history", output.path])
        #expect(history.status == 0 && history.stdout.split(separator: "\n").filter { $0.first?.isNumber == true }.count == expected.count,
                "\(history.output)")
    }

    /// The README says a snapshot may be zipped whole and shared: after nights with `--history`
    /// and then one with `--no-notes`, the zip holds no note, since every earlier note is in the
    /// history, and the history lives beside the folder. A history made inside it before is moved out.
    @Test func aZipOfTheWholeFolderHoldsNoEarlierNote() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        #expect(try await Self.export(server, to: output, night: 0).status == 2)
        // As a history made by an earlier version: inside the folder.
        try FileManager.default.moveItem(at: historyFolder(of: output), to: output.appendingPathComponent(".git"))
        let moved = try await EndToEndTests.export(server, to: output, extra: ["--history", "--verbose"],
                                                   environment: ["SOURCE_DATE_EPOCH": String(Self.firstNight + Self.day)])
        #expect(moved.status == 2, "\(moved.output)")
        #expect(moved.output.contains("The history moved beside the snapshot"), "\(moved.output)")
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent(".git").path))
        let shared = try await Self.export(server, to: output, night: 2, extra: ["--no-notes"])
        await server.stop()
        #expect(shared.status == 2, "\(shared.output)")
        // The notes are in the history (so the test can fail)...
        let everything = try await Self.git(output, ["log", "-p", "--all"]).output
        #expect(everything.contains("Loved it."))

        // ...and not in the zip of the folder, hidden files and all.
        let zip = folder.path("library.zip"), unzipped = folder.path("unzipped")
        let script = """
            import os, sys, zipfile
            with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
                for root, folders, files in os.walk(sys.argv[1]):
                    for name in files:
                        path = os.path.join(root, name)
                        z.write(path, os.path.relpath(path, os.path.dirname(sys.argv[1])))
            zipfile.ZipFile(sys.argv[2]).extractall(sys.argv[3])
            """
        let (status, said) = try await ToolRunner.runChecker("/usr/bin/python3", ["-c", script, output.path, zip.path, unzipped.path])
        #expect(status == 0, "\(said)")
        let inside = SiteInspector(root: unzipped)
        #expect(inside.files().count > 50)
        #expect(!inside.files().contains { $0.hasSuffix("/HEAD") || $0.contains(".git/") }, "a git repository in the zip")
        for file in inside.files() {
            let text = String(decoding: try #require(inside.data(file)), as: UTF8.self)
            for word in ["Loved it", "Reader, I married him", "Curiouser"] {
                #expect(!text.contains(word), "\(file) holds \(word)")
            }
        }
    }

    @Test func oneBooksStoryAndTheNightsSinceADate() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        #expect(try await Self.export(server, to: output, night: 0).status == 2)
        server.server.update { $0.updateBook(id: 103) { $0.comments += "<div>Reread in winter.</div>" } }
        #expect(try await Self.export(server, to: output, night: 1).status == 2)
        server.server.update { $0.updateBook(id: 103) { $0.shelfID = 2 } }
        server.server.update { $0.books.removeAll { $0.id == 104 } }
        server.server.update { $0.updateBook(id: 106) { $0.title = "Jane Eyre: An Autobiography" } }
        #expect(try await Self.export(server, to: output, night: 2).status == 2)
        await server.stop()
        #expect(try await Self.git(output, ["rev-list", "--count", "main"]).output == "3")
        // No secret in any version of any file, nor in a message.
        let everything = try await Self.git(output, ["log", "-p", "--all", "--format=%B"]).output
        #expect(!everything.contains(SampleLibrary.demoPassword) && !everything.contains(server.server.apiKey) && everything.contains("Frankenstein"))

        // Told from the commits, as for a snapshot an older version made: without a timeline.
        try FileManager.default.removeItem(at: output.appendingPathComponent("timeline.json"))
        let story = try await ToolRunner.run(["history", output.path, "--book", "103"])
        #expect(story.status == 0, "\(story.output)")
        let lines = story.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("2025-10-09  added: Frankenstein") == true, "\(story.stdout)")
        #expect(lines.contains { $0.hasPrefix("2025-10-10  note:") })
        #expect(lines.contains { $0.hasSuffix("+Reread in winter.") })
        #expect(lines.contains { $0.hasPrefix("2025-10-11  shelf: ") })
        let gone = try await ToolRunner.run(["history", output.path, "--book", "104"])
        #expect(gone.stdout.contains("2025-10-11  removed from the library"), "\(gone.output)")

        let since = try await ToolRunner.run(["history", output.path, "--since", "2025-10-10"])
        // The counts as the run's summary says them (zeros left out, the changes page's order), and
        // a renamed book with the title it had.
        #expect(since.stdout.hasPrefix("2025-10-11  1 removed, 1 moved, 1 edited\n"), "\(since.output)")
        #expect(since.stdout.contains("removed: Dracula") && !since.stdout.contains("first snapshot"))
        #expect(since.stdout.contains("edited: Jane Eyre: An Autobiography (title, was Jane Eyre)"), "\(since.output)")
        let unknown = try await ToolRunner.run(["history", output.path, "--book", "99999"])  // an answer, not a misused command: not 64
        #expect(unknown.status == 66 && unknown.stdout.isEmpty && unknown.stderr == "error: book 99999 is in no night of the history \(folder.path(".library.history.git").path): no snapshot it kept held a book of that id (a book's id begins its page's name: books/ID-title.html)\n", "\(unknown.output)")
        let nowhere = try await ToolRunner.run(["history", folder.path("nowhere").path])
        #expect(nowhere.status == 64 && nowhere.stderr.contains("nowhere: no such folder"), "\(nowhere.output)")
        try FileManager.default.createDirectory(at: folder.path("empty"), withIntermediateDirectories: true)
        let none = try await ToolRunner.run(["history", folder.path("empty").path])
        #expect(none.status == 64 && none.stderr.contains("no history here"), "\(none.output)")
        let badDay = try await ToolRunner.run(["history", output.path, "--since", "2025-02-31"])
        #expect(badDay.status == 64 && badDay.stderr.contains("not a date"), "\(badDay.output)")
    }

    @Test func datedSnapshotsShareOneHistoryBesideThem() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        for night in 0..<3 {
            server.server.update { $0.updateBook(id: 101) { $0.comments += "<div>Night \(night).</div>" } }
            #expect(try await Self.export(server, to: output, night: night, extra: ["--keep", "2", "--history-author", "Ada <ada@example.org>"]).status == 2)
        }
        await server.stop()
        let repository = historyFolder(of: output)
        #expect(try await Self.git(repository, ["log", "--format=%an <%ae>"]).output.split(separator: "\n") == Array(repeating: "Ada <ada@example.org>", count: 3))
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("snapshots").path).count == 2, "--keep 2")
        #expect(try await Self.git(repository, ["fsck", "--strict"]).status == 0)
        // The newest dated snapshot's timeline tells the story, the shared history the note's diffs.
        let story = try await ToolRunner.run(["history", output.path, "--book", "101"])
        let lines = story.stdout.split(separator: "\n")
        #expect(lines.filter { $0.hasSuffix("Pride and Prejudice: note rewritten") }.count == 2, "\(story.output)")
        let added = lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("+") }
        #expect(added.contains { $0.contains("Night 1.") } && added.contains { $0.contains("Night 2.") }, "\(story.output)")
    }

    /// A run killed in its commit (with its git), half of them as the commit's first git starts and
    /// half at a random moment of it, leaves a valid repository, and the next run completes the history.
    /// Each run is held at a git of its commit (`HeldGit`), so that every one is killed there, however
    /// fast this machine runs git: no count of kills that depends on the machine's speed.
    @Test func aRunKilledDuringItsCommitLeavesAValidRepositoryAndTheNextRunCompletesIt() async throws {
        let server = try await Self.startServer(books: 600, seed: 4)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        #expect(try await Self.export(server, to: output, night: 0).status == 0)
        let held = try HeldGit(in: folder.path("held-git"))
        var random = SplitMix64(seed: 9)
        var night = 0, killedInCommit = 0, leftPending = 0
        for attempt in 0..<20 {
            night += 1
            server.server.update { $0.updateBook(id: 1 + attempt) { $0.comments += "<div>Attempt \(attempt).</div>" } }
            // Even attempts at the commit's first git, odd ones at one of its gits drawn at random.
            let step = attempt % 2 == 0 ? "add" : HeldGit.steps[random.next(HeldGit.steps.count)]
            try held.hold(at: step)
            let process = try Self.startExport(server, to: output, night: night, path: held.folder)
            let gitPID = await held.waitForHold(of: process)
            #expect(gitPID != nil, "attempt \(attempt): the run ended before its commit's git \(step)")
            if let gitPID {
                if attempt % 2 == 0 {
                    // At once, the tool first: its commit is never made.
                    let children = Self.children(of: process.processIdentifier)
                    kill(process.processIdentifier, SIGKILL)
                    for child in children + [gitPID] { kill(child, SIGKILL) }
                } else {
                    // Let go, then killed a random moment later: within that git, or one after it, or
                    // (after the commit's last) as the run ends.
                    held.release()
                    try await Task.sleep(for: .microseconds(Int.random(in: 0..<50_000, using: &random)))
                    kill(gitPID, SIGKILL)
                    for child in Self.children(of: process.processIdentifier) { kill(child, SIGKILL) }
                    kill(process.processIdentifier, SIGKILL)
                }
                killedInCommit += 1
            }
            await ToolRunner.wait(for: process)
            let pending = FileManager.default.fileExists(atPath: historyFolder(of: output).appendingPathComponent("reader-snapshot-pending.json").path)
            if pending { leftPending += 1 }
            // Killed before its first git ran, the run had said which commit it was about to make.
            if attempt % 2 == 0 { #expect(pending, "attempt \(attempt): no pending commit left") }
            let fsck = try await Self.git(output, ["fsck", "--strict", "--no-dangling"])
            #expect(fsck.status == 0, "attempt \(attempt) (\(step)): \(fsck.output)")
            let published = try String(contentsOf: output.appendingPathComponent("library.json"), encoding: .utf8)
                .contains("Attempt \(attempt).")
            night += 1
            let next = try await Self.export(server, to: output, night: night)
            #expect(next.status == 0, "attempt \(attempt) (\(step)): \(next.output)")
            #expect(try await Self.git(output, ["status", "--porcelain"]).output == "", "attempt \(attempt) (\(step))")
            #expect(!FileManager.default.fileExists(atPath: historyFolder(of: output).appendingPathComponent("reader-snapshot-pending.json").path))
            // The killed night's snapshot has its commit: made by it, or by the next run.
            let dates = try await Self.git(output, ["log", "--format=%at"]).output.split(separator: "\n").compactMap { Int($0) }
            if published { #expect(dates.contains(Self.firstNight + (night - 1) * Self.day), "attempt \(attempt) (\(step))") }
        }
        await server.stop()
        print("killed in their commit: \(killedInCommit) runs, \(leftPending) of them leaving it pending")
        #expect(killedInCommit == 20, "every attempt was killed in its commit: \(killedInCommit)")
        #expect(leftPending >= 10, "and those killed as it began left it pending: \(leftPending)")
        #expect(try await Self.git(output, ["fsck", "--strict"]).status == 0)
    }

    /// A run killed after it took the history out of the output for the swap, and before the swap:
    /// the next run puts it back before it clears what the killed one left.
    @Test func aHistoryCaughtInAKilledSwapGoesBackIntoTheOutput() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        try FileManager.default.createDirectory(at: output.appendingPathComponent(".reader-snapshot"), withIntermediateDirectories: true)
        let held = folder.path(".library.staging-killed0/.git")
        try FileManager.default.createDirectory(at: held, withIntermediateDirectories: true)
        try Data("ref: refs/heads/main\n".utf8).write(to: held.appendingPathComponent("HEAD"))
        let swap = try SnapshotSwap(output: output)
        swap.discard()
        swap.finish()
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(".git/HEAD").path))
        #expect(!FileManager.default.fileExists(atPath: folder.path(".library.staging-killed0").path))
    }

    /// Whether this machine lets the tests mount a tmpfs (root, with the right to mount): the way to
    /// a full disk without filling the real one.
    static let canMountTmpfs: Bool = {
        guard getuid() == 0, let folder = try? TemporaryFolder() else { return false }
        defer { folder.remove() }
        let point = folder.path("probe").path
        try? FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
        guard Self.shell("mount -t tmpfs -o size=64k tmpfs \(point)") == 0 else { return false }
        return Self.shell("umount \(point)") == 0
    }()

    @discardableResult
    static func shell(_ command: String) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The repository's objects on a full disk: the night's snapshot is published, the run fails
    /// with the output code and says so, and once there is room the next run makes the commit.
    @Test(.enabled(if: canMountTmpfs)) func aFullDiskFailsTheCommitAndTheNextRunMakesIt() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        let options = ["--keep", "3"]
        #expect(try await Self.export(server, to: output, night: 0, extra: options).status == 2)
        let objects = historyFolder(of: output).appendingPathComponent("objects")
        let saved = folder.path("objects")
        try FileManager.default.moveItem(at: objects, to: saved)
        try FileManager.default.createDirectory(at: objects, withIntermediateDirectories: false)
        #expect(Self.shell("mount -t tmpfs -o size=2m tmpfs \(objects.path) && cp -a \(saved.path)/. \(objects.path)/") == 0)
        defer { Self.shell("umount \(objects.path)") }
        let filler = objects.appendingPathComponent("info/filler")
        Self.shell("dd if=/dev/zero of=\(filler.path) bs=4k 2>/dev/null")
        server.server.update { $0.updateBook(id: 101) { $0.comments += "<div>On a full disk.</div>" } }
        let full = try await Self.export(server, to: output, night: 1, extra: options)
        #expect(full.status == 73, "\(full.output)")
        #expect(full.stderr.contains("the next run makes its commit"), "\(full.output)")
        let latest = try String(contentsOf: output.appendingPathComponent("latest/library.json"), encoding: .utf8)
        #expect(latest.contains("On a full disk."), "the snapshot is published all the same")
        #expect(FileManager.default.fileExists(atPath: historyFolder(of: output).appendingPathComponent("reader-snapshot-pending.json").path))
        try FileManager.default.removeItem(at: filler)
        let next = try await Self.export(server, to: output, night: 2, extra: options)
        await server.stop()
        #expect(next.status == 2, "\(next.output)")
        let repository = historyFolder(of: output)
        let dates = try await Self.git(repository, ["log", "--format=%at"]).output.split(separator: "\n").compactMap { Int($0) }
        #expect(dates == [Self.firstNight + Self.day, Self.firstNight], "the full night's commit, made by the next run")
        #expect(try await Self.git(repository, ["fsck", "--strict"]).status == 0)
    }

    /// git failing after the swap (here a `git` on the PATH that fails its first `write-tree`): the
    /// run says so with 73, the snapshot is published, and the next run, which finds nothing new,
    /// makes the commit all the same.
    @Test func aCommitThatFailsAfterTheSwapIsMadeByTheNextRunEvenWithNothingNew() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        #expect(try await Self.export(server, to: output, night: 0).status == 2)
        let bin = folder.path("bin"), flag = folder.path("fail-once")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let realGit = try await ToolRunner.runChecker("/usr/bin/env", ["sh", "-c", "command -v git"]).1
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let wrapper = bin.appendingPathComponent("git")
        try """
            #!/bin/sh
            for argument in "$@"; do
              if [ "$argument" = write-tree ] && [ -e '\(flag.path)' ]; then rm -f '\(flag.path)'; echo "fatal: no space left" >&2; exit 128; fi
            done
            exec '\(realGit)' "$@"

            """.write(to: wrapper, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper.path)
        try #require(FileManager.default.createFile(atPath: flag.path, contents: Data()))
        server.server.update { $0.updateBook(id: 101) { $0.comments += "<div>After the swap.</div>" } }
        let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let failed = try await EndToEndTests.export(server, to: output, extra: ["--history", "--quiet"],
                                                    environment: ["SOURCE_DATE_EPOCH": String(Self.firstNight + Self.day), "PATH": path])
        #expect(failed.status == 73, "\(failed.output)")
        #expect(failed.stderr.contains("the next run makes its commit"), "\(failed.output)")
        #expect(try String(contentsOf: output.appendingPathComponent("library.json"), encoding: .utf8).contains("After the swap."))
        let repository = historyFolder(of: output)
        #expect(FileManager.default.fileExists(atPath: repository.appendingPathComponent("reader-snapshot-pending.json").path))
        // Nothing new on the server: this run publishes nothing, and commits what the last run could not.
        let next = try await Self.export(server, to: output, night: 2)
        await server.stop()
        #expect(next.status == 2, "\(next.output)")
        let dates = try await Self.git(repository, ["log", "--format=%at"]).output.split(separator: "\n").compactMap { Int($0) }
        #expect(dates == [Self.firstNight + Self.day, Self.firstNight], "\(next.output)")
        let shown = try await Self.git(repository, ["show", "main:library.json"]).output
        #expect(shown.contains("After the swap."))
    }

    /// A `.git` of the user's in the output folder is theirs: neither used by --history (which keeps
    /// its own beside the folder) nor lost across the swaps.
    @Test func aRepositoryOfTheUsersIsNeitherUsedNorLost() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        func own(_ arguments: [String]) async throws -> (Int32, String) {
            let (status, text) = try await ToolRunner.runChecker("/usr/bin/env", ["git", "-C", output.path] + arguments)
            return (status, text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let plain = try await EndToEndTests.export(server, to: output, extra: ["--quiet"])
        #expect(plain.status == 2, "\(plain.output)")
        #expect(try await own(["init", "--quiet"]).0 == 0)
        #expect(try await own(["config", "user.name", "Mine"]).0 == 0)
        let withHistory = try await Self.export(server, to: output, night: 1)
        #expect(withHistory.status == 2, "\(withHistory.output)")
        #expect(try await Self.git(output, ["rev-list", "--count", "main"]).output == "1", "the history beside the folder")
        server.server.update { $0.updateBook(id: 101) { $0.comments += "<div>Kept.</div>" } }
        let again = try await EndToEndTests.export(server, to: output, extra: ["--quiet"])
        await server.stop()
        #expect(again.status == 2, "\(again.output)")
        #expect(try await own(["config", "user.name"]).1 == "Mine", "carried across the swap untouched")
        #expect(try await own(["rev-parse", "--verify", "--quiet", "main"]).0 != 0, "no commit made in it")
    }

    /// Starts a `--history` export; with `path`, that folder comes first on its PATH (its git).
    static func startExport(_ server: RunningSampleServer, to output: URL, night: Int, path: URL? = nil) throws -> Process {
        let process = Process()
        process.executableURL = ToolRunner.executable
        process.arguments = ["export", "--server", server.url, "--email", SampleLibrary.demoEmail, "--output", output.path,
                             "--history", "--quiet"]
        var environment = ProcessInfo.processInfo.environment
        environment["READER_PASSWORD"] = SampleLibrary.demoPassword
        environment["SOURCE_DATE_EPOCH"] = String(firstNight + night * day)
        if let path { environment["PATH"] = path.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin") }
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// The pids whose parent is `pid`, from /proc: each of its threads' `children` where the kernel
    /// has them (quick enough to catch a git of a millisecond), else every process's parent.
    static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        if let first = tasks.first, FileManager.default.fileExists(atPath: "/proc/\(pid)/task/\(first)/children") {
            return tasks.flatMap { task in
                ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? "").split(separator: " ").compactMap { Int32($0) }
            }
        }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && Int32(fields[1]) == pid
        }
    }

}

/// A git in front of the real one, first on the PATH of a run that a test kills in its commit. From
/// the commit's first git (`add`) on, the first git of the step it is told (`add`, `write-tree`, …)
/// says its pid and waits to be let go before it becomes the real git: the test kills the run
/// there, or lets it go and kills it a moment later. A run is then always caught in its commit,
/// however fast git runs, and no git of the run but that one waits.
struct HeldGit {
    /// The commit's gits, by the word that names each (HistoryRepository.commit), in their order.
    static let steps = ["add", "write-tree", "rev-parse", "commit-tree", "update-ref", "gc"]

    /// The folder to put first on the PATH: it holds the `git`.
    let folder: URL
    private let step, began, held, go: URL

    init(in folder: URL) throws {
        self.folder = folder
        (step, began, held, go) = (folder.appendingPathComponent("step"), folder.appendingPathComponent("began"),
                                   folder.appendingPathComponent("held"), folder.appendingPathComponent("go"))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let real = try #require(["/usr/bin/git", "/usr/local/bin/git", "/bin/git"].first { FileManager.default.isExecutableFile(atPath: $0) })
        func quoted(_ url: URL) -> String { "'" + url.path.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        // git is started with an environment of the tool's making (its own PATH, no other of the
        // test's variables): the files it reads are named in it. The wait is a loop of short
        // sleeps, capped at two minutes, so that a test that failed leaves no git waiting for good.
        let script = """
            #!/bin/sh
            case " $* " in *" add "*) : >\(quoted(began)) ;; esac
            want=$(cat \(quoted(step)) 2>/dev/null)
            if [ -n "$want" ] && [ -e \(quoted(began)) ]; then
              case " $* " in
                *" $want "*)
                  rm -f \(quoted(step))
                  echo $$ >\(quoted(held)).new && mv \(quoted(held)).new \(quoted(held))
                  waited=0
                  while [ ! -e \(quoted(go)) ] && [ $waited -lt 12000 ]; do sleep 0.01; waited=$((waited + 1)); done
                  ;;
              esac
            fi
            exec \(real) "$@"

            """
        let git = folder.appendingPathComponent("git")
        try Data(script.utf8).write(to: git)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: git.path)
    }

    /// The next run is held at the first git of `step` from its commit's beginning on.
    func hold(at step: String) throws {
        for file in [began, held, go] { try? FileManager.default.removeItem(at: file) }
        try Data(step.utf8).write(to: self.step)
    }

    func release() { FileManager.default.createFile(atPath: go.path, contents: nil) }

    /// The pid of the git held, once it is: it is the real git's when let go. Nil if the run ended
    /// first.
    func waitForHold(of process: Process) async -> Int32? {
        while process.isRunning {
            if let text = try? String(contentsOf: held, encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                return pid
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return nil
    }
}
