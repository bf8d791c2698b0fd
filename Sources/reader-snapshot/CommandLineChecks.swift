import ArgumentParser
import Foundation
import Support

/// argument-parser runs a command's `validate()` before it looks for options it does not know,
/// so a check there would report a misspelt option (`--sever URL`) as the value it failed to give
/// ("Give the Reader server"), and argument-parser's "Did you mean '--server'?" would never be
/// seen. So the commands check their values in `check()`, which runs once the line is parsed, and
/// declare no option or argument required: a missing one is told by `check()`.
protocol CheckedCommand {
    /// The command's values checked; a mistake is a `ValidationError`, told as a usage error.
    func check() throws
}

enum CommandLineChecks {
    /// What `check()` says of a value that was not given, in argument-parser's words.
    static func required<Value>(_ value: Value?, _ synopsis: String, _ what: String) throws -> Value {
        guard let value else { throw ValidationError("Missing expected argument '\(synopsis)': \(what).") }
        return value
    }
}

extension ReaderSnapshot {
    /// In place of argument-parser's `main()`, which `Main` calls: one parse, the command's own
    /// checks, then the command.
    static func main() async {
        do {
            var command = try await asyncParseAsRoot()
            do {
                try (command as? CheckedCommand)?.check()
                if var asyncCommand = command as? AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
            } catch let error as ValidationError {
                usageError(error.message, of: type(of: command))
            }
        } catch {
            // --help and --version end the parse as argument-parser says them; an exit code the
            // run chose (written with gaps, a failure it told) ends it without a word more.
            guard exitCode(for: error) != .success, !(error is ExitCode) else { exit(withError: error) }
            if let (typed, meant) = mistypedCommand(CommandLine.arguments.dropFirst().first) {
                usageError("Unknown command '\(typed)'. Did you mean '\(meant)'?", of: Self.self)
            }
            // Its own usage errors in the tool's words: "error:", as every other error is told.
            var text = fullMessage(for: error)
            if text.hasPrefix("Error: ") { text = "error: " + text.dropFirst("Error: ".count) }
            // Standard error is where it is said; when it cannot be written, the exit code alone tells.
            if !text.isEmpty { try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8)) }
            Foundation.exit(exitCode(for: error).rawValue)
        }
    }

    /// The first argument, when it is no command but one is close to it ("exprot" for "export").
    static func mistypedCommand(_ first: String?) -> (String, String)? {
        guard let first, !first.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.compactMap { $0.configuration.commandName }
        guard !names.contains(first) else { return nil }
        let nearest = names.map { ($0, editDistance(Array(first.lowercased()), Array($0))) }.min { $0.1 < $1.1 }
        guard let nearest, nearest.1 <= 2 else { return nil }
        return (first, nearest.0)
    }

    /// A usage error only the command's checks can see (a password file others can read), told
    /// as argument-parser tells its own: with the command's usage line, not the top-level one it
    /// would print for an error thrown from `run()`.
    static func usageError(_ message: String, of command: ParsableCommand.Type) -> Never {
        let top = configuration.commandName ?? "reader-snapshot"
        let name = command == Self.self ? top : "\(top) \(command.configuration.commandName ?? "")"
        let usage = usageString(for: command).replacingOccurrences(of: "\n", with: "\n       ")
        // Standard error is where it is said; when it cannot be written, the exit code alone tells.
        try? FileHandle.standardError.write(contentsOf: Data("""
            error: \(message)
            Usage: \(usage)
              See '\(name) --help' for more information.

            """.utf8))
        Foundation.exit(ExitCode.validationFailure.rawValue)
    }
}
