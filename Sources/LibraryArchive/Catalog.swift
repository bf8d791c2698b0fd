import Foundation
import Notes
import Support

/// A book as lists show it: what pages of many books need, without its notes or the server's
/// fields. A big library's cards fit in memory where its books do not.
package struct BookCard: Sendable, Equatable {
    package var id: Int
    package var title: String
    package var author: String?
    package var isbn: String?
    package var shelfID: Int?
    package var shelfName: String?
    package var createdAt: String?
    package var updatedAt: String?
    package var imageURL: String?
    package var cover: CoverCard?
    package var hasNote: Bool
    package var complete: Bool

    package init(id: Int, title: String, author: String?, isbn: String?, shelfID: Int?, shelfName: String?, createdAt: String?,
                updatedAt: String?, imageURL: String?, cover: CoverCard?, hasNote: Bool, complete: Bool) {
        self.id = id
        self.title = title
        self.author = author
        self.isbn = isbn
        self.shelfID = shelfID
        self.shelfName = shelfName
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.imageURL = imageURL
        self.cover = cover
        self.hasNote = hasNote
        self.complete = complete
    }

    package init(_ book: Book) {
        self.init(id: book.id, title: book.title, author: book.author, isbn: book.isbn, shelfID: book.shelfID, shelfName: book.shelfName,
                  createdAt: book.createdAt, updatedAt: book.updatedAt, imageURL: book.imageURL, cover: book.cover.map(CoverCard.init), hasNote: !book.note.isEmpty, complete: book.complete)
    }
}

/// What pages show of a cover file.
package struct CoverCard: Sendable, Equatable, Decodable {
    package var path: String
    package var width: Int?
    package var height: Int?

    package init(path: String, width: Int?, height: Int?) {
        self.path = path
        self.width = width
        self.height = height
    }

    package init(_ file: CoverFile) {
        self.init(path: file.path, width: file.width, height: file.height)
    }
}

extension BookCard: Decodable {
    /// Only the card's fields of a book's JSON: the rest is skipped, not built.
    private struct NoteMarkdown: Decodable { var markdown: String }

    package init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: Book.CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        author = try container.decodeIfPresent(String.self, forKey: .author)
        isbn = try container.decodeIfPresent(String.self, forKey: .isbn)
        shelfID = try container.decodeIfPresent(Int.self, forKey: .shelfID)
        shelfName = try container.decodeIfPresent(String.self, forKey: .shelfName)
        createdAt = try container.decodeIfPresent(String.self, forKey: .createdAt)
        updatedAt = try container.decodeIfPresent(String.self, forKey: .updatedAt)
        imageURL = try container.decodeIfPresent(String.self, forKey: .imageURL)
        cover = try container.decodeIfPresent(CoverCard.self, forKey: .cover)
        hasNote = !(try container.decode(NoteMarkdown.self, forKey: .note).markdown.isEmpty)
        complete = try container.decode(Bool.self, forKey: .complete)
    }
}

/// Every book's card, packed: numbers in arrays, text in one buffer. A card is made when it is
/// asked for; 100,000 cards take about 20 MB this way, where as values they took 75.
package struct CardList: RandomAccessCollection, Sendable {
    private var ids: [Int] = []
    private var shelfIDs: [Int] = []
    private var coverSizes: [(width: Int32, height: Int32)] = []
    private var flags: [UInt16] = []
    /// The text fields of every card, one after another in chunks of a megabyte that a card never
    /// straddles, each card's chunk, and where each field starts in it: `fieldsPerCard` per card.
    /// One buffer grown by doubling held up to twice its text, and three times while it grew:
    /// 100,000 cards' 24 MB of text took 34 MB, and 50 at the moment it doubled.
    private var chunks: [[UInt8]] = []
    private var chunkOfCard: [UInt32] = []
    private var starts: [UInt32] = []
    private static let chunkBytes = 1 << 20
    /// Where each card lies among those appended, when they were appended in another order.
    private var slots: [Int32]?
    private static let fieldsPerCard = 8
    private static let noShelf = Int.min
    private enum Flag {
        static let note: UInt16 = 1, complete: UInt16 = 2, cover: UInt16 = 4, author: UInt16 = 8, isbn: UInt16 = 16, shelfName: UInt16 = 32
        static let createdAt: UInt16 = 64, updatedAt: UInt16 = 128, imageURL: UInt16 = 256
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { slots?.count ?? ids.count }

    private func slot(_ index: Int) -> Int { slots.map { Int($0[index]) } ?? index }

    package init() {}

    init(_ cards: some Sequence<BookCard>) {
        for card in cards { append(card) }
    }

    /// Puts the cards in another order without moving them: the card at each place from now on is
    /// the one appended at `slots[place]`. The crawl makes books as they come and orders them once.
    package mutating func arrange(_ slots: [Int]) {
        precondition(self.slots == nil && slots.allSatisfy { $0 < ids.count }, "cards arranged once, from those appended")
        self.slots = slots.map { Int32($0) }
    }

    package mutating func append(_ card: BookCard) {
        precondition(slots == nil, "cards appended before they are arranged")
        ids.append(card.id)
        shelfIDs.append(card.shelfID ?? Self.noShelf)
        coverSizes.append((Int32(clamping: card.cover?.width ?? -1), Int32(clamping: card.cover?.height ?? -1)))
        var flag: UInt16 = 0
        if card.hasNote { flag |= Flag.note }
        if card.complete { flag |= Flag.complete }
        if card.cover != nil { flag |= Flag.cover }
        if card.author != nil { flag |= Flag.author }
        if card.isbn != nil { flag |= Flag.isbn }
        if card.shelfName != nil { flag |= Flag.shelfName }
        if card.createdAt != nil { flag |= Flag.createdAt }
        if card.updatedAt != nil { flag |= Flag.updatedAt }
        if card.imageURL != nil { flag |= Flag.imageURL }
        flags.append(flag)
        let fields = [card.title, card.author ?? "", card.isbn ?? "", card.shelfName ?? "", card.createdAt ?? "", card.cover?.path ?? "",
                      card.updatedAt ?? "", card.imageURL ?? ""]
        let size = fields.reduce(0) { $0 + $1.utf8.count }
        if chunks.isEmpty || chunks[chunks.count - 1].count + size > Self.chunkBytes {
            var chunk: [UInt8] = []
            chunk.reserveCapacity(Swift.max(Self.chunkBytes, size))
            chunks.append(chunk)
        }
        let last = chunks.count - 1
        chunkOfCard.append(UInt32(last))
        for field in fields {
            starts.append(UInt32(chunks[last].count))
            chunks[last].append(contentsOf: field.utf8)
        }
    }

    package subscript(place: Int) -> BookCard {
        let index = slot(place)
        let flag = flags[index]
        func field(_ number: Int, if present: UInt16? = nil) -> String? {
            if let present, flag & present == 0 { return nil }
            let at = index * Self.fieldsPerCard + number
            let chunk = Int(chunkOfCard[index])
            // A field ends where the next one starts, in the same chunk; the chunk's last card's last field, at its end.
            let end = number + 1 < Self.fieldsPerCard || (index + 1 < chunkOfCard.count && Int(chunkOfCard[index + 1]) == chunk)
                ? Int(starts[at + 1]) : chunks[chunk].count
            return chunks[chunk].withUnsafeBufferPointer { String(decoding: $0[Int(starts[at])..<end], as: UTF8.self) }
        }
        let size = coverSizes[index]
        return BookCard(id: ids[index], title: field(0)!, author: field(1, if: Flag.author), isbn: field(2, if: Flag.isbn),
                        shelfID: shelfIDs[index] == Self.noShelf ? nil : shelfIDs[index], shelfName: field(3, if: Flag.shelfName),
                        createdAt: field(4, if: Flag.createdAt), updatedAt: field(6, if: Flag.updatedAt),
                        imageURL: field(7, if: Flag.imageURL),
                        cover: field(5, if: Flag.cover).map { CoverCard(path: $0, width: size.width < 0 ? nil : Int(size.width),
                                                                         height: size.height < 0 ? nil : Int(size.height)) },
                        hasNote: flag & Flag.note != 0, complete: flag & Flag.complete != 0)
    }

    /// Without making the card.
    package func id(at place: Int) -> Int { ids[slot(place)] }

    mutating func removeCover(at place: Int) {
        flags[slot(place)] &= ~Flag.cover
    }
}

/// A library whose books are read one at a time when a page needs them: everything but the books
/// (`frame`), a card per book for the pages that list many, and each book whole from where it is
/// kept — `library.json` on disk, or memory. Rendering 100,000 books this way holds their cards,
/// not their notes and fields.
package final class Catalog: @unchecked Sendable {
    /// The library without its books.
    package var frame: Library
    /// In the library's order (by id).
    package private(set) var cards: CardList
    /// Covers that `removeCover` left out.
    private var refusedCovers = Set<Int>()
    private let store: Store

    private enum Store {
        case memory([Book])
        /// An open `library.json` and where each book's JSON lies in it.
        case file(descriptor: Int32, path: String, ranges: [(offset: Int, length: Int)])
        /// Books as `library.json` lays them out, each followed by ",\n" (written by the crawl).
        case pieces(SpillFile, ranges: [Range<Int>])
    }

    package var count: Int { cards.count }

    package convenience init(_ library: Library) {
        var frame = library
        frame.books = []
        self.init(frame: frame, cards: CardList(library.books.lazy.map(BookCard.init)), store: .memory(library.books))
    }

    private init(frame: Library, cards: CardList, store: Store) {
        self.frame = frame
        self.cards = cards
        self.store = store
    }

    /// Books already encoded as `library.json` lays them out (`Library.piece`), in a spill file.
    package init(frame: Library, cards: CardList, pieces: SpillFile, ranges: [Range<Int>]) {
        var frame = frame
        frame.books = []
        self.frame = frame
        self.cards = cards
        self.store = .pieces(pieces, ranges: ranges)
    }

    deinit {
        if case .file(let descriptor, _, _) = store { close(descriptor) }
    }

    /// Reads `library.json` for its cards, a book at a time; each book is read again when asked for.
    /// A file laid out in a way the reader does not expect is read whole into memory.
    package static func read(from url: URL) throws -> Catalog {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SnapshotError(.unreadableArchive(detail: String(cString: strerror(errno))), path: url.path)
        }
        var handed = false
        defer { if !handed { close(descriptor) } }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        var split = BooksArraySplitter()
        var cards = CardList()
        var ranges: [(offset: Int, length: Int)] = []
        let decoder = JSONDecoder()
        var whole = false
        // Books are decoded a batch at a time on every core: one after the other, they were a
        // tenth of a 10,000-book render with the other core idle.
        var batch: [Data] = []
        func decodeBatch() throws {
            for card in try Self.cards(batch) { cards.append(card) }
            batch.removeAll(keepingCapacity: true)
        }
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            guard try split.feed(chunk, located: { data, offset in
                batch.append(data)
                ranges.append((offset, data.count))
                if batch.count == Self.batchSize { try decodeBatch() }
            }) else {
                whole = true
                break
            }
        }
        try decodeBatch()
        if whole || !split.isComplete {
            let library = try Library.read(from: url)
            return Catalog(library)
        }
        let frame = try decoder.decode(Library.self, from: split.frame)
        guard frame.schemaVersion <= Library.currentSchemaVersion else {
            throw SnapshotError(.unsupportedArchive(version: frame.schemaVersion, supported: Library.currentSchemaVersion), path: url.path)
        }
        handed = true
        return Catalog(frame: frame, cards: cards, store: .file(descriptor: descriptor, path: url.path, ranges: ranges))
    }

    private static let batchSize = 1024

    /// The cards of books' JSON, in order, decoded on every core.
    private static func cards(_ books: [Data]) throws -> [BookCard] {
        try EveryCore.map(books.count, itemsPerWorker: 64, worker: JSONDecoder.init) { decoder, index in
            try decoder.decode(BookCard.self, from: books[index])
        }
    }

    /// The whole book at `index` (a cover refused by `removeCover` stays out).
    /// Safe from several threads at once.
    package func book(at index: Int) throws -> Book {
        var book: Book
        if case .memory(let books) = store {
            book = books[index]
        } else {
            book = try decode(Book.self, at: index)
        }
        if refusedCovers.contains(index) { book.cover = nil }
        return book
    }

    /// The whole book at `index`, and its bytes as they stand in `library.json` when they are what
    /// this book is written as (not for a book held in memory, nor one whose cover was left out).
    package func bookAndElement(at index: Int) throws -> (book: Book, element: Data?) {
        if case .memory = store { return (try book(at: index), nil) }
        let element = try element(at: index)
        var book = try decode(Book.self, from: element, at: index)
        guard !refusedCovers.contains(index) else {
            book.cover = nil
            return (book, nil)
        }
        return (book, element)
    }

    /// Only the Markdown of a book's notes: the rest of its JSON is skipped, not built.
    package func noteMarkdown(at index: Int) throws -> String {
        if case .memory(let books) = store { return books[index].note.markdown }
        return try decode(NoteMarkdownOnly.self, at: index).note.markdown
    }

    /// The notes as the server sent them.
    func noteSource(at index: Int) throws -> String? {
        if case .memory(let books) = store { return books[index].note.source }
        return try decode(NoteOnly.self, at: index).note.source
    }

    private struct NoteOnly: Decodable {
        struct Fields: Decodable {
            var markdown: String
            var source: String?
        }
        var note: Fields
    }

    /// The Markdown alone: the source, the server's HTML, is the longer text, and every page
    /// decoded it for nothing.
    private struct NoteMarkdownOnly: Decodable {
        struct Fields: Decodable {
            var markdown: String
        }
        var note: Fields
    }

    /// The book's JSON as it stands in `library.json`'s array (from its `{` to its `}`): two
    /// books are the same exactly when these bytes are.
    func element(at index: Int) throws -> Data {
        switch store {
        case .memory(let books):
            return Library.element(try Library.encoder().encode(books[index]))
        case .file(let descriptor, let path, let ranges):
            let range = ranges[index]
            var data = Data(count: range.length)
            let read = data.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, range.length, off_t(range.offset)) }
            guard read == range.length else {
                throw SnapshotError(.unreadableArchive(detail: "book \(cards.id(at: index)) could not be read again"), path: path)
            }
            return data
        case .pieces(let spill, let ranges):
            // "    {…},\n"
            let range = ranges[index]
            return try spill.read(range.lowerBound + 4..<range.upperBound - 2)
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        try decode(type, from: try element(at: index), at: index)
    }

    private func decode<T: Decodable>(_ type: T.Type, from data: Data, at index: Int) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            if case .file(_, let path, _) = store {
                throw SnapshotError(.unreadableArchive(detail: "book \(cards.id(at: index)): \(error)"), path: path)
            }
            throw error
        }
    }

    /// The same library, whatever its date: what decides whether anything changed.
    package func sameContent(as other: Catalog) throws -> Bool {
        var theirs = other.frame
        theirs.generatedAt = frame.generatedAt
        guard theirs == frame, count == other.count else { return false }
        for index in 0..<count where cards.id(at: index) != other.cards.id(at: index) { return false }
        for index in 0..<count where try element(at: index) != other.element(at: index) { return false }
        return true
    }

    /// Leaves a book's cover out of every page (and of `library.json` written from here).
    package func removeCover(at index: Int) {
        cards.removeCover(at: index)
        refusedCovers.insert(index)
    }

    /// `library.json`, the same bytes as `Library.writeJSON` of the whole library.
    package func writeJSON(to sink: (Data) throws -> Void) throws {
        if case .pieces(let spill, let ranges) = store, refusedCovers.isEmpty, !ranges.isEmpty {
            // Already laid out: the frame around the books' bytes as they are, each followed by
            // ",\n" but the last. Books side by side in the file are copied in one go.
            try Library.writeJSON(frame: frame, books: {
                var run = ranges[0]
                for range in ranges.dropFirst() {
                    if range.lowerBound == run.upperBound {
                        run = run.lowerBound..<range.upperBound
                    } else {
                        try spill.copy(run, to: $0)
                        run = range
                    }
                }
                try spill.copy(run.lowerBound..<run.upperBound - 2, to: $0)
            }, to: sink)
            return
        }
        try Library.writeJSON(frame: frame, count: count, book: { try book(at: $0) }, to: sink)
    }

    /// Every book in memory at once: for small libraries and tests.
    package func library() throws -> Library {
        var library = frame
        library.books = try (0..<count).map { try book(at: $0) }
        return library
    }
}
