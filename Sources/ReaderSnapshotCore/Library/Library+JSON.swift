import Foundation

extension Library {
    /// Sorted keys and a fixed layout: the same library gives the same bytes.
    public func jsonData() throws -> Data {
        var data = Data()
        try writeJSON { data.append($0) }
        return data
    }

    /// `library.json` piece by piece, one book at a time: the bytes JSONEncoder gives for the whole
    /// library (pretty, sorted keys), without building them all at once. A big library's JSON is
    /// larger than the library, and encoding it whole took more memory than anything else in a run.
    public func writeJSON(to sink: (Data) throws -> Void) throws {
        var frame = self
        frame.books = []
        let books = self.books
        try Self.writeJSON(frame: frame, count: books.count, book: { books[$0] }, to: sink)
    }

    /// `library.json` of `frame` (a library without its books) and `count` books, each asked for
    /// by its place: called from several threads at once.
    static func writeJSON(frame: Library, count: Int, book: (Int) throws -> Book, to sink: (Data) throws -> Void) throws {
        let encoder = Self.encoder()
        let framed = try encoder.encode(frame)
        // The frame has `"books" : [\n\n  ]`: the books go between its brackets.
        let empty = Data("\"books\" : [\n\n  ]".utf8)
        guard count > 0, let slot = framed.range(of: empty) else {
            try sink(framed + Data([0x0A]))
            return
        }
        try sink(framed[..<slot.lowerBound] + Data("\"books\" : [\n".utf8))
        // Books are encoded a batch at a time on every core, and written in order.
        let batch = 512
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        for start in stride(from: 0, to: count, by: batch) {
            let slice = start..<min(count, start + batch)
            var pieces = [Data](repeating: Data(), count: slice.count)
            let failures = JobQueue()
            try withoutActuallyEscaping(book) { book in
                nonisolated(unsafe) let book = book
                pieces.withUnsafeMutableBufferPointer { out in
                    nonisolated(unsafe) let out = out
                    DispatchQueue.concurrentPerform(iterations: min(workers, slice.count)) { worker in
                        let encoder = Self.encoder()
                        for offset in stride(from: worker, to: slice.count, by: workers) {
                            do {
                                let index = slice.lowerBound + offset
                                out[offset] = Self.indented(try encoder.encode(try book(index)), last: index == count - 1)
                            } catch {
                                failures.record(error, at: offset)
                            }
                        }
                    }
                }
                if let error = failures.error { throw error }
            }
            for piece in pieces { try sink(piece) }
        }
        try sink(Data("\n  ]".utf8) + framed[slot.upperBound...] + Data([0x0A]))
    }

    /// `library.json` of `frame` with books already laid out as `piece` lays them (without the
    /// comma after the last).
    static func writeJSON(frame: Library, books: (_ sink: (Data) throws -> Void) throws -> Void, to sink: (Data) throws -> Void) throws {
        let framed = try encoder().encode(frame)
        let empty = Data("\"books\" : [\n\n  ]".utf8)
        guard let slot = framed.range(of: empty) else { throw EncodingError.invalidValue(frame, .init(codingPath: [], debugDescription: "no books array")) }
        try sink(framed[..<slot.lowerBound] + Data("\"books\" : [\n".utf8))
        try withoutActuallyEscaping(sink) { sink in try books { try sink($0) } }
        try sink(Data("\n  ]".utf8) + framed[slot.upperBound...] + Data([0x0A]))
    }

    /// A book as it stands in `library.json`'s array, followed by ",\n".
    static func piece(_ book: Book, encoder: JSONEncoder) throws -> Data {
        indented(try encoder.encode(book), last: false)
    }

    /// A piece from a book's JSON as `library.json`'s array holds it (`element`).
    static func piece(element: Data) -> Data {
        var piece = Data("    ".utf8)
        piece.reserveCapacity(element.count + 6)
        piece.append(element)
        piece.append(contentsOf: ",\n".utf8)
        return piece
    }

    /// A book's JSON as it stands in `library.json`'s array, from its `{` to its `}`.
    static func element(_ encoded: Data) -> Data {
        var piece = indented(encoded, last: true)
        piece.removeFirst(4)
        return piece
    }

    /// One book's JSON as it stands in the `books` array: four spaces in, a comma after.
    private static func indented(_ encoded: Data, last: Bool) -> Data {
        var piece: [UInt8] = []
        piece.reserveCapacity(encoded.count * 5 / 4)
        piece.append(contentsOf: "    ".utf8)
        encoded.withUnsafeBytes { bytes in
            for byte in bytes {
                // JSON strings escape their line breaks: every newline here is layout.
                if byte == 0x0A { piece.append(contentsOf: "\n    ".utf8) } else { piece.append(byte) }
            }
        }
        if !last { piece.append(contentsOf: ",\n".utf8) }
        return Data(piece)
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Reads `library.json` a book at a time, from the file in pieces: each element of the
    /// `books` array is decoded alone as soon as it has been read, so a big library is never held
    /// or parsed whole. A file laid out in a way the reader does not expect is decoded whole.
    public static func read(from url: URL) throws -> Library {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var split = BooksArraySplitter()
        var books: [Book] = []
        let decoder = JSONDecoder()
        var whole = false
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            guard try split.feed(chunk, book: { books.append(try decoder.decode(Book.self, from: $0)) }) else {
                whole = true
                break
            }
        }
        var library: Library
        if whole || !split.isComplete {
            library = try JSONDecoder().decode(Library.self, from: try Data(contentsOf: url))
        } else {
            library = try decoder.decode(Library.self, from: split.frame)
            library.books = books
        }
        guard library.schemaVersion <= currentSchemaVersion else {
            throw SnapshotError(.unsupportedArchive(version: library.schemaVersion), path: url.path)
        }
        return library
    }
}

/// Splits a library's JSON, as it streams in, into the elements of its top-level `"books"` array
/// and the rest (with that array left empty). Only strings and nesting are followed, to find the
/// elements: parsing them is JSONDecoder's.
struct BooksArraySplitter {
    /// Everything but the books: `{ …, "books" : [], … }`.
    var frame: Data { Data(frameBytes) }
    private var frameBytes: [UInt8] = []
    private var depth = 0
    private var inString = false
    private var escaped = false
    /// The last key read at the top level, while it is short enough to be "books".
    private var key: [UInt8]? = []
    private var inBooks = false
    private var sawBooks = false
    private var element: [UInt8]?
    /// Bytes read so far, and where the element being read starts.
    private var position = 0
    private var elementStart = 0

    /// True once the whole object has been read with its books array.
    var isComplete: Bool { sawBooks && depth == 0 && !inString }

    /// Reads the next piece; false when the JSON is not laid out as a library.
    mutating func feed(_ chunk: Data, book: (Data) throws -> Void) rethrows -> Bool {
        try chunk.withUnsafeBytes { try feed($0, book: { data, _ in try book(data) }) }
    }

    /// The same, with each book's offset in the whole input.
    mutating func feed(_ chunk: Data, located book: (Data, Int) throws -> Void) rethrows -> Bool {
        try chunk.withUnsafeBytes { try feed($0, book: book) }
    }

    private mutating func feed(_ chunk: UnsafeRawBufferPointer, book: (Data, Int) throws -> Void) rethrows -> Bool {
        defer { position += chunk.count }
        let count = chunk.count
        var offset = 0
        while offset < count {
            // Most bytes are a string's or the layout's: a run of them up to the next byte that
            // matters is taken at once (one byte at a time was most of reading a library).
            let runEnd = runOfPlainBytes(in: chunk, from: offset)
            if runEnd > offset {
                take(UnsafeRawBufferPointer(rebasing: chunk[offset..<runEnd]))
                offset = runEnd
                continue
            }
            let byte = chunk[offset]
            defer { offset += 1 }
            if inString {
                take(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                } else if depth == 1, !inBooks, key != nil {
                    key!.append(byte)
                    if key!.count > 8 { key = nil }
                }
                continue
            }
            // Between the books only commas and spaces: anything else is a layout this does not read.
            if inBooks, depth == 2, element == nil, byte != UInt8(ascii: "{"), byte != UInt8(ascii: "]"), byte != UInt8(ascii: ","),
               byte != 0x20, byte != 0x0A, byte != 0x0D, byte != 0x09 {
                return false
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                if depth == 1, !inBooks { key = [] }
                take(byte)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if depth == 1, byte == UInt8(ascii: "["), !sawBooks, key == Array("books".utf8) {
                    inBooks = true
                    sawBooks = true
                    frameBytes.append(byte)
                } else if inBooks, depth == 2 {
                    guard byte == UInt8(ascii: "{") else { return false }
                    element = [byte]
                    elementStart = position + offset
                } else {
                    take(byte)
                }
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                guard depth >= 0 else { return false }
                if inBooks, depth == 2, var finished = element {
                    finished.append(byte)
                    element = nil
                    try book(Data(finished), elementStart)
                } else if inBooks, depth == 1 {
                    inBooks = false
                    frameBytes.append(byte)
                } else {
                    take(byte)
                }
            default:
                take(byte)
            }
        }
        return true
    }

    /// Where the run of bytes from `start` that change nothing but what is taken ends: in a string,
    /// up to a quote or a backslash (unless a key is being read, or a backslash came last); outside
    /// one, up to a quote or a bracket (unless between two books, where every byte is checked).
    private func runOfPlainBytes(in chunk: UnsafeRawBufferPointer, from start: Int) -> Int {
        var index = start
        let count = chunk.count
        if inString {
            guard !escaped, !(depth == 1 && !inBooks && key != nil) else { return start }
            while index < count {
                let byte = chunk[index]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
                index += 1
            }
        } else {
            guard !(inBooks && depth == 2 && element == nil) else { return start }
            while index < count {
                switch chunk[index] {
                case UInt8(ascii: "\""), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"): return index
                default: index += 1
                }
            }
        }
        return index
    }

    /// A byte goes to the book being read, nowhere (between books), or the frame.
    private mutating func take(_ byte: UInt8) {
        if element != nil {
            element!.append(byte)
        } else if !inBooks {
            frameBytes.append(byte)
        }
    }

    private mutating func take(_ bytes: UnsafeRawBufferPointer) {
        if element != nil {
            element!.append(contentsOf: bytes)
        } else if !inBooks {
            frameBytes.append(contentsOf: bytes)
        }
    }
}
