import Algorithms
import Foundation
import Support

/// What each book and shelf page of a snapshot was made from: per page, a hash of its path, the
/// first 128 bits of its inputs' digest and its size, 32 bytes, sorted by path hash. 200,000 pages
/// held as a map of path and hex texts took 50 MB of a 100,000-book run; this takes 6.
package struct PageDigestTable: Sendable, Equatable {
    package struct Entry: Sendable, Equatable {
        package var path: UInt64
        package var digest0: UInt64
        package var digest1: UInt64
        package var size: UInt64

        package init(path: UInt64, digest0: UInt64, digest1: UInt64, size: UInt64) {
            self.path = path
            self.digest0 = digest0
            self.digest1 = digest1
            self.size = size
        }
    }

    private(set) var entries: [Entry]

    /// Sorted in place: the entries are moved in, not copied.
    package init(_ entries: consuming [Entry] = []) {
        var entries = entries
        entries.sort { $0.path < $1.path }
        self.entries = entries
    }

    package var count: Int { entries.count }

    /// A stable hash of a page's path (FNV-1a, 64 bits): the same from run to run and machine to
    /// machine. Two paths that met would also need the same inputs' digest to be taken one for the
    /// other, and a page's file name is among its inputs.
    package static func key(_ path: String) -> UInt64 { FNV1a.hash(path) }

    package func entry(for path: String) -> Entry? {
        let key = Self.key(path)
        let index = entries.partitioningIndex { $0.path >= key }
        return index < entries.endIndex && entries[index].path == key ? entries[index] : nil
    }

    private static let magic = Data("RSPAGES1".utf8)

    /// The table as a file's bytes: a magic word, then each entry's four numbers, little-endian.
    package var data: Data {
        var data = Data()
        write { data.append($0) }
        return data
    }

    /// The same bytes, handed out a piece at a time.
    package func write(to sink: (Data) throws -> Void) rethrows {
        try sink(Self.magic)
        var piece = Data()
        piece.reserveCapacity(64 * 1024)
        for entry in entries {
            for value in [entry.path, entry.digest0, entry.digest1, entry.size] {
                withUnsafeBytes(of: value.littleEndian) { piece.append(contentsOf: $0) }
            }
            if piece.count >= 64 * 1024 - 32 {
                try sink(piece)
                piece.removeAll(keepingCapacity: true)
            }
        }
        if !piece.isEmpty { try sink(piece) }
    }

    /// A table from a file's bytes; nil when they are not one (a state folder is input like any other).
    package init?(data: Data) {
        guard data.count >= Self.magic.count, data.prefix(Self.magic.count) == Self.magic,
              (data.count - Self.magic.count) % 32 == 0 else { return nil }
        var entries: [Entry] = []
        entries.reserveCapacity((data.count - Self.magic.count) / 32)
        data.withUnsafeBytes { raw in
            var offset = Self.magic.count
            func next() -> UInt64 {
                defer { offset += 8 }
                return UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            }
            while offset < raw.count {
                entries.append(Entry(path: next(), digest0: next(), digest1: next(), size: next()))
            }
        }
        self.init(entries)
    }
}
