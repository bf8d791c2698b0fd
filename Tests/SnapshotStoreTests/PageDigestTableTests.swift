import Foundation
import TestSupport
import Testing
@testable import LibraryArchive
@testable import Notes
@testable import SnapshotStore

/// The page digests kept between runs: 32 bytes a page, read back as written, garbage refused.
struct PageDigestTableTests {
    @Test func aTableReadsBackAsWrittenAndFindsEachPage() throws {
        let paths = (0..<1000).map { "books/\($0)-a-title.html" }
        let entries = paths.enumerated().map { index, path in
            PageDigestTable.Entry(path: PageDigestTable.key(path), digest0: UInt64(index), digest1: ~UInt64(index), size: UInt64(index * 7))
        }
        let table = PageDigestTable(entries.shuffled())
        let read = try #require(PageDigestTable(data: table.data))
        #expect(read == table)
        #expect(table.data.count == 8 + 32 * 1000)
        for (index, path) in paths.enumerated() {
            #expect(read.entry(for: path)?.digest0 == UInt64(index))
            #expect(read.entry(for: path)?.size == UInt64(index * 7))
        }
        #expect(read.entry(for: "books/elsewhere.html") == nil)
        #expect(PageDigestTable(data: Data("RSPAGES1 not a table".utf8)) == nil)
        #expect(PageDigestTable(data: Data("{}".utf8)) == nil)
        #expect(PageDigestTable.key("a") == 0xaf63dc4c8601ec8c, "FNV-1a, the same on every machine")
    }
}
