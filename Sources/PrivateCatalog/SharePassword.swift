import Foundation
import Support

/// The password a private catalog is opened with (`--share-password-file`), read from a file that
/// its owner alone may read. It is never printed: its description says only that it is there.
package struct SharePassword: Sendable, CustomStringConvertible {
    /// The shortest password taken: eight characters cost an attacker who guesses blindly years at
    /// this machine's rate of PBKDF2 guesses (docs/security.md); a shorter one is refused, not warned about.
    package static let shortest = 8

    /// In Unicode's composed form (NFC), as the page's script composes what the visitor types: an
    /// "é" typed either way opens the same catalog.
    let text: String

    package init(_ text: String) throws {
        let composed = text.precomposedStringWithCanonicalMapping
        guard composed.count >= Self.shortest else {
            throw SharePasswordError("The share password must be at least \(Self.shortest) characters long; this one has \(composed.count).")
        }
        self.text = composed
    }

    /// The first line of `path`, which must be readable by its owner alone.
    package static func read(from path: String) throws -> SharePassword {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SharePasswordError("Cannot read the share password file \(path).")
        }
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
           let permissions = attributes[.posixPermissions] as? Int, !SecretFile.isPrivate(path: path, permissions: permissions) {
            throw SharePasswordError("The share password file \(path) can be read by others; run: chmod 600 \(path)")
        }
        // A line ends at any newline: "\r\n" is one Character, which a split at "\n" does not see.
        let password = String(String(decoding: data, as: UTF8.self)
            .split(maxSplits: 1, omittingEmptySubsequences: false, whereSeparator: \.isNewline).first ?? "")
        guard !password.isEmpty else { throw SharePasswordError("The share password file \(path) is empty: its first line is the password.") }
        return try SharePassword(password)
    }

    package var description: String { "SharePassword(hidden)" }
}

/// A share password that cannot be taken, said in words.
package struct SharePasswordError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
