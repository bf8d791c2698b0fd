import Foundation
import LibraryArchive

/// What a history says, night by night: of the library (the commits' messages), or of one book
/// (its versions in each night's `library.json`, and its note's changes as a diff).
package struct HistoryLog: Sendable {
    package let repository: HistoryRepository

    package init(_ repository: HistoryRepository) {
        self.repository = repository
    }

    /// One night's commit.
    package struct Night: Sendable, Equatable {
        package var commit: String
        /// Seconds since 1970: the snapshot's date.
        package var date: Int
        package var message: String
    }

    /// The nights, newest first, from `since` (seconds since 1970) on.
    package func nights(since: Int? = nil) async throws -> [Night] {
        try await commits(newestFirst: true).filter { since == nil || $0.date >= since! }
    }

    func commits(newestFirst: Bool, touching path: String? = nil) async throws -> [Night] {
        let git = Git(gitDirectory: repository.gitDirectory)
        guard try await git.verify(HistoryRepository.branch) != nil else { return [] }
        var arguments = ["log", "--format=%x1e%H%x1f%at%x1f%B"]
        if !newestFirst { arguments.append("--reverse") }
        arguments.append(HistoryRepository.branch)
        // Not the commits that removed it (a night without the json format): there is nothing to read there.
        if let path { arguments += ["--diff-filter=ACMRT", "--", path] }
        let text = try await git.run(arguments)
        return text.split(separator: "\u{1E}").compactMap { record in
            let fields = record.split(separator: "\u{1F}", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, let date = Int(fields[1]) else { return nil }
            return Night(commit: String(fields[0]), date: date,
                         message: fields[2].trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// A book as one night's `library.json` has it.
    package struct BookVersion: Sendable, Equatable {
        package var title: String
        package var author: String?
        package var isbn: String?
        package var shelves: [String]
        package var note: String
    }

    /// A night on which the book was added, changed or removed.
    package struct BookNight: Sendable {
        package var night: Night
        /// nil: the book is not in that night's library.
        package var version: BookVersion?
        /// The note's change, as a unified diff's hunks; empty when the note did not change.
        package var noteDiff: String
        package var previous: BookVersion?
    }

    /// The nights `id` changed, oldest first: each night's `library.json` is read, and its entry
    /// compared with the night before's.
    package func book(_ id: Int, since: Int? = nil) async throws -> [BookNight] {
        let nights = try await commits(newestFirst: false, touching: "library.json")
        guard !nights.isEmpty else { throw HistoryError(.noLibrary, path: repository.gitDirectory.path) }
        let scratch = try Self.scratchFolder()
        // A scratch folder that cannot be removed stays readable by its owner alone, as made.
        defer { try? FileManager.default.removeItem(at: scratch) }
        let git = Git(gitDirectory: repository.gitDirectory)
        var changes: [BookNight] = []
        var last: BookVersion?
        var seen = false
        for night in nights {
            let file = scratch.appendingPathComponent("library.json")
            try await git.run(["show", "\(night.commit):library.json"], writingTo: file)
            let version = try Self.version(of: id, in: file)
            seen = seen || version != nil
            if version != last {
                var diff = ""
                if let version, let last, version.note != last.note {
                    diff = try await noteDiff(from: last.note, to: version.note, in: scratch)
                }
                if since == nil || night.date >= since! {
                    changes.append(BookNight(night: night, version: version, noteDiff: diff, previous: last))
                }
                last = version
            }
        }
        guard seen else { throw HistoryError(.bookNotFound(id: id), path: repository.gitDirectory.path) }
        return changes
    }

    /// A folder of its own for the nights' files read out of git. The notes of every night pass
    /// through it: for the owner alone, as the history is.
    static func scratchFolder() throws -> URL {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("reader-snapshot-history-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return scratch
    }

    static func version(of id: Int, in file: URL) throws -> BookVersion? {
        let library = try LibraryFile.read(from: file)
        guard let place = library.entries.indices.first(where: { library.entries.id(at: $0) == id }) else { return nil }
        let card = library.entries[place]
        let shelves = library.frame.shelves.filter { $0.bookIDs.contains(id) }.map(\.name)
        return BookVersion(title: card.title, author: card.author, isbn: card.isbn, shelves: shelves,
                           note: try library.noteMarkdown(at: place))
    }

    /// git's own diff of the two notes: its hunks, without the file headers.
    private func noteDiff(from old: String, to new: String, in scratch: URL) async throws -> String {
        let before = scratch.appendingPathComponent("before.md"), after = scratch.appendingPathComponent("after.md")
        try Data(old.utf8).write(to: before)
        try Data(new.utf8).write(to: after)
        let diff = try await Git(gitDirectory: repository.gitDirectory)
            .run(["diff", "--no-index", "--no-color", "--unified=2", "--", before.path, after.path], acceptingOne: true)
        return diff.split(separator: "\n", omittingEmptySubsequences: false)
            .drop { !$0.hasPrefix("@@") }
            .joined(separator: "\n")
    }
}
