import Foundation

/// AES-GCM's own refusal of a sealed file, its tag not matching (another path, another key, a
/// flipped bit), and not any error (a nonce too short, bad padding): CryptoKit's
/// `authenticationFailure`, which swift-crypto on BoringSSL reports as its `CIPHER_R_BAD_DECRYPT`
/// (library 30, reason 101: 0x1E000065).
package func refusedByTheTag(_ error: any Error) -> Bool {
    ["authenticationFailure", "underlyingCoreCryptoError(error: 503316581)"].contains("\(error)")
}
