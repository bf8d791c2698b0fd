/// A TLS handshake that failed, told in words a user can act on instead of the TLS library's
/// (`handshakeFailed(NIOSSL.BoringSSLError.sslError([…WRONG_VERSION_NUMBER at …]))`).
///
/// The TLS library is async-http-client's and not a dependency of ours, so its errors are known
/// by the module their type is declared in, and BoringSSL's reason by the packed error codes the
/// error holds (read with `Mirror`): neither its wording nor its file names are ever shown.
enum TLSFailure: Equatable, CustomStringConvertible {
    /// The other end answered, but not in TLS: usually a plain http server on that port.
    case notTLS
    /// The server's certificate was not trusted here (unknown issuer, expired, another name).
    case certificateRefused
    /// Any other failure of the handshake.
    case handshake

    /// BoringSSL's library number for its SSL routines, and the reasons told apart
    /// (`SSL_R_WRONG_VERSION_NUMBER`, `SSL_R_CERTIFICATE_VERIFY_FAILED` in its `ssl.h`).
    static let sslLibrary: UInt32 = 16
    static let wrongVersionNumber: UInt32 = 247
    static let certificateVerifyFailed: UInt32 = 125

    /// The failure `error` is, when it is the TLS library's; nil for any other error.
    init?(_ error: Error) {
        let type = String(reflecting: Swift.type(of: error))
        guard type.hasPrefix("NIOSSL.") else { return nil }
        // The library's own check of the certificate's name says so in its type's name.
        if type.contains("ExtraError") {
            self = .certificateRefused
            return
        }
        let reasons = Self.packedCodes(in: error).filter { $0 >> 24 == Self.sslLibrary }.map { $0 & 0xFFF }
        if reasons.contains(Self.wrongVersionNumber) {
            self = .notTLS
        } else if reasons.contains(Self.certificateVerifyFailed) {
            self = .certificateRefused
        } else {
            self = .handshake
        }
    }

    /// Every `UInt32` held in `value`, however deep: BoringSSL's errors keep their packed codes so.
    static func packedCodes(in value: Any, depth: Int = 0) -> [UInt32] {
        if let code = value as? UInt32 { return [code] }
        guard depth < 8 else { return [] }
        return Mirror(reflecting: value).children.flatMap { packedCodes(in: $0.value, depth: depth + 1) }
    }

    var description: String {
        switch self {
        case .notTLS:
            return "the server did not answer in TLS, as https:// asks: it may speak plain http on that port (then give its http:// address)"
        case .certificateRefused:
            return "the server's TLS certificate is not trusted here (an unknown issuer, expired, or made out to another name)"
        case .handshake:
            return "the secure connection (TLS) could not be set up with the server"
        }
    }
}
