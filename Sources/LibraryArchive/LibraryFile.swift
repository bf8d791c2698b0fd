import Foundation
import Notes
import Support

/// A library whose books are read one at a time when a page needs them: everything but the books
/// (`frame`), an entry per book for the pages that list many, and each book whole from where it is
/// kept — `library.json` on disk, or memory. Rendering 100,000 books this way holds their entries,
/// not their notes and fields.
///
/// A value: a step that changes the library (Open Library's fields, a title, a refused cover)
/// changes its own copy, never one another step or thread is reading. The books' bytes are shared
/// between copies until one of them replaces a book.
package struct LibraryFile: Sendable {
    /// The library without its books.
    package var frame: Library
    /// In the library's order (by id).
    package private(set) var entries: EntryList
    /// Covers that `removeCover` left out.
    private var refusedCovers = Set<Int>()
    /// Covers whose thumbnails `removeThumbnails` left out.
    private var unthumbnailed = Set<Int>()
    private var kept: Kept
    private var store: Store { kept.store }

    /// Where the books are, shared by the copies of a library file: changed only through a copy that
    /// holds it alone (`replace`), so readers on other threads never see it change.
    /// Unchecked: it holds a file descriptor, and a lock on each book read of a 100,000-book
    /// render would guard nothing, as it is replaced only through a library file that holds it alone.
    private final class Kept: @unchecked Sendable {
        var store: Store

        init(_ store: Store) {
            self.store = store
        }

        deinit {
            if case .file(let descriptor, _, _) = store { close(descriptor) }
        }
    }

    private enum Store {
        case memory([Book])
        /// An open `library.json` and where each book's JSON lies in it.
        case file(descriptor: Int32, path: String, ranges: [(offset: Int, length: Int)])
        /// Books as `library.json` lays them out, each followed by ",\n" (written by the crawl).
        case pieces(SpillFile, ranges: [Range<Int>])
    }

    package var count: Int { entries.count }

    package init(_ library: Library) {
        var frame = library
        frame.books = []
        self.init(frame: frame, entries: EntryList(library.books.lazy.map(BookEntry.init)), store: .memory(library.books))
    }

    private init(frame: Library, entries: EntryList, store: Store) {
        self.frame = frame
        self.entries = entries
        self.kept = Kept(store)
    }

    /// Books' entries as `library.json` lays them out (`LibraryLayout.entry`), in a spill file.
    package init(frame: Library, entries: EntryList, pieces: SpillFile, ranges: [Range<Int>]) {
        var frame = frame
        frame.books = []
        self.frame = frame
        self.entries = entries
        self.kept = Kept(.pieces(pieces, ranges: ranges))
    }

    /// Reads `library.json` for its entries, a book at a time; each book is read again when asked for.
    /// A file laid out in a way the reader does not expect is read whole into memory.
    package static func read(from url: URL) throws -> LibraryFile {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SnapshotError(.unreadableArchive(detail: String(cString: strerror(errno))), path: url.path)
        }
        var handed = false
        defer { if !handed { close(descriptor) } }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        var split = ArraySplitter()
        var entries = EntryList()
        var ranges: [(offset: Int, length: Int)] = []
        let decoder = JSONDecoder()
        var whole = false
        // Books are decoded a batch at a time on every core: one after the other, they were a
        // tenth of a 10,000-book render with the other core idle.
        var batch: [Data] = []
        let fileSize = Int(lseek(descriptor, 0, SEEK_END))
        lseek(descriptor, 0, SEEK_SET)
        func decodeBatch() throws {
            if entries.isEmpty, let last = ranges.last, last.offset + last.length > 0 {
                // Room for as many books as the first batch says the file holds, and a few more:
                // grown by doubling, 100,000 books' entries took twice their size, and three times
                // while they grew (the peak of a night reading its last snapshot).
                let books = Int(Double(ranges.count) * Double(fileSize) / Double(last.offset + last.length) * 1.05) + 16
                entries.reserveCapacity(books)
                ranges.reserveCapacity(books)
            }
            for entry in try Self.entries(batch) { entries.append(entry) }
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
            return LibraryFile(library)
        }
        let frame = try decoder.decode(Library.self, from: split.frame)
        guard frame.schemaVersion <= Library.currentSchemaVersion else {
            throw SnapshotError(.unsupportedArchive(version: frame.schemaVersion, supported: Library.currentSchemaVersion), path: url.path)
        }
        handed = true
        return LibraryFile(frame: frame, entries: entries, store: .file(descriptor: descriptor, path: url.path, ranges: ranges))
    }

    private static let batchSize = 1024

    /// The entries of books' JSON, in order, decoded on every core.
    private static func entries(_ books: [Data]) throws -> [BookEntry] {
        try EveryCore.map(books.count, itemsPerWorker: 64, worker: JSONDecoder.init) { decoder, index in
            try decoder.decode(BookEntry.self, from: books[index])
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
        if unthumbnailed.contains(index) { book.cover?.thumbnails = nil }
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
        guard !unthumbnailed.contains(index) else {
            book.cover?.thumbnails = nil
            return (book, nil)
        }
        return (book, element)
    }

    /// Only the Markdown of a book's notes: the rest of its JSON is skipped, not built.
    package func noteMarkdown(at index: Int) throws -> String {
        if case .memory(let books) = store { return books[index].note.markdown }
        return try decode(NoteMarkdownOnly.self, at: index).note.markdown
    }

    /// The same, from the book's entry already read (`element(at:)`): not read a second time.
    package func noteMarkdown(at index: Int, element: Data) throws -> String {
        if case .memory(let books) = store { return books[index].note.markdown }
        return try decode(NoteMarkdownOnly.self, from: element, at: index).note.markdown
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
    package func element(at index: Int) throws -> Data {
        switch store {
        case .memory(let books):
            return try LibraryLayout.element(books[index], encoder: LibraryLayout.encoder())
        case .file(let descriptor, let path, let ranges):
            let range = ranges[index]
            var data = Data(count: range.length)
            let read = data.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, range.length, off_t(range.offset)) }
            guard read == range.length else {
                throw SnapshotError(.unreadableArchive(detail: "book \(entries.id(at: index)) could not be read again"), path: path)
            }
            return data
        case .pieces(let spill, let ranges):
            return try spill.read(LibraryLayout.element(inEntry: ranges[index]))
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
                throw SnapshotError(.unreadableArchive(detail: "book \(entries.id(at: index)): \(error)"), path: path)
            }
            throw error
        }
    }

    /// The same library, whatever its date: what decides whether anything changed.
    package func sameContent(as other: LibraryFile) throws -> Bool {
        var theirs = other.frame
        theirs.generatedAt = frame.generatedAt
        guard theirs == frame, count == other.count else { return false }
        for index in 0..<count where entries.id(at: index) != other.entries.id(at: index) { return false }
        for index in 0..<count where try element(at: index) != other.element(at: index) { return false }
        return true
    }

    /// Puts `book` in place of the book at `index`: the crawl's books are changed after it (what
    /// Open Library adds), one at a time and before the library is shared between threads.
    package mutating func replace(at index: Int, with book: Book) throws {
        precondition(book.id == entries.id(at: index), "a book replaced by itself")
        // Another copy reads these books: this one gets a store of its own first.
        if !isKnownUniquelyReferenced(&kept) {
            switch kept.store {
            case .memory(let books): kept = Kept(.memory(books))
            case .pieces(let spill, let ranges): kept = Kept(.pieces(spill, ranges: ranges))
            case .file: kept = Kept(.memory(try (0..<count).map { try self.book(at: $0) }))
            }
        }
        // The store is emptied while its array changes, so that the array is changed in place
        // rather than copied (a night replaces thousands of books).
        switch kept.store {
        case .memory(var books):
            kept.store = .memory([])
            books[index] = book
            kept.store = .memory(books)
        case .pieces(let spill, var ranges):
            let range = try spill.append(try LibraryLayout.entry(book, encoder: LibraryLayout.encoder()))
            kept.store = .memory([])
            ranges[index] = range
            kept.store = .pieces(spill, ranges: ranges)
        case .file(let descriptor, _, _):
            var books = try (0..<count).map { try self.book(at: $0) }
            books[index] = book
            kept.store = .memory(books)
            close(descriptor)
        }
        var card = BookEntry(book)
        let kept = entries[index]
        // Dates and addresses on the crawl's entries serve the next run.
        card.updatedAt = kept.updatedAt
        card.imageURL = kept.imageURL
        entries.replace(at: index, with: card)
        refusedCovers.remove(index)
        unthumbnailed.remove(index)
    }

    /// Shows a book's cover whole, without its thumbnails (on every page, and in `library.json` written from here).
    package mutating func removeThumbnails(at index: Int) {
        entries.removeThumbnails(at: index)
        unthumbnailed.insert(index)
    }

    /// Leaves a book's cover out of every page (and of `library.json` written from here).
    package mutating func removeCover(at index: Int) {
        entries.removeCover(at: index)
        refusedCovers.insert(index)
    }

    /// `library.json`, the same bytes as `Library.writeJSON` of the whole library.
    package func writeJSON(to sink: (Data) throws -> Void) throws {
        if case .pieces(let spill, let ranges) = store, refusedCovers.isEmpty, unthumbnailed.isEmpty, !ranges.isEmpty {
            // Already laid out: the frame around the books' bytes as they are, each followed by
            // ",\n" but the last. Books side by side in the file are copied in one go.
            try LibraryLayout.write(frame: frame, entries: {
                var run = ranges[0]
                for range in ranges.dropFirst() {
                    if range.lowerBound == run.upperBound {
                        run = run.lowerBound..<range.upperBound
                    } else {
                        try spill.copy(run, to: $0)
                        run = range
                    }
                }
                try spill.copy(LibraryLayout.lastEntry(run), to: $0)
            }, to: sink)
            return
        }
        if case .file = store, frame.schemaVersion == Library.currentSchemaVersion, refusedCovers.isEmpty, unthumbnailed.isEmpty, count > 0 {
            // A library.json of this layout: each book's bytes as they stand in it, as the crawl
            // keeps an unchanged book's. Decoding and encoding every book again was a twelfth of
            // a 10,000-book `render --from`.
            try LibraryLayout.write(frame: frame, entries: { sink in
                var pending = Data()
                pending.reserveCapacity(1 << 20)
                for index in 0..<count {
                    let entry = LibraryLayout.entry(element: try element(at: index))
                    pending.append(index == count - 1 ? entry[LibraryLayout.lastEntry(entry.startIndex..<entry.endIndex)] : entry)
                    if pending.count >= 1 << 20 {
                        try sink(pending)
                        pending.removeAll(keepingCapacity: true)
                    }
                }
                if !pending.isEmpty { try sink(pending) }
            }, to: sink)
            return
        }
        try LibraryLayout.write(frame: frame, count: count, book: { try book(at: $0) }, to: sink)
    }

    /// Every book in memory at once: for small libraries and tests.
    package func library() throws -> Library {
        var library = frame
        library.books = try (0..<count).map { try book(at: $0) }
        return library
    }
}
