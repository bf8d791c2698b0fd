import Foundation
@testable import History
import Support
import TestSupport
import Testing

/// `--history` without the tool around it: a snapshot folder recorded by a real git in a
/// temporary folder, and read back with git's own commands, not through the code that wrote it.
@Suite struct HistoryRepositoryTests {
    let folder: TemporaryFolder
    /// The snapshot's folder, and its history beside it as the tool keeps it.
    let snapshot: URL
    let repository: HistoryRepository

    /// What a night's text is kept of: `library.json` and the Markdown, as their formats say it.
    static let formats = [
        FormatFiles(words: "library.json", sealed: false, kept: ["!/library.json"], holds: { $0 == "library.json" }),
        FormatFiles(words: "the Markdown", sealed: false, kept: ["!/markdown/"], holds: { $0.hasPrefix("markdown/") }),
    ]
    static let cover = "covers/" + String(repeating: "a1", count: 16) + ".jpg"

    init() throws {
        folder = try TemporaryFolder()
        snapshot = folder.path("library")
        repository = HistoryRepository(gitDirectory: folder.path(".library.history.git"))
        try Self.write("{\"books\": [\"Moby-Dick\"]}\n", to: "library.json", in: snapshot)
        try Self.write("# Moby-Dick\n\nWhaling.\n", to: "markdown/books/7-moby-dick.md", in: snapshot)
        try Self.write("<h1>Moby-Dick</h1>\n", to: "index.html", in: snapshot)
        try Self.write("id,title\n7,Moby-Dick\n", to: "library.csv", in: snapshot)
        try Self.write("the cover's bytes", to: Self.cover, in: snapshot)
        try Self.write("a thumbnail's bytes", to: String(Self.cover.dropLast(4)) + "-120.jpg", in: snapshot)
    }

    static func write(_ text: String, to path: String, in root: URL) throws {
        let file = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    static func commit(_ subject: String, date: Int) -> HistoryRepository.Commit {
        HistoryRepository.Commit(message: CommitMessage(text: "\(subject)\n\nadded: Moby-Dick\n"), date: date,
                                 author: HistoryRepository.Author(name: "Ishmael", email: "ishmael@pequod.example"))
    }

    struct GitFailed: Error, CustomStringConvertible {
        var arguments: [String]
        var status: Int32
        var said: String
        var description: String { "git \(arguments.joined(separator: " ")) exited \(status): \(said)" }
    }

    /// git as a user would run it on the repository, told nothing of this machine's configuration;
    /// with `date`, a commit made by hand is dated then, by "Tester". Returns what it printed.
    @discardableResult
    static func git(_ gitDirectory: URL, _ arguments: [String], workTree: URL? = nil, date: Int? = nil) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git"] + arguments
        var environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "GIT_DIR": gitDirectory.path,
                           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": gitDirectory.path, "LC_ALL": "C"]
        if let workTree { environment["GIT_WORK_TREE"] = workTree.path }
        if let date {
            for role in ["AUTHOR", "COMMITTER"] {
                environment["GIT_\(role)_NAME"] = "Tester"
                environment["GIT_\(role)_EMAIL"] = "tester@example.com"
                environment["GIT_\(role)_DATE"] = "@\(date) +0000"
            }
        }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let output = PipeReader(out), errors = PipeReader(err)
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        let text = String(decoding: output.wait(), as: UTF8.self)
        guard status == 0 else { throw GitFailed(arguments: arguments, status: status, said: String(decoding: errors.wait(), as: UTF8.self)) }
        return text
    }

    func git(_ arguments: [String]) async throws -> String {
        try await Self.git(repository.gitDirectory, arguments).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aSnapshotIsRecordedAsOneCommitWithItsMessageDateAndAuthor() async throws {
        defer { folder.remove() }
        let commit = Self.commit("2025-10-09: first snapshot, 1 books", date: 1_760_000_000)
        let recorded = try await repository.record(snapshot, as: commit, keeping: Self.formats)
        guard case .committed(let id) = recorded else { Issue.record("no commit: \(recorded)"); return }
        #expect(try await git(["rev-parse", "refs/heads/main"]) == id)
        #expect(try await git(["rev-list", "--count", "refs/heads/main"]) == "1")
        // The commit object as git keeps it: author and committer are the night's, dated by the
        // snapshot (not by the clock), and the message is the text given, byte for byte.
        let object = try await Self.git(repository.gitDirectory, ["cat-file", "commit", id])
        let lines = object.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.contains("author Ishmael <ishmael@pequod.example> 1760000000 +0000"), "\(object)")
        #expect(lines.contains("committer Ishmael <ishmael@pequod.example> 1760000000 +0000"), "\(object)")
        #expect(object.hasSuffix("\n\n2025-10-09: first snapshot, 1 books\n\nadded: Moby-Dick\n"), "\(object)")
        // Marked as the tool's, and for the owner alone: it holds every note the library had.
        #expect(try await git(["config", "--get", "reader-snapshot.history"]) == "true")
        let mode = try FileManager.default.attributesOfItem(atPath: repository.gitDirectory.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test func aCommitHoldsOnlyWhatTheFormatsKeepAndTheCoversWithoutTheirThumbnails() async throws {
        defer { folder.remove() }
        _ = try await repository.record(snapshot, as: Self.commit("night 1", date: 1_760_000_000), keeping: Self.formats)
        let files = try await git(["ls-tree", "-r", "--name-only", "refs/heads/main"]).split(separator: "\n").map(String.init)
        // Not the pages (made from the text), not the CSV (its format was not given), not a thumbnail.
        #expect(files.sorted() == [Self.cover, "library.json", "markdown/books/7-moby-dick.md"], "\(files)")
        #expect(try await Self.git(repository.gitDirectory, ["show", "refs/heads/main:library.json"]) == "{\"books\": [\"Moby-Dick\"]}\n")
        #expect(try await Self.git(repository.gitDirectory, ["show", "refs/heads/main:\(Self.cover)"]) == "the cover's bytes")

        // The CSV's format given on a later night: its file is in that night's commit.
        let csv = FormatFiles(words: "the CSV", sealed: false, kept: ["!/library.csv"], holds: { $0 == "library.csv" })
        let recorded = try await repository.record(snapshot, as: Self.commit("night 2", date: 1_760_086_400), keeping: Self.formats + [csv])
        #expect(recorded != .same)
        #expect(try await git(["ls-tree", "-r", "--name-only", "refs/heads/main"]).split(separator: "\n").contains("library.csv"))
    }

    @Test func aSecondRecordOfTheSameFilesMakesNoCommit() async throws {
        defer { folder.remove() }
        let first = try await repository.record(snapshot, as: Self.commit("night 1", date: 1_760_000_000), keeping: Self.formats)
        guard case .committed(let firstID) = first else { Issue.record("no first commit: \(first)"); return }
        #expect(try await repository.record(snapshot, as: Self.commit("night 2", date: 1_760_086_400), keeping: Self.formats) == .same)
        // A page changed, but no file the history keeps: still the same.
        try Self.write("<h1>Moby-Dick; or, The Whale</h1>\n", to: "index.html", in: snapshot)
        #expect(try await repository.record(snapshot, as: Self.commit("night 3", date: 1_760_172_800), keeping: Self.formats) == .same)
        #expect(try await git(["rev-list", "--count", "refs/heads/main"]) == "1")

        // A note changed: a commit, whose parent is the first.
        try Self.write("# Moby-Dick\n\nWhaling, at length.\n", to: "markdown/books/7-moby-dick.md", in: snapshot)
        let fourth = try await repository.record(snapshot, as: Self.commit("night 4", date: 1_760_259_200), keeping: Self.formats)
        guard case .committed(let fourthID) = fourth else { Issue.record("no commit for a changed note: \(fourth)"); return }
        #expect(try await git(["rev-parse", "refs/heads/main"]) == fourthID)
        #expect(try await git(["rev-parse", "refs/heads/main^"]) == firstID)
        #expect(try await git(["log", "--format=%s", "refs/heads/main"]) == "night 4\nnight 1")
    }

    @Test func aCommitMarkedPendingReadsBackAndARecordClearsIt() async throws {
        defer { folder.remove() }
        let commit = Self.commit("2025-10-10: 1 edited", date: 1_760_086_400)
        // Best effort, and only for a history that is there: nothing is made for it.
        repository.markPending(commit)
        #expect(repository.pending == nil)
        #expect(!FileManager.default.fileExists(atPath: repository.gitDirectory.path))

        _ = try await repository.record(snapshot, as: Self.commit("night 1", date: 1_760_000_000), keeping: Self.formats)
        #expect(repository.pending == nil, "a commit made is not pending")
        repository.markPending(commit)
        #expect(repository.pending == commit)
        // Another value of the same repository (the next run's) finds it too.
        #expect(HistoryRepository(gitDirectory: repository.gitDirectory).pending == commit)
    }

    /// A run killed in its commit leaves the pending commit and git's lock files; the next run
    /// makes that commit from the snapshot as it was, and nothing is left pending.
    @Test func theCommitAKilledRunLeftIsMadeByTheNextRun() async throws {
        defer { folder.remove() }
        _ = try await repository.record(snapshot, as: Self.commit("night 1", date: 1_760_000_000), keeping: Self.formats)
        let killed = Self.commit("2025-10-10: 1 edited", date: 1_760_086_400)
        repository.markPending(killed)
        try Self.write("# Moby-Dick\n\nWhaling, at length.\n", to: "markdown/books/7-moby-dick.md", in: snapshot)
        for lock in ["index.lock", "HEAD.lock", "refs/heads/main.lock"] {
            try Data().write(to: repository.gitDirectory.appendingPathComponent(lock))
        }

        let pending = try #require(HistoryRepository(gitDirectory: repository.gitDirectory).pending)
        let recorded = try await repository.record(snapshot, as: pending, keeping: Self.formats)
        guard case .committed(let id) = recorded else { Issue.record("the pending commit was not made: \(recorded)"); return }
        #expect(try await git(["log", "-1", "--format=%H %at %an %s", "refs/heads/main"]) == "\(id) 1760086400 Ishmael 2025-10-10: 1 edited")
        #expect(try await git(["show", "refs/heads/main:markdown/books/7-moby-dick.md"]) == "# Moby-Dick\n\nWhaling, at length.")
        #expect(repository.pending == nil)
        let left = ["index.lock", "HEAD.lock", "refs/heads/main.lock"].filter {
            FileManager.default.fileExists(atPath: repository.gitDirectory.appendingPathComponent($0).path)
        }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func aRepositoryThatIsNotOursIsRefused() async throws {
        defer { folder.remove() }
        // None yet: nothing to refuse.
        try await repository.checkOwned()
        // A repository of the user's where the history would go.
        try await Self.git(repository.gitDirectory, ["init", "--quiet"])
        do {
            try await repository.checkOwned()
            Issue.record("a repository reader-snapshot did not make was taken")
        } catch let error as HistoryError {
            guard case .notOurs = error.reason else { Issue.record("another error: \(error)"); return }
            #expect(error.path == repository.gitDirectory.path)
            #expect(error.description.contains("did not make"), "\(error)")
        }
        // One the tool made is its own.
        let ours = HistoryRepository(gitDirectory: folder.path("ours.git"))
        _ = try await ours.record(snapshot, as: Self.commit("night 1", date: 1_760_000_000), keeping: Self.formats)
        try await ours.checkOwned()
    }

    @Test func theHistoryIsFoundBesideTheSnapshotAndBesideItsDatedSnapshots() throws {
        defer { folder.remove() }
        #expect(HistoryRepository.find(from: snapshot) == nil)
        try Self.write("ref: refs/heads/main\n", to: ".library.history.git/HEAD", in: folder.url)
        #expect(HistoryRepository.find(from: snapshot)?.gitDirectory.path == repository.gitDirectory.path)

        // `--keep`: the history is beside the folder of dated snapshots, found from `latest` or a day.
        let dated = folder.path("dated")
        try Self.write("{}\n", to: "snapshots/2025-10-09/library.json", in: dated)
        try FileManager.default.createSymbolicLink(atPath: dated.appendingPathComponent("latest").path, withDestinationPath: "snapshots/2025-10-09")
        try Self.write("ref: refs/heads/main\n", to: ".dated.history.git/HEAD", in: folder.url)
        let expected = folder.path(".dated.history.git").standardizedFileURL.path
        #expect(HistoryRepository.find(from: dated.appendingPathComponent("latest"))?.gitDirectory.path == expected)
        #expect(HistoryRepository.find(from: dated.appendingPathComponent("snapshots/2025-10-09"))?.gitDirectory.path == expected)
    }

    /// git is started by name, from the PATH the tool was given: with none there, the error says
    /// git is missing (not that a command failed), for the repository concerned. The PATH is
    /// changed in a child process of its own, so that no other test running beside this one loses git.
    @Test func gitMissingFromThePathIsToldAsGitMissing() async {
        defer { folder.remove() }
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let empty = folder.path("bin")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            setenv("PATH", empty.path, 1)
            let snapshot = folder.path("library")
            try HistoryRepositoryTests.write("{}\n", to: "library.json", in: snapshot)
            let repository = HistoryRepository(gitDirectory: folder.path(".library.history.git"))
            do {
                _ = try await repository.record(snapshot, as: HistoryRepositoryTests.commit("night 1", date: 1_760_000_000),
                                                keeping: HistoryRepositoryTests.formats)
            } catch let error as HistoryError {
                if case .gitMissing = error.reason, error.path == repository.gitDirectory.path {
                    FileHandle.standardError.write(Data("\(error)\n".utf8))
                    return
                }
                FileHandle.standardError.write(Data("another error: \(error)\n".utf8))
            }
            exit(1)
        }
        let said = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(said.contains("git could not be run") && said.contains("--history needs git on the PATH"), "\(said)")
    }
}
