import Crypto
import Foundation

/// Which server and account a snapshot came from. Kept in the private state, never in what a
/// visitor can reach: a catalog shared with friends must not name the login or the server.
package struct SnapshotOrigin: Codable, Sendable, Equatable {
    /// The server's address, without credentials.
    package var server: String
    package var userID: Int?

    enum CodingKeys: String, CodingKey { case server, userID = "user_id" }

    package init(server: String, userID: Int?) {
        self.server = server
        self.userID = userID
    }

    /// A stable name for the catalog that says nothing of the account: 16 hex digits of a digest.
    /// Feeds and catalogs need ids that stay the same from night to night.
    package var catalogID: String {
        SHA256.hash(data: Data("reader-snapshot catalog\n\(server)\n\(userID.map(String.init) ?? "")".utf8)).prefix(8)
            .map { String(format: "%02x", $0) }.joined()
    }
}
