import Foundation
import Notes
import Support

extension Library {
    /// Sorted keys and a fixed layout: the same library gives the same bytes.
    package func jsonData() throws -> Data {
        var data = Data()
        try writeJSON { data.append($0) }
        return data
    }

    /// `library.json` piece by piece, one book at a time: the bytes JSONEncoder gives for the whole
    /// library (pretty, sorted keys), without building them all at once. A big library's JSON is
    /// larger than the library, and encoding it whole took more memory than anything else in a run.
    package func writeJSON(to sink: (Data) throws -> Void) throws {
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
        for start in stride(from: 0, to: count, by: batch) {
            let slice = start..<min(count, start + batch)
            let pieces = try EveryCore.map(slice.count, worker: Self.encoder) { encoder, offset in
                let index = slice.lowerBound + offset
                return Self.indented(try encoder.encode(try book(index)), last: index == count - 1)
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
    package static func piece(_ book: Book, encoder: JSONEncoder) throws -> Data {
        indented(try encoder.encode(book), last: false)
    }

    /// A piece from a book's JSON as `library.json`'s array holds it (`element`).
    package static func piece(element: Data) -> Data {
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

    package static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Reads `library.json` a book at a time, from the file in pieces: each element of the
    /// `books` array is decoded alone as soon as it has been read, so a big library is never held
    /// or parsed whole. A file laid out in a way the reader does not expect is decoded whole.
    package static func read(from url: URL) throws -> Library {
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
            throw SnapshotError(.unsupportedArchive(version: library.schemaVersion, supported: Library.currentSchemaVersion), path: url.path)
        }
        return library
    }
}
