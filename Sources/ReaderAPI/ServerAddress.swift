import Foundation
import Support

/// The Reader server's base URL: where the API lives, and the one origin that may see the api key.
package struct ServerAddress: Sendable, Equatable, CustomStringConvertible {
    package let scheme: String
    package let host: String
    package let port: Int
    /// Path prefix, without a trailing slash ("" for a server at the root).
    package let basePath: String

    package init(_ text: String) throws {
        guard let address = WebAddress(text) else {
            throw ReaderAPIError(.invalidURL(detail: "the server URL must be an http:// or https:// URL with a host, like https://reader.example.com"), request: "server URL")
        }
        guard !address.hasCredentials, !address.hasQuery else {
            throw ReaderAPIError(.invalidURL(detail: "the server URL must not carry a user, a password or a query"), request: "server URL")
        }
        self.scheme = address.scheme
        self.host = address.host
        self.port = address.port
        var path = address.url.path
        while path.hasSuffix("/") { path.removeLast() }
        self.basePath = path
    }

    /// The URL as the user would write it: no credentials, no query.
    var hasDefaultPort: Bool { port == WebAddress.defaultPort(scheme) }

    package var description: String {
        let defaultPort = hasDefaultPort
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(hostPart)\(defaultPort ? "" : ":\(port)")\(basePath)"
    }

    package func url(path: String, query: [URLQueryItem] = []) -> URL {
        var components = URLComponents()
        components.scheme = scheme
        // An IPv6 address is set in its brackets: URLComponents makes no URL of a bare one.
        components.host = host.contains(":") ? "[\(host)]" : host
        if !hasDefaultPort { components.port = port }
        components.path = basePath + path
        if !query.isEmpty { components.queryItems = query }
        return components.url!
    }

    package func isSameOrigin(_ url: URL) -> Bool {
        guard let other = WebAddress(url) else { return false }
        return other.scheme == scheme && other.host == host && other.port == port
    }

    package var isLoopback: Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1"
    }
}
