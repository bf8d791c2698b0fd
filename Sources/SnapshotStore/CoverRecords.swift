import Foundation
import LibraryArchive
import NIOConcurrencyHelpers
import Support

/// What the state folder remembers of a cover, by the URL the book gave.
package struct CoverRecord: Codable, Sendable, Equatable {
    package var file: CoverFile
    package var etag: String?
    package var lastModified: String?
    /// Where the bytes were found after redirects, when that URL is stable (no signature in it).
    package var finalURL: String?

    package init(file: CoverFile, etag: String? = nil, lastModified: String? = nil, finalURL: String? = nil) {
        self.file = file
        self.etag = etag
        self.lastModified = lastModified
        self.finalURL = finalURL
    }

    enum CodingKeys: String, CodingKey { case file, etag, lastModified = "last_modified", finalURL = "final_url" }
}

/// What is known of each cover, by the address a book gave: kept as `covers.jsonl` lines in a
/// file, with only a hash of each address, where its line lies and a hash of its file's path in
/// memory. 100,000 records as values took about 35 MB (every address twice, a hash, a path); this
/// index takes about 5.
package final class CoverRecords: Sendable {
    private struct Line: Codable {
        var record: CoverRecord
        var url: String
    }

    /// A line's address alone, for the index: the record is read when it is asked for.
    private struct Address: Decodable {
        var url: String
    }

    /// Where a record's line lies, and a hash of its cover file's path (0 for a line only read).
    private struct Entry {
        var range: Range<Int>
        var file: UInt64 = 0
    }

    private struct Index {
        var byHash: [UInt64: Entry] = [:]
        /// Addresses whose hash another address already has (not expected, but not wrong either).
        var collisions: [String: Entry] = [:]
        /// The records set last, by address: a book is made just after its cover comes, and
        /// reading its record back from the file cost 2% of a crawl's CPU.
        var recent: [String: CoverRecord] = [:]
        var recentOrder: [String] = []
        var nextRecent = 0
        static let recentCount = 256

        func entry(_ url: String) -> Entry? { collisions[url] ?? byHash[CoverRecords.hash(url)] }

        /// Keeps the record among the recent ones, in place of the oldest.
        mutating func remember(_ record: CoverRecord, for url: String) {
            if recent.updateValue(record, forKey: url) != nil { return }
            if recentOrder.count < Self.recentCount {
                recentOrder.append(url)
            } else {
                recent[recentOrder[nextRecent]] = nil
                recentOrder[nextRecent] = url
                nextRecent = (nextRecent + 1) % Self.recentCount
            }
        }

        mutating func place(_ url: String, at range: Range<Int>) {
            let key = CoverRecords.hash(url)
            if byHash[key] == nil { byHash[key] = Entry(range: range) } else { collisions[url] = Entry(range: range) }
        }
    }

    private let store: SpillFile
    private let index: NIOLockedValueBox<Index>

    /// Empty, its lines kept in a spill file in `folder`.
    package init(spillIn folder: URL) throws {
        store = try SpillFile(in: folder)
        index = NIOLockedValueBox(Index())
    }

    /// The lines of a `covers.jsonl`, read in place (nothing can be added to these); nil when a
    /// line names no address (the covers are then fetched again). A record that cannot be read
    /// is found missing when it is asked for, and that cover fetched again.
    package init?(reading file: URL) {
        guard let store = try? SpillFile(reading: file) else { return nil }
        self.store = store
        let decoder = JSONDecoder()
        var index = Index()
        var start = 0
        var pending = Data()
        var offset = 0
        while offset < store.size {
            // A piece of the file that cannot be read makes every cover fetched again (nil).
            guard let chunk = try? store.read(offset..<min(store.size, offset + (1 << 20))) else { return nil }
            offset += chunk.count
            pending.append(chunk)
            var lineStart = pending.startIndex
            while let newline = pending[lineStart...].firstIndex(of: 0x0A) {
                // So does a line that is no record.
                guard let line = try? decoder.decode(Address.self, from: pending[lineStart..<newline]) else { return nil }
                let length = newline - lineStart + 1
                index.place(line.url, at: start..<start + length)
                start += length
                lineStart = pending.index(after: newline)
            }
            pending = Data(pending[lineStart...])
        }
        guard pending.isEmpty else { return nil }
        self.index = NIOLockedValueBox(index)
    }

    package var count: Int { index.withLockedValue { $0.byHash.count + $0.collisions.count } }

    package subscript(url: String) -> CoverRecord? {
        let (known, entry) = index.withLockedValue { ($0.recent[url], $0.entry(url)) }
        if let known { return known }
        return entry.flatMap { read(url, at: $0.range)?.record }
    }

    /// The record for `url` and its line as the file holds it, for `set(_:for:line:)` to carry.
    package func recordAndLine(_ url: String) -> (record: CoverRecord, line: Data)? {
        index.withLockedValue { $0.entry(url) }.flatMap { read(url, at: $0.range) }
    }

    /// Whether the record set for `url` names the cover file at `path`: told from the index
    /// alone, without reading the record (a book taken unchanged asks only that).
    package func names(_ cover: CoverFile, for url: String) -> Bool {
        let file = Self.key(cover)
        return index.withLockedValue { $0.entry(url)?.file == file }
    }

    private func read(_ url: String, at range: Range<Int>) -> (record: CoverRecord, line: Data)? {
        // A record that cannot be read is no record: its cover is fetched again.
        guard let bytes = try? store.read(range),
              let line = try? JSONDecoder().decode(Line.self, from: bytes), line.url == url
        else { return nil }
        return (line.record, bytes)
    }

    /// - Parameter line: the record's line from another `CoverRecords` (`recordAndLine`), kept
    ///   as it is rather than encoded again: most covers of a run are the last run's.
    package func set(_ record: CoverRecord, for url: String, line: Data? = nil) throws {
        let line = try line ?? {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var line = try encoder.encode(Line(record: record, url: url))
            line.append(0x0A)
            return line
        }()
        let range = try store.append(line)
        let other = index.withLockedValue { $0.byHash[Self.hash(url)] }
        let taken = try other.map { try JSONDecoder().decode(Line.self, from: try store.read($0.range)).url != url } ?? false
        let entry = Entry(range: range, file: Self.key(record.file))
        index.withLockedValue { index in
            if taken { index.collisions[url] = entry } else { index.byHash[Self.hash(url)] = entry }
            index.remember(record, for: url)
        }
    }

    /// Every record, in a fixed order (by the hash of their addresses, then the addresses).
    package func forEach(_ body: (String, CoverRecord) throws -> Void) throws {
        try orderedLines { line in
            let decoded = try JSONDecoder().decode(Line.self, from: line)
            try body(decoded.url, decoded.record)
        }
    }

    /// `covers.jsonl`: every line, in that same order: the same covers give the same file.
    func writeLines(to sink: (Data) throws -> Void) throws {
        try orderedLines(sink)
    }

    private func orderedLines(_ body: (Data) throws -> Void) throws {
        let (hashed, others) = index.withLockedValue { ($0.byHash.map { ($0.key, $0.value.range) }, $0.collisions) }
        for (_, range) in hashed.sorted(by: { $0.0 < $1.0 }) { try body(try store.read(range)) }
        for url in others.keys.sorted() { try body(try store.read(others[url]!.range)) }
    }

    /// A cover's files, as one hash: a book kept from the last snapshot keeps its cover only when
    /// this run's record names the same files (its thumbnails made, or left out, alike).
    static func key(_ cover: CoverFile) -> UInt64 {
        FNV1a.hash(cover.paths.joined(separator: "\n"))
    }

    /// FNV-1a, cheaper than Swift's seeded hash and enough for an index checked against the address.
    package static func hash(_ url: String) -> UInt64 { FNV1a.hash(url) }
}
