import Foundation
import SnapshotStore
import Support

/// Open Library's answers, by ISBN-13, kept in the state folder: an ISBN found is not asked for
/// again for 30 days, one not found for 7. A night with nothing new asks Open Library nothing.
package struct OpenLibraryCache: Codable, Sendable, Equatable {
    package static let fileName = "openlibrary.json"
    static let schemaVersion = 1
    static let foundFor = 30 * 86_400
    static let notFoundFor = 7 * 86_400

    package struct Entry: Codable, Sendable, Equatable {
        /// When Open Library was asked (seconds since 1970, the snapshot's clock).
        package var checked: Int
        /// Nil: Open Library does not know the ISBN.
        package var found: OpenLibraryFound?
        /// Its cover could not be had (404, not an image): not asked for again until the entry is.
        package var coverFailed: String?
        /// The cover was refused for what it is (a decompression bomb, unreadable, too large).
        package var coverRefused: Bool?

        enum CodingKeys: String, CodingKey { case checked, found, coverFailed = "cover_failed", coverRefused = "cover_refused" }
    }

    var schemaVersion = Self.schemaVersion
    package var isbns: [String: Entry] = [:]

    enum CodingKeys: String, CodingKey { case schemaVersion = "schema_version", isbns }

    package init() {}

    /// Whether the answer kept for `isbn` is recent enough not to ask again.
    func isFresh(_ isbn: String, now: Int) -> Bool {
        guard let entry = isbns[isbn] else { return false }
        let age = now - entry.checked
        return age >= 0 && age < (entry.found == nil ? Self.notFoundFor : Self.foundFor)
    }

    /// The cache in `folder`, or an empty one.
    package static func read(from folder: URL) -> OpenLibraryCache {
        // A missing or unreadable cache, or one of another layout, only costs questions.
        guard let data = try? Data(contentsOf: folder.appendingPathComponent(fileName)),
              let cache = try? JSONDecoder().decode(OpenLibraryCache.self, from: data), cache.schemaVersion == schemaVersion
        else { return OpenLibraryCache() }
        return cache
    }

    /// Sorted keys: the same answers give the same file.
    package func write(to folder: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        try SnapshotState.makePrivateFolder(folder)
        try SnapshotState.writePrivately(try encoder.encode(self), to: folder.appendingPathComponent(Self.fileName))
    }
}
