import Foundation
import Notes
import Support

/// Every book's entry, packed: numbers in arrays, text in one buffer. An entry is made when it is
/// asked for; 100,000 entries take about 20 MB this way, where as values they took 75.
package struct EntryList: RandomAccessCollection, Sendable {
    private var ids: [Int] = []
    private var shelfIDs: [Int] = []
    private var coverSizes: [(width: Int32, height: Int32)] = []
    /// Open Library's year and pages, -1 for none.
    private var openLibraryNumbers: [(year: Int32, pages: Int32)] = []
    private var flags: [UInt16] = []
    /// The text fields of every entry, one after another in chunks of a megabyte that an entry never
    /// straddles, each entry's chunk, and where each field starts in it: `fieldsPerEntry` per entry.
    /// One buffer grown by doubling held up to twice its text, and three times while it grew:
    /// 100,000 entries' 24 MB of text took 34 MB, and 50 at the moment it doubled.
    private var chunks: [[UInt8]] = []
    private var chunkOfEntry: [UInt32] = []
    private var starts: [UInt32] = []
    private static let chunkBytes = 1 << 20
    /// Where each entry lies among those appended, when they were appended in another order.
    private var slots: [Int32]?
    /// The text an entry keeps, in the order each entry's fields are packed.
    private enum Text: Int, CaseIterable {
        case title, author, isbn, shelfName, createdAt, coverPath, updatedAt, imageURL
        case openLibraryKey, publisher, subjects

        /// Subjects are kept one after another, each ended by this (a control character no name holds).
        static let subjectEnd: Character = "\u{1F}"

        func of(_ entry: BookEntry) -> String {
            switch self {
            case .title: return entry.title
            case .author: return entry.author ?? ""
            case .isbn: return entry.isbn ?? ""
            case .shelfName: return entry.shelfName ?? ""
            case .createdAt: return entry.createdAt ?? ""
            case .coverPath: return entry.cover?.path ?? ""
            case .updatedAt: return entry.updatedAt ?? ""
            case .imageURL: return entry.imageURL ?? ""
            case .openLibraryKey: return entry.openLibrary?.key ?? ""
            case .publisher: return entry.openLibrary?.publisher ?? ""
            case .subjects: return entry.openLibrary?.subjects.map { $0 + String(Self.subjectEnd) }.joined() ?? ""
            }
        }
    }
    private static let fieldsPerEntry = Text.allCases.count
    private static let noShelf = Int.min
    private enum Flag {
        static let note: UInt16 = 1, complete: UInt16 = 2, cover: UInt16 = 4, author: UInt16 = 8, isbn: UInt16 = 16, shelfName: UInt16 = 32
        static let createdAt: UInt16 = 64, updatedAt: UInt16 = 128, imageURL: UInt16 = 256
        static let openLibrary: UInt16 = 512, openLibraryKey: UInt16 = 1024, publisher: UInt16 = 2048
        static let thumbnails: UInt16 = 4096, thumbnailsPNG: UInt16 = 8192, coverFromOpenLibrary: UInt16 = 16384
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { slots?.count ?? ids.count }

    private func slot(_ index: Int) -> Int { slots.map { Int($0[index]) } ?? index }

    package init() {}

    package init(_ entries: some Sequence<BookEntry>) {
        for entry in entries { append(entry) }
    }

    /// Puts the entries in another order without moving them: the entry at each place from now on is
    /// the one appended at `slots[place]`. The crawl makes books as they come and orders them once.
    package mutating func arrange(_ slots: [Int]) {
        precondition(self.slots == nil && slots.allSatisfy { $0 < ids.count }, "entries arranged once, from those appended")
        self.slots = slots.map { Int32($0) }
    }

    package mutating func append(_ entry: BookEntry) {
        precondition(slots == nil, "entries appended before they are arranged")
        pack(entry)
    }

    /// Every entry stored, in the order appended, whatever order the list shows them in: a list
    /// made from it shares its text and numbers until it is changed (`storedIndex(of:)` names one).
    package var stored: EntryList {
        var all = self
        all.slots = nil
        return all
    }

    /// Room for `count` entries in all. A list that shares its arrays with another copies them at
    /// its first new entry, and Swift copies an array shared in that way to twice its size.
    package mutating func reserveCapacity(_ count: Int) {
        ids.reserveCapacity(count)
        shelfIDs.reserveCapacity(count)
        coverSizes.reserveCapacity(count)
        openLibraryNumbers.reserveCapacity(count)
        flags.reserveCapacity(count)
        chunkOfEntry.reserveCapacity(count)
        starts.reserveCapacity(count * Self.fieldsPerEntry)
    }

    /// How many entries `stored` has.
    package var storedCount: Int { ids.count }

    /// Where the entry at `place` lies in `stored`.
    package func storedIndex(of place: Int) -> Int { slot(place) }

    /// Puts `entry` at `place` in place of the entry there (its old fields stay packed, unused).
    package mutating func replace(at place: Int, with entry: BookEntry) {
        if slots == nil { slots = (0..<Int32(ids.count)).map { $0 } }
        pack(entry)
        slots![place] = Int32(ids.count - 1)
    }

    private mutating func pack(_ entry: BookEntry) {
        ids.append(entry.id)
        shelfIDs.append(entry.shelfID ?? Self.noShelf)
        coverSizes.append((Int32(clamping: entry.cover?.width ?? -1), Int32(clamping: entry.cover?.height ?? -1)))
        openLibraryNumbers.append((Int32(clamping: entry.openLibrary?.year ?? -1), Int32(clamping: entry.openLibrary?.pages ?? -1)))
        var flag: UInt16 = 0
        if entry.hasNote { flag |= Flag.note }
        if entry.complete { flag |= Flag.complete }
        if entry.cover != nil { flag |= Flag.cover }
        if entry.author != nil { flag |= Flag.author }
        if entry.isbn != nil { flag |= Flag.isbn }
        if entry.shelfName != nil { flag |= Flag.shelfName }
        if entry.createdAt != nil { flag |= Flag.createdAt }
        if entry.updatedAt != nil { flag |= Flag.updatedAt }
        if entry.imageURL != nil { flag |= Flag.imageURL }
        if let found = entry.openLibrary {
            flag |= Flag.openLibrary
            if found.key != nil { flag |= Flag.openLibraryKey }
            if found.publisher != nil { flag |= Flag.publisher }
        }
        if let png = entry.cover?.thumbnailsArePNG { flag |= png ? Flag.thumbnails | Flag.thumbnailsPNG : Flag.thumbnails }
        if entry.cover?.fromOpenLibrary == true { flag |= Flag.coverFromOpenLibrary }
        flags.append(flag)
        let fields = Text.allCases.map { $0.of(entry) }
        let size = fields.reduce(0) { $0 + $1.utf8.count }
        if chunks.isEmpty || chunks[chunks.count - 1].count + size > Self.chunkBytes {
            var chunk: [UInt8] = []
            chunk.reserveCapacity(Swift.max(Self.chunkBytes, size))
            chunks.append(chunk)
        }
        let last = chunks.count - 1
        chunkOfEntry.append(UInt32(last))
        for field in fields {
            starts.append(UInt32(chunks[last].count))
            chunks[last].append(contentsOf: field.utf8)
        }
    }

    package subscript(place: Int) -> BookEntry {
        let index = slot(place)
        let flag = flags[index]
        func field(_ text: Text, if present: UInt16? = nil) -> String? {
            if let present, flag & present == 0 { return nil }
            let number = text.rawValue
            let at = index * Self.fieldsPerEntry + number
            let chunk = Int(chunkOfEntry[index])
            // A field ends where the next one starts, in the same chunk; the chunk's last entry's last field, at its end.
            let end = number + 1 < Self.fieldsPerEntry || (index + 1 < chunkOfEntry.count && Int(chunkOfEntry[index + 1]) == chunk)
                ? Int(starts[at + 1]) : chunks[chunk].count
            return chunks[chunk].withUnsafeBufferPointer { String(decoding: $0[Int(starts[at])..<end], as: UTF8.self) }
        }
        let size = coverSizes[index]
        var openLibrary: OpenLibraryFields?
        if flag & Flag.openLibrary != 0 {
            let numbers = openLibraryNumbers[index]
            openLibrary = OpenLibraryFields(key: field(.openLibraryKey, if: Flag.openLibraryKey), publisher: field(.publisher, if: Flag.publisher),
                                            year: numbers.year < 0 ? nil : Int(numbers.year), pages: numbers.pages < 0 ? nil : Int(numbers.pages),
                                            subjects: field(.subjects)!.split(separator: Text.subjectEnd).map(String.init))
        }
        return BookEntry(id: ids[index], title: field(.title)!, author: field(.author, if: Flag.author), isbn: field(.isbn, if: Flag.isbn),
                        shelfID: shelfIDs[index] == Self.noShelf ? nil : shelfIDs[index], shelfName: field(.shelfName, if: Flag.shelfName),
                        createdAt: field(.createdAt, if: Flag.createdAt), updatedAt: field(.updatedAt, if: Flag.updatedAt),
                        imageURL: field(.imageURL, if: Flag.imageURL),
                        cover: field(.coverPath, if: Flag.cover).map { CoverCard(path: $0, width: size.width < 0 ? nil : Int(size.width),
                                                                         height: size.height < 0 ? nil : Int(size.height),
                                                                         thumbnailsArePNG: flag & Flag.thumbnails == 0 ? nil : flag & Flag.thumbnailsPNG != 0,
                                                                         fromOpenLibrary: flag & Flag.coverFromOpenLibrary != 0) },
                        hasNote: flag & Flag.note != 0, complete: flag & Flag.complete != 0, openLibrary: openLibrary)
    }

    /// Without making the entry.
    package func id(at place: Int) -> Int { ids[slot(place)] }

    /// Whether the book had its details, without making the entry (its text is not decoded).
    package func isComplete(at place: Int) -> Bool { flags[slot(place)] & Flag.complete != 0 }

    /// The shelf the entry at `place` names, without making the whole entry.
    package func shelfID(at place: Int) -> Int? {
        let id = shelfIDs[slot(place)]
        return id == Self.noShelf ? nil : id
    }

    mutating func removeThumbnails(at place: Int) {
        flags[slot(place)] &= ~(Flag.thumbnails | Flag.thumbnailsPNG)
    }

    mutating func removeCover(at place: Int) {
        flags[slot(place)] &= ~Flag.cover
    }
}
