import ArgumentParser
import Foundation
import History
import Support

/// `reader-snapshot history DIR`: the snapshot's timeline, night by night, in the pages' words;
/// or, for a snapshot without one, what an export with --history kept.
struct HistoryCommand: AsyncParsableCommand, CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Tell what changed, night by night: the snapshot's timeline, and the history 'export --history' keeps.",
        // Written out: <dir> is checked by check(), not declared required (see CommandLineChecks).
        usage: "reader-snapshot history <dir> [--book <id>] [--since <YYYY-MM-DD>]",
        discussion: """
        DIR is the export's --output folder (with --keep, its newest snapshot is read). Without \
        --book: the snapshot's timeline (timeline.json), each day newest first with its counts, \
        then its events in the words of the timeline's pages. With --book ID: that book's story, \
        oldest first, and with --history its note's changes as a diff under each note's event (a \
        book's id begins its page's name: books/ID-title.html). No --history is needed for the \
        timeline. A snapshot an older version made has none: then each night's commit of the \
        history is told, with the books added, removed, edited and moved, and a book's nights \
        from the library each night kept. \
        The history is a git repository kept beside the folder, never in it: \
        PARENT/.NAME.history.git for the folder PARENT/NAME (with --keep, beside the folder of \
        the dated snapshots). git reads it too: \
        git --git-dir PARENT/.NAME.history.git --work-tree PARENT/NAME log -p

        \(ExitCodes.helpText(for: .history))
        """
    )

    @Argument(help: ArgumentHelp("The export's --output folder.", valueName: "dir"))
    var folder: String?

    @Option(name: .long, help: ArgumentHelp("Tell one book's story.", valueName: "id"))
    var book: Int?

    @Option(name: .long, help: ArgumentHelp("From this day on.", valueName: "YYYY-MM-DD"))
    var since: String?

    func check() throws {
        let folder = try CommandLineChecks.required(folder, "<dir>", "the export's --output folder")
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw ValidationError("\(folder): no such folder; give the --output folder of an export.")
        }
        if let since, Self.day(since) == nil { throw ValidationError("--since \(since): not a date (use YYYY-MM-DD).") }
    }

    /// Midnight UTC of "YYYY-MM-DD", in seconds since 1970.
    static func day(_ text: String) -> Int? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int32($0) }
        guard parts.count == 3, let year = parts[0], let month = parts[1], let day = parts[2],
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var fields = tm()
        (fields.tm_year, fields.tm_mon, fields.tm_mday) = (year - 1900, month - 1, day)
        let seconds = timegm(&fields)
        // timegm rolls 2026-02-31 into March: such a day is not a date.
        guard fields.tm_mday == day, fields.tm_mon == month - 1 else { return nil }
        return Int(seconds)
    }

    func run() async throws {
        let folder = URL(fileURLWithPath: folder ?? "")
        let repository = HistoryRepository.find(from: folder)
        let from = since.flatMap(Self.day)
        do {
            if let timeline = try Self.timeline(in: folder, besideHistory: repository != nil) {
                try await tell(timeline.text, of: timeline.snapshot, repository: repository)
                return
            }
            guard let repository else { throw HistoryError(.noHistory, path: folder.path) }
            let log = HistoryLog(repository)
            if let book {
                print(Self.describe(book: book, try await log.book(book, since: from)), terminator: "")
            } else {
                let nights = try await log.nights(since: from)
                if nights.isEmpty { print(from == nil ? "No nights in this history yet." : "Nothing changed since \(since!).") }
                for night in nights { print(Self.describe(night), terminator: "") }
            }
        } catch let error as HistoryError {
            throw failure(error)
        }
    }

    func failure(_ error: HistoryError) -> ExitCode {
        // Standard error is where it is said; when it cannot be written, the exit code alone tells.
        try? FileHandle.standardError.write(contentsOf: Data("error: \(error)\n".utf8))
        return ExitCode(error.exitCode)
    }

    static let margin = String(repeating: " ", count: 12)

    static func date(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var fields = tm()
        gmtime_r(&time, &fields)
        return String(format: "%04d-%02d-%02d", fields.tm_year + 1900, fields.tm_mon + 1, fields.tm_mday)
    }

    /// "2026-11-24  1 added, 2 edited", then the books, one a line.
    static func describe(_ night: HistoryLog.Night) -> String {
        var lines = night.message.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        let subject = lines.isEmpty ? "" : lines.removeFirst()
        // The subject starts with the day; the commit's date is the one shown.
        let summary = subject.count > 12 && subject.dropFirst(10).hasPrefix(": ") ? String(subject.dropFirst(12)) : subject
        return ([date(night.date) + "  " + summary] + lines.map { margin + $0 }).joined(separator: "\n") + "\n"
    }

    static func describe(book id: Int, _ nights: [HistoryLog.BookNight]) -> String {
        var out = ""
        for night in nights {
            let day = date(night.night.date) + "  "
            guard let version = night.version else {
                out += day + "removed from the library\n"
                continue
            }
            guard let before = night.previous else {
                out += day + "added: \(shown(version.title))\(version.author.map { ", by \(shown($0))" } ?? "")"
                    + ", on \(shelves(version.shelves))\n"
                continue
            }
            var changes: [String] = []
            if before.title != version.title { changes.append("title: \(shown(before.title)) → \(shown(version.title))") }
            if before.author != version.author { changes.append("author: \(shown(before.author ?? "none")) → \(shown(version.author ?? "none"))") }
            if before.isbn != version.isbn { changes.append("ISBN: \(before.isbn ?? "none") → \(version.isbn ?? "none")") }
            if before.shelves != version.shelves { changes.append("shelf: \(shelves(before.shelves)) → \(shelves(version.shelves))") }
            if before.note != version.note { changes.append("note:") }
            out += day + changes.joined(separator: "; ") + "\n"
            if !night.noteDiff.isEmpty {
                out += night.noteDiff.split(separator: "\n", omittingEmptySubsequences: false)
                    .map { margin + UntrustedText.displayable(String($0)) }.joined(separator: "\n") + "\n"
            }
        }
        return out.isEmpty ? "Book \(id) did not change in these nights.\n" : out
    }

    static func shown(_ text: String) -> String { UntrustedText.displayable(text) }

    private static func shelves(_ names: [String]) -> String {
        names.isEmpty ? "no shelf" : names.map(shown).joined(separator: ", ")
    }
}
