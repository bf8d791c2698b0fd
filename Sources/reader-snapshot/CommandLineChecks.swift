import ArgumentParser
import Foundation

/// ArgumentParser decodes a command, runs its `validate()`, and only when every command of the
/// line has been validated does it look for the options it did not recognise. A misspelt option
/// (`--sever URL`) was therefore reported as the value it failed to give ("Give the Reader
/// server"), and ArgumentParser's own "Did you mean '--server'?" was never seen. So the line is
/// parsed twice: first with the commands' own checks off, which leaves ArgumentParser's (unknown
/// options with their suggestions, values of the wrong type, stray arguments); then with them on.
/// For the same reason no option or argument is declared required: a missing one is told by
/// `validate()`, in the second parse, after the unknown options of the first.
enum CommandLineChecks {
    /// False during the first parse: every `validate()` returns at once, but for a mistake that
    /// must be told before any other (a password given as an option).
    @TaskLocal static var enabled = true

    /// What `validate()` says of a value that was not given, in ArgumentParser's words.
    static func required<Value>(_ value: Value?, _ synopsis: String, _ what: String) throws -> Value {
        guard let value else { throw ValidationError("Missing expected argument '\(synopsis)': \(what).") }
        return value
    }
}

extension ReaderSnapshot {
    /// In place of ArgumentParser's `main()`, which `Main` calls: the two parses, then the command.
    static func main() async {
        do {
            _ = try await CommandLineChecks.$enabled.withValue(false) { try await asyncParseAsRoot() }
            var command = try await asyncParseAsRoot()
            do {
                if var asyncCommand = command as? AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
            } catch let error as ValidationError {
                usageError(error.message, of: type(of: command))
            }
        } catch {
            exit(withError: error)
        }
    }

    /// A usage error only `run()` can see (a password file others can read), told as
    /// ArgumentParser tells those of `validate()`: with the command's own usage line, not the
    /// top-level one it would print for an error thrown from `run()`.
    static func usageError(_ message: String, of command: ParsableCommand.Type) -> Never {
        let name = command == Self.self ? _commandName : "\(_commandName) \(command._commandName)"
        let usage = usageString(for: command).replacingOccurrences(of: "\n", with: "\n       ")
        FileHandle.standardError.write(Data("""
            \(_errorPrefix)\(message)
            Usage: \(usage)
              See '\(name) --help' for more information.

            """.utf8))
        Foundation.exit(ExitCode.validationFailure.rawValue)
    }
}
