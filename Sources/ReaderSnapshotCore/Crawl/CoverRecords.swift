import Foundation

/// What is known of each cover, by the address a book gave: kept as `covers.jsonl` lines in a
/// file, with only a hash of each address and where its line lies in memory. 100,000 records as
/// values took about 35 MB (every address twice, a hash, a path); this index takes 4.
public final class CoverRecords: @unchecked Sendable {
    private struct Line: Codable {
        var record: CoverRecord
        var url: String
    }

    private let lock = NSLock()
    private let store: SpillFile
    private var index: [UInt64: Range<Int>] = [:]
    /// Addresses whose hash another address already has (not expected, but not wrong either).
    private var collisions: [String: Range<Int>] = [:]
    /// The records set last, by address: a book is made just after its cover comes, and reading
    /// its record back from the file cost 2% of a crawl's CPU.
    private var recent: [String: CoverRecord] = [:]
    private var recentOrder: [String] = []
    private var nextRecent = 0
    private static let recentCount = 256

    /// Empty, its lines kept in a spill file in `folder`.
    public init(spillIn folder: URL) throws {
        store = try SpillFile(in: folder)
    }

    /// The lines of a `covers.jsonl`, read in place (nothing can be added to these); nil when one
    /// cannot be read (the covers are then fetched again).
    public init?(reading file: URL) {
        guard let store = try? SpillFile(reading: file) else { return nil }
        self.store = store
        let decoder = JSONDecoder()
        var start = 0
        var pending = Data()
        var offset = 0
        while offset < store.size {
            guard let chunk = try? store.read(offset..<min(store.size, offset + (1 << 20))) else { return nil }
            offset += chunk.count
            pending.append(chunk)
            var lineStart = pending.startIndex
            while let newline = pending[lineStart...].firstIndex(of: 0x0A) {
                guard let line = try? decoder.decode(Line.self, from: pending[lineStart..<newline]) else { return nil }
                let length = newline - lineStart + 1
                place(line.url, at: start..<start + length)
                start += length
                lineStart = pending.index(after: newline)
            }
            pending = Data(pending[lineStart...])
        }
        guard pending.isEmpty else { return nil }
    }

    public var count: Int { lock.withLock { index.count + collisions.count } }

    public subscript(url: String) -> CoverRecord? {
        let (known, range) = lock.withLock { (recent[url], collisions[url] ?? index[Self.hash(url)]) }
        if let known { return known }
        guard let range,
              let line = try? JSONDecoder().decode(Line.self, from: try store.read(range)), line.url == url
        else { return nil }
        return line.record
    }

    public func set(_ record: CoverRecord, for url: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line = try encoder.encode(Line(record: record, url: url))
        line.append(0x0A)
        let range = try store.append(line)
        let other = lock.withLock { index[Self.hash(url)] }
        let taken = try other.map { try JSONDecoder().decode(Line.self, from: try store.read($0)).url != url } ?? false
        lock.withLock {
            if taken { collisions[url] = range } else { index[Self.hash(url)] = range }
            remember(record, for: url)
        }
    }

    /// Every record, in a fixed order (by the hash of their addresses, then the addresses).
    public func forEach(_ body: (String, CoverRecord) throws -> Void) throws {
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
        let (hashed, others) = lock.withLock { (index.map { ($0.key, $0.value) }, collisions) }
        for (_, range) in hashed.sorted(by: { $0.0 < $1.0 }) { try body(try store.read(range)) }
        for url in others.keys.sorted() { try body(try store.read(others[url]!)) }
    }

    /// Keeps the record among the recent ones, in place of the oldest (under the lock).
    private func remember(_ record: CoverRecord, for url: String) {
        if recent.updateValue(record, forKey: url) != nil { return }
        if recentOrder.count < Self.recentCount {
            recentOrder.append(url)
        } else {
            recent[recentOrder[nextRecent]] = nil
            recentOrder[nextRecent] = url
            nextRecent = (nextRecent + 1) % Self.recentCount
        }
    }

    private func place(_ url: String, at range: Range<Int>) {
        let key = Self.hash(url)
        if index[key] == nil { index[key] = range } else { collisions[url] = range }
    }

    /// FNV-1a, cheaper than Swift's seeded hash and enough for an index checked against the address.
    static func hash(_ url: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
