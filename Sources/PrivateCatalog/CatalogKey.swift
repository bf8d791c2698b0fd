import Crypto
import CryptoExtras
import Foundation
import SnapshotStore
import Support

/// The keys of a private catalog, from its share password and a salt of its own, and what a
/// visitor's browser needs to make the same ones (`lock.json`). The browser's Web Crypto makes them
/// the same way, step for step (`assets/unlock.js`):
///
/// 1. PBKDF2-SHA-256 of the password with the salt, `iterations` times, gives 32 bytes;
/// 2. HKDF-SHA-256 of those gives each key its own bytes: the files' AES-256-GCM key, the key
///    that names files, the key that makes nonces (ours alone), and a check that tells a wrong
///    password without opening a file.
package struct CatalogKey: Sendable, CustomStringConvertible, Encodable {
    /// OWASP's figure for PBKDF2-SHA-256 in 2023 and since.
    package static let iterations = 600_000
    /// Where the salt is kept between nights, in the private state (never published but in lock.json).
    package static let lockFile = "private-catalog.json"

    let fileKey: SymmetricKey
    let nameKey: SymmetricKey
    let nonceKey: SymmetricKey
    /// Names this key and no other: a new password gives another check, and everything is sealed again.
    package let check: String
    package let salt: Data
    package let iterations: Int

    package init(password: SharePassword, salt: Data, iterations: Int = CatalogKey.iterations) throws {
        let master = try KDF.Insecure.PBKDF2.deriveKey(from: Data(password.text.utf8), salt: salt, using: .sha256,
                                                      outputByteCount: 32, unsafeUncheckedRounds: iterations)
        func part(_ name: String, _ bytes: Int = 32) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(inputKeyMaterial: master, salt: Data(), info: Data("reader-snapshot \(name)".utf8), outputByteCount: bytes)
        }
        fileKey = part("file key")
        nameKey = part("name key")
        nonceKey = part("nonce key")
        check = part("check", 16).withUnsafeBytes { Array($0).hexString }
        self.salt = salt
        self.iterations = iterations
    }

    /// The key of the catalog whose private state is `stateFolder`: its salt as kept there, or a new
    /// random one (kept by `keep(in:)` once the catalog is written).
    package static func make(password: SharePassword, stateFolder: URL) throws -> CatalogKey {
        let file = stateFolder.appendingPathComponent(lockFile)
        // One that is there but cannot be read is not replaced by a new salt: every file would be
        // sealed anew, without a word.
        if FileManager.default.fileExists(atPath: file.path) {
            let data: Data
            do { data = try Data(contentsOf: file) } catch {
                throw SharePasswordError("The private catalog's state \(file.path) could not be read (\(SnapshotWriter.describe(error))): "
                    + "make it readable, or delete it to encrypt the catalog anew under a new salt.")
            }
            // One that is not the JSON this tool writes is damaged, and said so.
            guard let kept = try? JSONDecoder().decode(Kept.self, from: data), let salt = Data(base64Encoded: kept.salt), salt.count >= 16 else {
                throw SharePasswordError("The private catalog's state \(file.path) is damaged: delete it to encrypt the catalog anew under a new salt.")
            }
            return try CatalogKey(password: password, salt: salt, iterations: max(kept.iterations, iterations))
        }
        // 16 random bytes from swift-crypto's own generator.
        let salt = SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }
        return try CatalogKey(password: password, salt: salt)
    }

    /// What the private state keeps: the salt, and the check of the key last used, so that a
    /// changed password is told.
    struct Kept: Codable {
        var salt: String
        var iterations: Int
        var check: String
    }

    /// The check of the key the catalog was last sealed with, as the private state keeps it.
    package static func lastCheck(in stateFolder: URL) -> String? {
        // `make` has read this file already, or found none: nil is a first catalog, whose key cannot have changed.
        (try? Data(contentsOf: stateFolder.appendingPathComponent(lockFile))).flatMap { try? JSONDecoder().decode(Kept.self, from: $0) }?.check
    }

    /// Keeps the salt (and this key's check) in the private state, readable by its owner alone.
    package func keep(in stateFolder: URL) throws {
        try FileManager.default.createDirectory(at: stateFolder, withIntermediateDirectories: true)
        let data = try JSONEncoder().encode(Kept(salt: salt.base64EncodedString(), iterations: iterations, check: check))
        let file = stateFolder.appendingPathComponent(Self.lockFile)
        try data.write(to: file, options: .atomic)
        chmod(file.path, 0o600)
    }

    /// `lock.json`, published beside the sealed files: what a browser needs to make the keys from
    /// the password, and the check that tells it a wrong one. Nothing in it opens a file.
    package var lock: Data {
        Data("""
            {"format":1,"kdf":"PBKDF2-SHA-256","iterations":\(iterations),"salt":"\(salt.base64EncodedString())","check":"\(check)"}

            """.utf8)
    }

    package var description: String { "CatalogKey(check: \(check))" }
}

extension CatalogKey {
    /// A key is written as its check alone: what tells one key from another, never a key's bytes
    /// (a render digest and a quiet night's options are made from it).
    package func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(check)
    }
}
