import Algorithms
import Crypto
import Foundation
import SnapshotStore
import Support

extension WebApp {
    /// A file's version in `offline.json`: the first 8 bytes of the SHA-256 of its bytes, written as
    /// 16 hexadecimal digits. Held as a number: 200,000 of them as texts took 10 MB at the end of a
    /// 100,000-book render, where its memory peaks.
    struct Version: Equatable, Sendable {
        let value: UInt64

        fileprivate init(value: UInt64) { self.value = value }

        init(_ digest: SHA256.Digest) {
            value = digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
        }

        /// From its text, as the list wrote it: exactly 16 lowercase hexadecimal digits, or none.
        init?(text: String) {
            // The radix parser alone would also take capitals and a sign.
            guard text.utf8.count == 16, text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
                  let value = UInt64(text, radix: 16) else { return nil }
            self.value = value
        }

        var text: String { withUnsafeBytes(of: value.bigEndian) { $0.hexString } }
    }

    /// The paths `offline.json` gives a version, by index: the lists' pages and assets, then the
    /// shelves', years' and authors' pages, then each book's, made when asked for (100,000 books'
    /// paths held at once took 8 MB).
    struct Paths: Sendable {
        let lists: [String]
        let pages: [String]
        let books: [Int]
        let fileNames: FileNames

        var firstBook: Int { lists.count + pages.count }
        var count: Int { firstBook + books.count }

        subscript(index: Int) -> String {
            if index < lists.count { return lists[index] }
            if index < firstBook { return pages[index - lists.count] }
            return "books/\(fileNames[books[index - firstBook]]).html"
        }
    }

    /// The versions the last snapshot's list gave its files, by a hash of the path (FNV-1a, as the
    /// page digests key their pages), 16 bytes each and sorted. Read a line at a time: the list of
    /// 100,000 books is 11 MB, and decoded whole it took 56 MB at the end of the render. A hash that
    /// two of its paths share is left out; a version is taken only for a file linked from the last
    /// snapshot, whose path that list named, so never for another path's. A file without one is
    /// read and digested.
    struct LastVersions {
        private var entries: [(path: UInt64, version: UInt64)] = []

        /// Entries decoded together: JSONDecoder's cost is per call, its memory per byte.
        private static let batch = 4096

        /// Nil when there is no list, or it is not as this tool writes it: each entry on a line of
        /// its own (`["path","version"…],`), where a line break cannot be inside a JSON string.
        init?(list: URL) {
            guard let file = try? FileHandle(forReadingFrom: list) else { return nil }
            // Closing a list that was only read loses nothing.
            defer { try? file.close() }
            var lines = Data("[".utf8), pending = 0
            do {
                func decode() throws {
                    lines.append(UInt8(ascii: "]"))
                    for strings in try JSONDecoder().decode([[String]].self, from: lines) where strings.count >= 2 {
                        if let version = Version(text: strings[1]) { entries.append((PageDigestTable.key(strings[0]), version.value)) }
                    }
                    lines = Data("[".utf8)
                    pending = 0
                }
                var rest = Data()
                while let chunk = try file.read(upToCount: 1 << 20), !chunk.isEmpty {
                    rest.append(chunk)
                    var start = rest.startIndex
                    while let end = rest[start...].firstIndex(of: UInt8(ascii: "\n")) {
                        if let entry = Self.entry(in: rest[start..<end]) {
                            if pending > 0 { lines.append(UInt8(ascii: ",")) }
                            lines.append(entry)
                            pending += 1
                            if pending == Self.batch { try decode() }
                        }
                        start = end + 1
                    }
                    rest = Data(rest[start...])
                }
                if pending > 0 { try decode() }
            } catch {
                return nil
            }
            entries.sort { $0.path < $1.path }
            var kept: [(path: UInt64, version: UInt64)] = []
            kept.reserveCapacity(entries.count)
            var index = entries.startIndex
            while index < entries.endIndex {
                var next = index + 1
                while next < entries.endIndex, entries[next].path == entries[index].path { next += 1 }
                if next == index + 1 { kept.append(entries[index]) }
                index = next
            }
            entries = kept
        }

        /// An entry's line without what closes the lists around it (`],` after the shell's last,
        /// `]}` after the pages' last) or the comma before the next; nil for the lines between.
        private static func entry(in line: Data) -> Data? {
            guard line.first == UInt8(ascii: "[") else { return nil }
            var entry = line
            if entry.last == UInt8(ascii: ",") { entry = entry.dropLast() }
            if entry.last == UInt8(ascii: "}") { entry = entry.dropLast() }
            // An entry holds strings only, so it ends with `"]`: a second `]` closes the list.
            if entry.suffix(2).elementsEqual("]]".utf8) { entry = entry.dropLast() }
            return entry
        }

        func version(of path: String) -> Version? {
            let key = PageDigestTable.key(path)
            let index = entries.partitioningIndex { $0.path >= key }
            guard index < entries.endIndex, entries[index].path == key else { return nil }
            return Version(value: entries[index].version)
        }
    }
}
