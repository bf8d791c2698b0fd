import Foundation
import Support

/// `--history`: the snapshot's text kept in a git repository, one commit a run that changed
/// something, dated by the snapshot.
///
/// It lives beside the snapshot, `PARENT/.DIR.history.git`, as the private state does: never in
/// what may be shared or zipped, since it holds every note the library ever had. (Histories made
/// before were in `DIR/.git`, or `DIR/history.git` with `--keep`; the next export moves them out.)
/// Each commit is the snapshot as git sees it through `info/exclude`: the Markdown,
/// `library.json`, the CSV and the covers (each cover's bytes stored once, whatever the nights);
/// the pages are made from these.
///
/// A run killed in the middle of a commit leaves git's own lock files and, at worst, objects no
/// commit names: the repository stays valid. The commit it was making is described in
/// `reader-snapshot-pending.json`, written before it starts, and the next run finishes it first.
package struct HistoryRepository: Sendable {
    package let gitDirectory: URL

    package init(gitDirectory: URL) {
        self.gitDirectory = gitDirectory.standardizedFileURL
    }

    /// For reading: the history of a snapshot folder, beside it (or, made before it moved, in it).
    /// `DIR/latest` and `DIR/snapshots/DATE` lead to the dated snapshots' history.
    package static func find(from folder: URL) -> HistoryRepository? {
        let folder = folder.standardizedFileURL
        let datedRoot = folder.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [besideFolder(folder), besideFolder(datedRoot),
                          folder.appendingPathComponent(".git"), folder.appendingPathComponent("history.git"),
                          datedRoot.appendingPathComponent("history.git")]
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("HEAD").path) }
            .map(HistoryRepository.init)
    }

    /// `PARENT/.DIR.history.git` (as `SnapshotPlace.gitDirectory` says it).
    static func besideFolder(_ folder: URL) -> URL {
        folder.deletingLastPathComponent().appendingPathComponent(".\(folder.lastPathComponent).history.git")
    }

    /// The branch the nights go on.
    static let branch = "refs/heads/main"

    /// What a commit holds, for git's exclude file: what the formats keep (`FormatFiles.kept`)
    /// and the covers; everything else in the snapshot is left out.
    static func exclude(keeping formats: [FormatFiles]) -> String {
        (["# reader-snapshot keeps a snapshot's text: the pages are made from it.", "/*"]
         + formats.flatMap(\.kept)
         + ["!/covers/", "# A cover's thumbnails (<hash>-<width>.jpg) are made again from it.", "/covers/*-*"])
            .map { $0 + "\n" }.joined() + "\n"
    }

    package struct Author: Codable, Sendable, Equatable {
        package var name: String
        package var email: String

        package static let tool = Author(name: "reader-snapshot", email: "reader-snapshot@localhost")

        package init(name: String, email: String) {
            self.name = name
            self.email = email
        }

        /// "Name <email>", as git writes it; nil when it is not that.
        package init?(parsing text: String) {
            guard let open = text.lastIndex(of: "<"), text.hasSuffix(">") else { return nil }
            let name = text[..<open].trimmingCharacters(in: .whitespaces)
            let email = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
            guard !name.isEmpty, !email.contains("<"), !email.contains(">"),
                  !(name + email).contains(where: { $0.isNewline || $0 == "\0" }) else { return nil }
            self.init(name: name, email: email)
        }
    }

    /// A commit to make: its message, its date (seconds since 1970) and its author.
    package struct Commit: Codable, Sendable, Equatable {
        package var message: CommitMessage
        package var date: Int
        package var author: Author

        package init(message: CommitMessage, date: Int, author: Author) {
            self.message = message
            self.date = date
            self.author = author
        }
    }

    package enum Recorded: Sendable, Equatable {
        /// A new commit, its id.
        case committed(String)
        /// The snapshot's text is what the last commit holds: no commit.
        case same
    }

    package var exists: Bool { FileManager.default.fileExists(atPath: gitDirectory.appendingPathComponent("HEAD").path) }

    var pendingFile: URL { gitDirectory.appendingPathComponent("reader-snapshot-pending.json") }

    /// The commit a killed or failed run left unmade, if any.
    package var pending: Commit? {
        // No note, or one that cannot be read: no commit is made for it, and the next commit holds
        // its changes.
        guard let data = try? Data(contentsOf: pendingFile) else { return nil }
        return try? JSONDecoder().decode(Commit.self, from: data)
    }

    /// Says which commit a run is about to make, before it swaps the snapshot: a run killed between
    /// the two leaves it for the next. Best effort: without it, the next run that changes something commits all.
    package func markPending(_ commit: Commit) {
        // Encoding plain values does not fail. A note that cannot be written matters only to a run
        // killed before its commit: one that is not killed writes it again in `record`, which
        // fails and says why.
        guard exists, let data = try? JSONEncoder().encode(commit) else { return }
        try? data.write(to: pendingFile, options: .atomic)
    }

    /// The key in the repository's config that says reader-snapshot made it.
    static let ownerKey = "reader-snapshot.history"

    /// Refuses a repository that reader-snapshot did not make (a `.git` of the user's in the output
    /// folder): its branch, index and exclude file would be rewritten.
    package func checkOwned() async throws {
        guard exists else { return }
        let value = try await Git(gitDirectory: gitDirectory).run(["config", "--get", Self.ownerKey], acceptingOne: true)
        guard value == "true" else { throw HistoryError(.notOurs, path: gitDirectory.path) }
    }

    /// Commits `snapshot` as it is now, unless the last commit holds the same: of its files, what
    /// `formats` keep, and the covers.
    package func record(_ snapshot: URL, as commit: Commit, keeping formats: [FormatFiles]) async throws -> Recorded {
        try await prepare(keeping: formats)
        let data = try JSONEncoder().encode(commit)
        try data.write(to: pendingFile, options: .atomic)
        let recorded = try await self.commit(snapshot, commit)
        // A note left behind names a commit already made: the next run finds the same tree, and
        // makes none.
        try? FileManager.default.removeItem(at: pendingFile)
        return recorded
    }

    /// Makes the repository if it is not there yet.
    func prepare(keeping formats: [FormatFiles]) async throws {
        let manager = FileManager.default
        if !exists {
            // A history made before, cut short: started again. What cannot be removed is left to
            // `git init`, which makes the repository over it or fails and says why.
            try? manager.removeItem(at: gitDirectory)
            try await Git(gitDirectory: gitDirectory).run(["init", "--quiet", "--initial-branch=main"])
            // The notes, every version of them: for the owner alone, as the state folder is.
            try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: gitDirectory.path)
            let git = Git(gitDirectory: gitDirectory)
            // Packing runs in the run, not in a process of its own left behind.
            try await git.run(["config", "gc.autoDetach", "false"])
            try await git.run(["config", "core.autocrlf", "false"])
            try await git.run(["config", Self.ownerKey, "true"])
        }
        let info = gitDirectory.appendingPathComponent("info")
        try manager.createDirectory(at: info, withIntermediateDirectories: true)
        let excludeFile = info.appendingPathComponent("exclude")
        let exclude = Self.exclude(keeping: formats)
        // One that is missing or cannot be read is written anew.
        if (try? String(contentsOf: excludeFile, encoding: .utf8)) != exclude {
            try exclude.write(to: excludeFile, atomically: true, encoding: .utf8)
        }
    }

    private func commit(_ snapshot: URL, _ commit: Commit) async throws -> Recorded {
        clearStaleLocks()
        var git = Git(gitDirectory: gitDirectory, workTree: snapshot)
        // Every new blob into one pack rather than a file each: a first commit of 10,000 books took
        // 6.2 s of mostly kernel time as loose objects, 1.6 s this way. Only on this command: set in
        // the configuration, the threshold would make `git diff` call every file binary.
        try await git.run(["-c", "core.bigFileThreshold=1", "add", "--all", "."])
        let tree = try await git.run(["write-tree"])
        let parent = try await git.verify(Self.branch)
        if let parent, try await git.verify("\(parent)^{tree}") == tree { return .same }
        git.identity = (commit.author.name, commit.author.email, "@\(commit.date) +0000")
        let id = try await git.run(["commit-tree", tree] + (parent.map { ["-p", $0] } ?? []), input: commit.message.text)
        // Moved only from the parent it was made on: a second writer would fail, not be lost.
        try await git.run(["update-ref", "-m", "reader-snapshot: \(commit.message.subject)", Self.branch, id, parent ?? ""])
        try await git.run(["gc", "--auto", "--quiet"])
        return .committed(id)
    }

    /// git's lock files, left by a run that was killed: the caller holds the output's lock, so no
    /// other git command of ours can be running on this repository.
    private func clearStaleLocks() {
        for name in ["index.lock", "HEAD.lock", "refs/heads/main.lock", "packed-refs.lock", "config.lock", "shallow.lock"] {
            // Most are not there. One that cannot be removed makes git fail on it, and say so.
            try? FileManager.default.removeItem(at: gitDirectory.appendingPathComponent(name))
        }
    }
}

extension Git {
    /// The object `revision` names, or nil when there is none.
    func verify(_ revision: String) async throws -> String? {
        let id = try await run(["rev-parse", "--quiet", "--verify", revision], acceptingOne: true)
        return id.isEmpty ? nil : id
    }
}
