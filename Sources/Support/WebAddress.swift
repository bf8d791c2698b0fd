import Foundation

/// An http or https address with a host: the one rule for what the tool takes as a web address
/// (the server, a cover, `--site-url`, Open Library's), and for when two addresses are the same
/// origin (scheme, host and port, a missing port being the scheme's own). What else an option
/// refuses (a query, a user and password) its caller says, in the option's words.
package struct WebAddress: Sendable, Equatable {
    package let url: URL
    /// Lowercased.
    package let scheme: String
    /// Lowercased, an IPv6 address without its brackets.
    package let host: String
    /// The port written, or the scheme's (80, 443).
    package let port: Int

    package init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), let port = Self.defaultPort(scheme), let host = url.host, !host.isEmpty else { return nil }
        self.url = url
        self.scheme = scheme
        self.host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        self.port = url.port ?? port
    }

    /// As typed: spaces around it are dropped.
    package init?(_ text: String) {
        guard let url = URL(string: text.trimmingCharacters(in: .whitespaces)) else { return nil }
        self.init(url)
    }

    /// Whether a user or a password is written in it.
    package var hasCredentials: Bool { url.user != nil || url.password != nil }
    package var hasQuery: Bool { url.query != nil }
    package var hasFragment: Bool { url.fragment != nil }

    /// Whether `other` is an address of this origin.
    package func isSameOrigin(_ other: URL) -> Bool {
        guard let other = WebAddress(other) else { return false }
        return other.scheme == scheme && other.host == host && other.port == port
    }

    /// The port a scheme has when none is written; nil for a scheme that is not the web's.
    package static func defaultPort(_ scheme: String) -> Int? {
        switch scheme.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }
}
