import ArgumentParser

/// The exit codes, documented in the README and in `--help`.
enum ExitCodes {
    static let complete: Int32 = 0
    /// The snapshot was published, but some book details or covers could not be fetched.
    static let writtenWithGaps: Int32 = 2
    /// Bad usage: ArgumentParser's own code for a validation error.
    static let badUsage: Int32 = 64
    /// Publishing would delete more files on the host than --max-deletes allows: nothing was sent.
    static let tooManyDeletions: Int32 = 65
    /// `history --book ID`: no night of the timeline or the history holds that book. A question answered "none",
    /// not a command misused: a script can tell it from a mistyped option (64).
    static let bookNotInHistory: Int32 = 66
    /// Publishing is not set up: rclone is missing, or has no remote of that name.
    static let publishNotSetUp: Int32 = 68
    /// The server could not be reached, or failed: nothing was published.
    static let serverUnavailable: Int32 = 69
    /// The output folder could not be written.
    static let outputNotWritable: Int32 = 73
    /// The host refused an upload or could not be reached: nothing was deleted there.
    static let publishFailed: Int32 = 74
    /// The e-mail and password, or the api key, were rejected.
    static let credentialsRejected: Int32 = 77
    /// The templates are missing or broken.
    static let templatesBroken: Int32 = 78
    /// Stopped by Ctrl-C (SIGINT): 128 + 2, as a shell reports it. The last snapshot is kept.
    static let interrupted: Int32 = 130
    /// Stopped by SIGTERM (systemd, kill): 128 + 15. The last snapshot is kept.
    static let terminated: Int32 = 143

    /// The commands whose `--help` lists exit codes.
    enum Command: CaseIterable, Sendable {
        case export, render, publish, history, demo, sampleServer, copyTemplates
    }

    /// Every exit code, what it means, and the commands that can end with it. Each command's
    /// `--help` is made from its own rows, so that none lists a code it never returns.
    static let table: [(code: Int32, meaning: String, commands: Set<Command>)] = [
        (complete, "complete", Set(Command.allCases)),
        (1, "any other failure (the message says what)", Set(Command.allCases)),
        (writtenWithGaps, "written with gaps (some book details or covers could not be fetched)", [.export]),
        (badUsage, "bad usage", Set(Command.allCases)),
        (tooManyDeletions, "publishing would delete more than --max-deletes files on the host (nothing sent)", [.export, .publish]),
        (bookNotInHistory, "history --book: no night of the timeline or history has the book", [.history]),
        (publishNotSetUp, "publishing not set up: rclone missing, no such remote, or no such folder on this machine", [.export, .publish]),
        (serverUnavailable, "server unreachable, failing, or stopped answering during the crawl (nothing published)", [.export]),
        (outputNotWritable, "output not writable", [.export, .render, .demo]),
        (publishFailed, "the host refused an upload or could not be reached (nothing deleted there)", [.export, .publish]),
        (credentialsRejected, "credentials rejected", [.export]),
        (templatesBroken, "templates missing or broken", [.export, .render, .demo, .copyTemplates]),
        (interrupted, "interrupted (Ctrl-C): the last snapshot is kept", [.export, .render, .demo]),
        (terminated, "stopped by SIGTERM (systemctl stop, kill): the last snapshot is kept", [.export, .render, .demo]),
        (interrupted, "interrupted (Ctrl-C): nothing deleted on the host; the next publish goes on", [.publish]),
        (terminated, "stopped by SIGTERM: nothing deleted on the host; the next publish goes on", [.publish]),
    ]

    /// The "Exit codes:" paragraph of a command's `--help`; without a command, every code (the
    /// top-level help, which covers all the commands).
    static func helpText(for command: Command? = nil) -> String {
        var seen = Set<Int32>()
        // The top-level help says each code once, in its first (the snapshot's) words.
        let rows = table.filter { (command == nil || $0.commands.contains(command!)) && seen.insert($0.code).inserted }
        let header = command == nil ? "Exit codes (each command's --help lists its own):" : "Exit codes:"
        return ([header] + rows.map { row in
            let code = "\(row.code)"
            return "  " + code + String(repeating: " ", count: max(1, 4 - code.count)) + wrapped(row.meaning)
        }).joined(separator: "\n")
    }

    /// A meaning wrapped under itself, before argument-parser's 80 columns (which wraps a longer
    /// line at column 0, in the middle of the list) and before the manual page's: man indents the
    /// list by 5 and fills to 80, so a row is at most 6 + 66 + 5 = 77 columns there.
    static func wrapped(_ meaning: String, width: Int = 66) -> String {
        var lines: [String] = [], line = ""
        for word in meaning.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(line)
        return lines.joined(separator: "\n      ")
    }
}
