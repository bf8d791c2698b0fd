import Foundation
import Support

/// The one owner of `library.json`'s layout, for writing it and for reading it back: JSONEncoder's
/// pretty output with sorted keys, the books' array filled a book at a time between the brackets
/// the encoder gives an empty array. A book's *element* is its JSON as it stands in the array,
/// from its `{` to its `}`; its *entry* is the element indented, followed by a separator, as the
/// array holds it (the last entry's separator is left out when the file is written).
package enum LibraryLayout {
    /// What goes before each line of a book's JSON in the array.
    private static let indent = Array("    ".utf8)
    /// What follows each entry but the last.
    private static let separator = Array(",\n".utf8)
    /// An empty books array as the encoder writes it, and what the books go between instead.
    private static let emptyBooks = Data("\"books\" : [\n\n  ]".utf8)
    private static let booksOpen = Data("\"books\" : [\n".utf8)
    private static let booksClose = Data("\n  ]".utf8)

    /// Why a library could not be laid out: nothing is written without its books.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    package static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A book's entry, from the book.
    package static func entry(_ book: Book, encoder: JSONEncoder) throws -> Data {
        indented(try encoder.encode(book), last: false)
    }

    /// A book's entry, from its element (a book kept from the last snapshot as it was).
    package static func entry(element: Data) -> Data {
        var entry = Data(indent)
        entry.reserveCapacity(element.count + indent.count + separator.count)
        entry.append(element)
        entry.append(contentsOf: separator)
        return entry
    }

    /// A book's element, from the book.
    package static func element(_ book: Book, encoder: JSONEncoder) throws -> Data {
        var entry = indented(try encoder.encode(book), last: true)
        entry.removeFirst(indent.count)
        return entry
    }

    /// Where a book's element lies within its entry.
    package static func element(inEntry entry: Range<Int>) -> Range<Int> {
        entry.lowerBound + indent.count..<entry.upperBound - separator.count
    }

    /// An entry without its separator: the last book of the array.
    package static func lastEntry(_ entry: Range<Int>) -> Range<Int> {
        entry.lowerBound..<entry.upperBound - separator.count
    }

    /// One book's JSON as it stands in the array: indented, and followed by the separator unless last.
    private static func indented(_ encoded: Data, last: Bool) -> Data {
        var piece: [UInt8] = []
        piece.reserveCapacity(encoded.count * 5 / 4)
        piece.append(contentsOf: indent)
        encoded.withUnsafeBytes { bytes in
            for byte in bytes {
                // JSON strings escape their line breaks: every newline here is layout.
                if byte == 0x0A {
                    piece.append(0x0A)
                    piece.append(contentsOf: indent)
                } else {
                    piece.append(byte)
                }
            }
        }
        if !last { piece.append(contentsOf: separator) }
        return Data(piece)
    }

    /// The file of `frame` (a library without its books), with `entries` writing the books' entries
    /// in order, the last without its separator.
    package static func write(frame: Library, entries: (_ sink: (Data) throws -> Void) throws -> Void,
                              to sink: (Data) throws -> Void) throws {
        let (head, tail) = try around(frame)
        try sink(head)
        try withoutActuallyEscaping(sink) { sink in try entries { try sink($0) } }
        try sink(tail)
    }

    /// The file of `frame` and `count` books, each asked for by its place (from several threads at
    /// once): encoded a batch at a time on every core, and written in order.
    package static func write(frame: Library, count: Int, book: (Int) throws -> Book, to sink: (Data) throws -> Void) throws {
        guard count > 0 else {
            try sink(try encoder().encode(frame) + Data([0x0A]))
            return
        }
        try write(frame: frame, entries: { sink in
            let batch = 512
            for start in stride(from: 0, to: count, by: batch) {
                let slice = start..<min(count, start + batch)
                let entries = try EveryCore.map(slice.count, worker: encoder) { encoder, offset in
                    let index = slice.lowerBound + offset
                    return indented(try encoder.encode(try book(index)), last: index == count - 1)
                }
                for entry in entries { try sink(entry) }
            }
        }, to: sink)
    }

    /// The frame's bytes before and after its books.
    private static func around(_ frame: Library) throws -> (head: Data, tail: Data) {
        var empty = frame
        empty.books = []
        let framed = try encoder().encode(empty)
        guard let slot = framed.range(of: emptyBooks) else {
            throw Failure(description: "the encoder did not lay out the books' array as expected: nothing was written")
        }
        return (framed[..<slot.lowerBound] + booksOpen, booksClose + framed[slot.upperBound...] + Data([0x0A]))
    }
}
