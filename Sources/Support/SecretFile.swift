import Foundation

/// A file that holds a secret (a password), read only when it is kept as one: readable by its
/// owner alone. The one reader of `--password-file` and `--share-password-file`.
package enum SecretFile {
    /// Why a secret's file was not read, in words that name the file as the option does.
    package struct Refusal: Error, CustomStringConvertible {
        package let description: String
    }

    /// The first line of the file at `path` (`named`: "password file"), which must be readable by
    /// its owner alone and not empty.
    package static func firstLine(of path: String, named: String) throws(Refusal) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Refusal(description: "Cannot read the \(named) \(path).")
        }
        // Who may read it is known, or the secret is not taken. It was read just now: only a file
        // gone or replaced since cannot be looked at.
        let permissions: Int?
        do { permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int } catch {
            throw Refusal(description: "Cannot tell who may read the \(named) \(path): \(error.localizedDescription)")
        }
        guard let permissions else { throw Refusal(description: "Cannot tell who may read the \(named) \(path).") }
        guard isPrivate(path: path, permissions: permissions) else {
            throw Refusal(description: "The \(named) \(path) can be read by others; run: chmod 600 \(path)")
        }
        let line = firstLine(String(decoding: data, as: UTF8.self))
        // Sent, an empty password comes back as the server's 401: told here, in words about the file.
        guard !line.isEmpty else { throw Refusal(description: "The \(named) \(path) is empty: its first line is the password.") }
        return line
    }

    /// A password file or pipe usually ends with a newline that is not part of the password: a
    /// line ends at any newline, "\r\n" included (one Character in Swift, which a split at "\n"
    /// does not see).
    package static func firstLine(_ text: String) -> String {
        String(text.split(maxSplits: 1, omittingEmptySubsequences: false, whereSeparator: \.isNewline).first ?? "")
    }

    /// systemd's credentials are the one exception. On tmpfs (systemd 254 and later, Linux 6.4 and
    /// later) a credential stays root's, mode 0400, and the service's user reads it through an ACL,
    /// whose mask shows in the group's bits as 0440. Directly inside `$CREDENTIALS_DIRECTORY`, which
    /// systemd makes readable by that service alone, the group's read bit is therefore allowed;
    /// anything else, a write bit or a bit for others, is not.
    package static func isPrivate(path: String, permissions: Int,
                                  credentialsDirectory: String? = ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"]) -> Bool {
        if permissions & 0o077 == 0 { return true }
        guard let credentialsDirectory, !credentialsDirectory.isEmpty, permissions & 0o037 == 0 else { return false }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path
        return folder == URL(fileURLWithPath: credentialsDirectory).standardizedFileURL.path
    }
}
