import Foundation
import NIOConcurrencyHelpers
import Support
internal import Subprocess
internal import SystemPackage

/// Every rclone command the tool runs goes through here: the remote's listing, the uploads, the
/// deletions. rclone reads the remote's settings and credentials from its own config file or its
/// `RCLONE_CONFIG_NAME_*` variables; the tool passes its environment on, less its own secrets
/// (READER_PASSWORD, READER_API_KEY), and never reads, stores or prints the host's credentials.
package struct Rclone: Sendable {
    /// The rclone executable found on the PATH.
    package var executable: String

    /// rclone, as found on the PATH; nil when it is not installed.
    package static func find() -> Rclone? {
        Executable.find("rclone").map(Rclone.init(executable:))
    }

    package init(executable: String) {
        self.executable = executable
    }

    /// The remotes rclone knows, from its config file and its environment variables.
    package func remotes() async throws -> [String] {
        let printed = try await run(["listremotes"], step: "listing its remotes", target: "rclone")
        return printed.split(separator: "\n").map { line -> String in
            let name = line.trimmingCharacters(in: .whitespaces)
            return name.hasSuffix(":") ? String(name.dropLast()) : name
        }.filter { !$0.isEmpty }
    }

    /// Whether the remote keeps an MD5 of each file (S3 and most object stores do; WebDAV and SFTP
    /// servers mostly do not).
    package func keepsMD5(_ target: RemoteTarget) async throws -> Bool {
        let printed = try await run(["backend", "features", target.backend], step: "asking what the remote keeps", target: target.description)
        struct Features: Decodable { var Hashes: [String]? }
        // Features not as this build reads them are taken for no MD5: the record of the last
        // publish then vouches for a file's bytes, or the file goes up again.
        let features = try? JSONDecoder().decode(Features.self, from: Data(printed.utf8))
        return features?.Hashes?.contains { $0.lowercased() == "md5" } ?? false
    }

    /// Every file under the target, with its size and, where the remote keeps one, its MD5. A
    /// target that does not exist yet is empty.
    package func list(_ target: RemoteTarget, withMD5: Bool) async throws -> [String: RemoteFile] {
        var arguments = ["lsf", "--recursive", "--files-only", "--format", withMD5 ? "shp" : "sp", "--separator", "\t"]
        if withMD5 { arguments += ["--hash", "MD5"] }
        let printed: String
        do {
            printed = try await run(arguments + [target.description], step: "listing what the host has", target: target.description)
        } catch let error as PublishError {
            // rclone's exit code 3: the directory is not there yet, as on a first publish.
            if case .rcloneFailed(_, 3, _) = error.reason { return [:] }
            throw error
        }
        var files: [String: RemoteFile] = [:]
        for line in printed.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: "\t", maxSplits: withMD5 ? 2 : 1, omittingEmptySubsequences: false)
            guard fields.count == (withMD5 ? 3 : 2), let size = Int(fields[0]) else { continue }
            let md5 = withMD5 && !fields[1].isEmpty ? fields[1].lowercased() : nil
            files[String(fields[fields.count - 1])] = RemoteFile(size: size, md5: md5)
        }
        return files
    }

    /// Uploads `paths` (below `source`) to the target, with these headers, without asking the host
    /// first: the plan has already compared them.
    package func copy(_ paths: [String], from source: URL, to target: RemoteTarget, headers: ContentHeaders) async throws {
        try await withList(paths) { list in
            _ = try await run(["copy", "--files-from-raw", list.path, "--no-check-dest",
                               "--header-upload", "Content-Type: \(headers.contentType)",
                               "--header-upload", "Cache-Control: \(headers.cacheControl)",
                               source.path, target.description],
                              step: "uploading", target: target.description)
        }
    }

    /// Deletes `paths` below the target.
    package func delete(_ paths: [String], at target: RemoteTarget) async throws {
        try await withList(paths) { list in
            _ = try await run(["delete", "--files-from-raw", list.path, target.description], step: "deleting", target: target.description)
        }
    }

    /// A list of paths for `--files-from-raw`, in a private temporary file removed afterwards.
    private func withList(_ paths: [String], _ body: (URL) async throws -> Void) async throws {
        let list = FileManager.default.temporaryDirectory.appendingPathComponent("reader-snapshot-publish-\(UUID().uuidString).txt")
        guard FileManager.default.createFile(atPath: list.path, contents: Data((paths.joined(separator: "\n") + "\n").utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw PublishError(.unreadable(detail: "cannot write a list of files in \(FileManager.default.temporaryDirectory.path)"), path: list.path)
        }
        // A list that cannot be removed holds only the snapshot's paths, readable by its owner alone.
        defer { try? FileManager.default.removeItem(at: list) }
        try await body(list)
    }

    /// Runs `rclone ARGUMENTS` and returns what it printed. Its errors are kept in its own words
    /// (the last lines it printed), its notices left out.
    private func run(_ arguments: [String], step: String, target: String) async throws -> String {
        let result: ExecutionResult<Void, StringOutput<UTF8>, StringOutput<UTF8>>
        do {
            result = try await Subprocess.run(
                .path(FilePath(executable)), arguments: Arguments(["--quiet"] + arguments),
                environment: .inherit.updating(["READER_PASSWORD": nil, "READER_API_KEY": nil]),
                input: .none, output: .string(limit: 1 << 30), error: .string(limit: 1 << 20)
            ) { execution in
                RunningChildren.shared.add(execution.processIdentifier.value)
            }
        } catch {
            throw PublishError(.rcloneFailed(step: step, status: 127, said: "\(error)"), path: target)
        }
        let status: Int32
        switch result.terminationStatus {
        case .exited(let code): status = code
        case .signaled(let signal): status = 128 + signal
        }
        RunningChildren.shared.remove(result.processIdentifier.value)
        guard status == 0 else {
            throw PublishError(.rcloneFailed(step: step, status: status, said: Self.words(result.standardError)), path: target)
        }
        return result.standardOutput
    }

    /// The last lines of what rclone printed, without the time stamps it puts before each.
    static func words(_ printed: String) -> String {
        let lines = printed.split(separator: "\n").map { line -> String in
            // "2026/11/25 04:29:14 ERROR : books/1-a.html: Failed to copy: …"
            let text = String(line)
            let stamp = Array(text.utf8.prefix(20))
            let shape = Array("0000/00/00 00:00:00 ".utf8)
            let stamped = stamp.count == 20 && zip(stamp, shape).allSatisfy { $1 == UInt8(ascii: "0") ? ($0 >= 48 && $0 <= 57) : $0 == $1 }
            return stamped ? String(text.dropFirst(20)) : text
        }.filter { !$0.hasPrefix("NOTICE: Config file") && !$0.isEmpty }
        let kept = lines.suffix(6).joined(separator: "\n  ")
        return kept.count > 2000 ? String(kept.suffix(2000)) : kept
    }
}

/// The rclone processes under way, so that Ctrl-C or SIGTERM stops them with the tool instead of
/// leaving them uploading behind its back.
package final class RunningChildren: Sendable {
    package static let shared = RunningChildren()
    private let processes = NIOLockedValueBox(Set<pid_t>())

    func add(_ process: pid_t) { processes.withLockedValue { _ = $0.insert(process) } }
    func remove(_ process: pid_t) { processes.withLockedValue { _ = $0.remove(process) } }

    /// Sends SIGTERM to every rclone still running.
    package func terminateAll() {
        processes.withLockedValue { for process in $0 { kill(process, SIGTERM) } }
    }
}
