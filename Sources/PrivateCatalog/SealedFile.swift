import Crypto
import Foundation
import Support

/// One file of a private catalog, sealed: AES-256-GCM over the file padded to its size bucket, with
/// the file's path as associated data (a host that swaps two files is found out), under a nonce
/// made from the path and the content with a keyed hash (HMAC-SHA-256). The same file under the
/// same key is sealed to the same bytes, so a quiet night has nothing new to upload; two different
/// files never share a nonce but by a 96-bit collision.
///
/// On the host it is `c/<32 hex digits>`: the first half of HMAC-SHA-256 of its path under the
/// name key. Its bytes are the nonce (12), the ciphertext, and the tag (16), as Web Crypto reads them.
package enum SealedFile {
    package static let folder = "c"

    /// The name on the host of the file at `path`.
    package static func name(of path: String, key: CatalogKey) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data(path.utf8), using: key.nameKey)
        return folder + "/" + Array(code).prefix(16).hexString
    }

    /// The nonce of `plain` at `path`: the path's length first, so that no path and content run
    /// into another's. A sealed file begins with it: one on the host that does is this content,
    /// already sealed under this key.
    static func nonce(of plain: Data, path: String, key: CatalogKey) -> [UInt8] {
        var hash = HMAC<SHA256>(key: key.nonceKey)
        let name = Data(path.utf8)
        hash.update(data: withUnsafeBytes(of: UInt64(name.count).bigEndian) { Data($0) })
        hash.update(data: name)
        hash.update(data: plain)
        return Array(Array(hash.finalize()).prefix(12))
    }

    package static func seal(_ plain: Data, path: String, key: CatalogKey) throws -> Data {
        try seal(plain, path: path, key: key, nonce: nonce(of: plain, path: path, key: key))
    }

    /// `plain` sealed under the nonce `nonce(of:path:key:)` gave, made once by a caller that also
    /// looks for it on the host.
    static func seal(_ plain: Data, path: String, key: CatalogKey, nonce: [UInt8]) throws -> Data {
        var padded = plain
        padded.append(0x80)
        padded.append(Data(count: paddedSize(plain.count + 1) - padded.count))
        let box = try AES.GCM.seal(padded, using: key.fileKey, nonce: try AES.GCM.Nonce(data: nonce), authenticating: Data(path.utf8))
        guard let combined = box.combined else { throw SealError.cannotSeal(path) }
        return combined
    }

    /// The size a sealed file of `plain` bytes has on the host.
    package static func sealedSize(of plain: Int) -> Int { 12 + paddedSize(plain + 1) + 16 }

    package static func open(_ sealed: Data, path: String, key: CatalogKey) throws -> Data {
        let box = try AES.GCM.SealedBox(combined: sealed)
        let padded = try AES.GCM.open(box, using: key.fileKey, authenticating: Data(path.utf8))
        guard let end = padded.lastIndex(where: { $0 != 0 }), padded[end] == 0x80 else { throw SealError.badPadding(path) }
        return padded.prefix(upTo: end)
    }

    /// Padmé (Nikitin et al., "Reducing metadata leakage from encrypted files and communication
    /// with PURBs", 2019): a size rounded up so that at most O(log log n) of its bits tell
    /// anything, at a cost of at most 12% (and 1/8 or less past a few hundred bytes). A page
    /// of a book with a short note and one with a long note land, most of them, in one bucket.
    package static func paddedSize(_ size: Int) -> Int {
        guard size > 2 else { return size }
        let e = Int.bitWidth - 1 - size.leadingZeroBitCount          // floor(log2 size)
        let s = Int.bitWidth - e.leadingZeroBitCount                 // floor(log2 e) + 1
        let mask = (1 << (e - s)) - 1
        return (size + mask) & ~mask
    }
}

package enum SealError: Error, CustomStringConvertible {
    case cannotSeal(String)
    case badPadding(String)

    package var description: String {
        switch self {
        case .cannotSeal(let path): return "\(path) could not be sealed"
        case .badPadding(let path): return "\(path) opened to bytes that are not a sealed file's"
        }
    }
}
