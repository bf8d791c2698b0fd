import Foundation
import Support
internal import Subprocess
internal import SystemPackage

/// Every git command the tool runs goes through here (rclone, for `publish`, is started by Publish).
///
/// git is told everything through its environment, which is built afresh: the user's git
/// configuration (a signing key, hooks, autocrlf) cannot change what is committed, and the
/// tool's own environment (READER_PASSWORD, READER_API_KEY) never reaches git.
package struct Git: Sendable {
    /// The repository: `DIR/.git`, or `DIR/history.git` beside dated snapshots.
    package var gitDirectory: URL
    /// The snapshot being committed.
    package var workTree: URL?
    /// Who commits, and when: the snapshot's date.
    package var identity: (name: String, email: String, date: String)?

    package init(gitDirectory: URL, workTree: URL? = nil) {
        self.gitDirectory = gitDirectory
        self.workTree = workTree
    }

    /// Runs `git ARGUMENTS` and returns what it printed, without the last newline.
    /// With `acceptingOne`, an exit code of 1 is an answer too (`rev-parse --verify`, `diff`).
    @discardableResult
    package func run(_ arguments: [String], input: String? = nil, acceptingOne: Bool = false) async throws -> String {
        let result = try await launch(arguments, input: input, output: .string(limit: 64 << 20), acceptingOne: acceptingOne)
        return String(result.output.trimmingSuffix("\n"))
    }

    /// Runs `git ARGUMENTS` with what it prints going to `file` (a blob can be larger than memory likes).
    package func run(_ arguments: [String], writingTo file: URL) async throws {
        let descriptor = try FileDescriptor.open(FilePath(file.path), .writeOnly, options: [.create, .truncate], permissions: [.ownerReadWrite])
        _ = try await launch(arguments, input: nil, output: .fileDescriptor(descriptor, closeAfterSpawningProcess: true))
    }

    private func launch<Output: OutputProtocol>(_ arguments: [String], input: String?, output: Output, acceptingOne: Bool = false)
        async throws -> (status: Int32, output: Output.OutputType) {
        let command = "git " + (arguments.first ?? "")
        let result: ExecutionResult<Void, Output, StringOutput<UTF8>>
        do {
            if let input {
                result = try await Subprocess.run(.name("git"), arguments: Arguments(arguments), environment: environment,
                                                  input: .string(input), output: output, error: .string(limit: 1 << 16))
            } else {
                result = try await Subprocess.run(.name("git"), arguments: Arguments(arguments), environment: environment,
                                                  input: .none, output: output, error: .string(limit: 1 << 16))
            }
        } catch {
            throw HistoryError(.gitMissing(detail: "\(error)"), path: gitDirectory.path)
        }
        let status: Int32
        switch result.terminationStatus {
        case .exited(let code): status = code
        case .signaled(let signal): status = 128 + signal
        }
        if status == 0 || (acceptingOne && status == 1) { return (status, result.standardOutput) }
        let said = result.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
        throw HistoryError(.gitFailed(command: command, status: status, said: said), path: gitDirectory.path)
    }

    private var environment: Environment {
        var values: [Environment.Key: String] = [
            "PATH": Executable.searchPath,
            "GIT_DIR": gitDirectory.path,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": "/dev/null",
            "GIT_TERMINAL_PROMPT": "0",
            "LC_ALL": "C",
            // A cron job has no HOME; git looks there for nothing it needs here.
            "HOME": gitDirectory.path,
        ]
        if let workTree { values["GIT_WORK_TREE"] = workTree.path }
        if let identity {
            values["GIT_AUTHOR_NAME"] = identity.name
            values["GIT_AUTHOR_EMAIL"] = identity.email
            values["GIT_AUTHOR_DATE"] = identity.date
            values["GIT_COMMITTER_NAME"] = identity.name
            values["GIT_COMMITTER_EMAIL"] = identity.email
            values["GIT_COMMITTER_DATE"] = identity.date
        }
        return .custom(values)
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : Substring(self)
    }
}
