import Foundation
@testable import Enrich
import LibraryArchive
import TestSupport
import Testing

/// Open Library's answers kept between runs: read back as written, private to the owner, and
/// trusted for a week when the ISBN was unknown, for thirty days when it was found.
@Suite struct OpenLibraryCacheTests {
    static let day = 86_400
    static let checked = 1_760_000_000

    static func found(_ publisher: String) -> OpenLibraryFound {
        OpenLibraryFound(fields: OpenLibraryFields(key: "/books/OL1M", publisher: publisher, year: 1851, pages: 635, subjects: ["Whaling"]),
                         coverID: 42)
    }

    @Test func aCacheReadsBackAsWrittenForTheOwnerAlone() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // The state folder is made if it is not there yet.
        let state = folder.path("state/inner")
        var cache = OpenLibraryCache()
        cache.isbns["9780142437247"] = .init(checked: Self.checked, found: Self.found("Penguin"))
        cache.isbns["9780000000002"] = .init(checked: Self.checked - Self.day, found: nil)
        cache.isbns["9780000000003"] = .init(checked: Self.checked, found: Self.found("Harper"), coverFailed: "HTTP 404", coverRefused: false)
        try cache.write(to: state)
        #expect(OpenLibraryCache.read(from: state) == cache)

        let file = state.appendingPathComponent("openlibrary.json")
        let fileMode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        let folderMode = try FileManager.default.attributesOfItem(atPath: state.path)[.posixPermissions] as? Int
        #expect(fileMode == 0o600 && folderMode == 0o700, "file \(String(describing: fileMode)), folder \(String(describing: folderMode))")

        // The same answers, put in another order, give the same bytes.
        var again = OpenLibraryCache()
        for isbn in cache.isbns.keys.sorted().reversed() { again.isbns[isbn] = cache.isbns[isbn] }
        let other = folder.path("other")
        try again.write(to: other)
        #expect(try Data(contentsOf: file) == Data(contentsOf: other.appendingPathComponent("openlibrary.json")))
        // The file's words, which the next version must read.
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("\"schema_version\":1") && text.contains("\"cover_failed\":\"HTTP 404\"") && text.contains("\"cover_id\":42"), "\(text)")
    }

    @Test func aMissingUnreadableOrOtherVersionsCacheIsAnEmptyOne() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(OpenLibraryCache.read(from: folder.path("nowhere")) == OpenLibraryCache())
        let file = folder.path("openlibrary.json")
        try Data("{\"schema_version\": 1, \"isbns\": ".utf8).write(to: file)
        #expect(OpenLibraryCache.read(from: folder.url) == OpenLibraryCache())
        // A later version's layout is not read as this one's.
        try Data(#"{"schema_version": 2, "isbns": {"9780142437247": {"checked": 1760000000}}}"#.utf8).write(to: file)
        #expect(OpenLibraryCache.read(from: folder.url).isbns.isEmpty)
        try Data(#"{"schema_version": 1, "isbns": {"9780142437247": {"checked": 1760000000}}}"#.utf8).write(to: file)
        #expect(OpenLibraryCache.read(from: folder.url).isbns["9780142437247"] == .init(checked: 1_760_000_000, found: nil))
    }

    @Test func anUnknownISBNIsFreshForAWeekAndAFoundOneForThirtyDays() {
        var cache = OpenLibraryCache()
        cache.isbns["unknown"] = .init(checked: Self.checked, found: nil)
        cache.isbns["found"] = .init(checked: Self.checked, found: Self.found("Penguin"))
        #expect(cache.isFresh("unknown", now: Self.checked))
        #expect(cache.isFresh("unknown", now: Self.checked + 7 * Self.day - 1))
        #expect(!cache.isFresh("unknown", now: Self.checked + 7 * Self.day))
        #expect(cache.isFresh("found", now: Self.checked + 7 * Self.day))
        #expect(cache.isFresh("found", now: Self.checked + 30 * Self.day - 1))
        #expect(!cache.isFresh("found", now: Self.checked + 30 * Self.day))
        // An answer dated after this run (a clock set back) is not trusted, and none kept is not fresh.
        #expect(!cache.isFresh("found", now: Self.checked - 1))
        #expect(!cache.isFresh("never asked", now: Self.checked))
    }
}
