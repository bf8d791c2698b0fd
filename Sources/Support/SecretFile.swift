import Foundation

/// Whether a file that holds a secret (a password) is kept as one: readable by its owner alone.
package enum SecretFile {
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
