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
        do {
            return try SharePassword(try SecretFile.firstLine(of: path, named: "share password file"))
        } catch let refusal as SecretFile.Refusal {
            throw SharePasswordError(refusal.description)
        }
    }

    package var description: String { "SharePassword(hidden)" }
}

/// A share password that cannot be taken, said in words.
package struct SharePasswordError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
