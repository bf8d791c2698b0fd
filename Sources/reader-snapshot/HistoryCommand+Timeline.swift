import Foundation
import History
import Site
import SnapshotStore
import Support

/// `history` on a snapshot that keeps a timeline: the story the timeline's pages tell, as text.
extension HistoryCommand {
    /// The timeline of the snapshot in `folder`: the folder's own, or with `--keep` the newest
    /// dated snapshot's. nil when it has none. One that cannot be read is an error, unless a git
    /// history is there to tell the nights instead: then it is said, and the history tells them.
    static func timeline(in folder: URL, besideHistory: Bool) throws -> (text: TimelineText, snapshot: URL)? {
        var snapshot = folder
        if !FileManager.default.fileExists(atPath: folder.appendingPathComponent("timeline.json").path),
           DatedSnapshots.holdsDatedSnapshots(folder), let newest = DatedSnapshots(root: folder, keep: 1).newest {
            snapshot = newest
        }
        do {
            return try TimelineText.read(in: snapshot).map { ($0, snapshot) }
        } catch {
            guard besideHistory else { throw HistoryError(.unreadableTimeline(detail: "\(error)"), path: snapshot.path) }
            // Standard error is where it is said; when it cannot be written, the history's nights tell all the same.
            try? FileHandle.standardError.write(contentsOf: Data("warning: \(error); the history's commits are told instead\n".utf8))
            return nil
        }
    }

    /// The timeline's days, newest first, or one book's story with its note's diffs.
    func tell(_ timeline: TimelineText, of snapshot: URL, repository: HistoryRepository?) async throws {
        guard let book else {
            let nights = timeline.nights(since: since)
            if nights.isEmpty { print(since.map { "Nothing changed since \($0)." } ?? "Nothing in the timeline yet.") }
            for night in nights { print(Self.describe(night), terminator: "") }
            return
        }
        guard timeline.tells(of: book) else {
            throw HistoryError(.bookNotInTimeline(id: book), path: snapshot.appendingPathComponent("timeline.json").path)
        }
        let diffs = try await Self.noteDiffs(of: book, in: repository, since: since.flatMap(Self.day))
        print(Self.describe(story: timeline.story(of: book, since: since), id: book, noteDiffs: diffs), terminator: "")
    }

    /// "2025-11-27  1 note written · 1 other change", then each event: "Emma: removed from Read".
    static func describe(_ night: TimelineText.Night) -> String {
        ([night.date + "  " + shown(night.summary)] + night.events.map { margin + line($0) }).joined(separator: "\n") + "\n"
    }

    /// The book's events, oldest first, each with its day; under a note's event, the note's
    /// change that night as the history's diff, when there is one.
    static func describe(story: [TimelineText.Event], id: Int, noteDiffs: [String: String]) -> String {
        var out = "", told = Set<String>()
        for event in story {
            out += event.date + "  " + line(event) + "\n"
            guard event.isNote, let diff = noteDiffs[event.date], told.insert(event.date).inserted else { continue }
            out += diff.split(separator: "\n", omittingEmptySubsequences: false)
                .map { margin + shown(String($0)) }.joined(separator: "\n") + "\n"
        }
        return out.isEmpty ? "Book \(id) did not change in these nights.\n" : out
    }

    /// "Frankenstein: moved from To Read to Reading", made fit to show.
    static func line(_ event: TimelineText.Event) -> String { shown(event.title) + ": " + shown(event.what) }

    /// The note's diff of each night that changed it, by day, from the git history; none without
    /// one, or when it never kept the book or a `library.json` (its nights are not the timeline's).
    static func noteDiffs(of book: Int, in repository: HistoryRepository?, since: Int?) async throws -> [String: String] {
        guard let repository else { return [:] }
        let nights: [HistoryLog.BookNight]
        do {
            nights = try await HistoryLog(repository).book(book, since: since)
        } catch let error as HistoryError {
            switch error.reason {
            case .bookNotFound, .noLibrary: return [:]
            default: throw error
            }
        }
        var diffs: [String: String] = [:]
        for night in nights where !night.noteDiff.isEmpty {
            diffs[date(night.night.date), default: ""] += (diffs[date(night.night.date)] == nil ? "" : "\n") + night.noteDiff
        }
        return diffs
    }
}
