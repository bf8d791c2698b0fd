import Foundation

/// Splits a JSON object, as it streams in, into the elements of one of its top-level arrays (a
/// library's `"books"`, a timeline's `"events"`) and the rest (with that array left empty). Only
/// strings and nesting are followed, to find the elements: parsing them is JSONDecoder's.
package struct ArraySplitter {
    /// The array's key, as its bytes.
    private let arrayKey: [UInt8]

    package init(key: String = "books") { arrayKey = Array(key.utf8) }

    /// Everything but the array's elements: `{ …, "books" : [], … }`.
    package var frame: Data { Data(frameBytes) }
    private var frameBytes: [UInt8] = []
    private var depth = 0
    private var inString = false
    private var escaped = false
    /// The last key read at the top level, while it is short enough to be the array's.
    private var key: [UInt8]? = []
    private var inArray = false
    private var sawArray = false
    private var element: [UInt8]?
    /// Bytes read so far, and where the element being read starts.
    private var position = 0
    private var elementStart = 0

    /// True once the whole object has been read with its array.
    package var isComplete: Bool { sawArray && depth == 0 && !inString }

    /// Reads the next piece, each element found handed to `found`; false when the JSON is not
    /// laid out as expected.
    package mutating func feed(_ chunk: Data, element found: (Data) throws -> Void) rethrows -> Bool {
        try chunk.withUnsafeBytes { try feed($0, found: { data, _ in try found(data) }) }
    }

    /// The same, with each element's offset in the whole input.
    package mutating func feed(_ chunk: Data, located found: (Data, Int) throws -> Void) rethrows -> Bool {
        try chunk.withUnsafeBytes { try feed($0, found: found) }
    }

    private mutating func feed(_ chunk: UnsafeRawBufferPointer, found: (Data, Int) throws -> Void) rethrows -> Bool {
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
                readInString(byte)
            } else if try !readOutsideString(byte, at: position + offset, found: found) {
                return false
            }
        }
        return true
    }

    /// A byte inside a string: an escape, the string's end, or a letter of a top-level key.
    private mutating func readInString(_ byte: UInt8) {
        take(byte)
        if escaped {
            escaped = false
        } else if byte == Byte.backslash {
            escaped = true
        } else if byte == Byte.quote {
            inString = false
        } else if depth == 1, !inArray, key != nil {
            key!.append(byte)
            if key!.count > arrayKey.count { key = nil }
        }
    }

    /// A byte outside any string, at `location` in the whole input; false when the layout is not the one looked for.
    private mutating func readOutsideString(_ byte: UInt8, at location: Int, found: (Data, Int) throws -> Void) rethrows -> Bool {
        // Between the elements only commas and spaces: anything else is a layout this does not read.
        if inArray, depth == 2, element == nil, byte != Byte.openBrace, byte != Byte.closeBracket, byte != Byte.comma,
           byte != 0x20, byte != 0x0A, byte != 0x0D, byte != 0x09 {
            return false
        }
        switch byte {
        case Byte.quote:
            inString = true
            if depth == 1, !inArray { key = [] }
            take(byte)
            return true
        case Byte.openBrace, Byte.openBracket:
            return open(byte, at: location)
        case Byte.closeBrace, Byte.closeBracket:
            return try close(byte, found: found)
        default:
            take(byte)
            return true
        }
    }

    /// An opening bracket: the array itself, an element's start, or anything else nested.
    private mutating func open(_ byte: UInt8, at location: Int) -> Bool {
        if depth == 1, byte == Byte.openBracket, !sawArray, key == arrayKey {
            inArray = true
            sawArray = true
            frameBytes.append(byte)
        } else if inArray, depth == 2 {
            guard byte == Byte.openBrace else { return false }
            element = [byte]
            elementStart = location
        } else {
            take(byte)
        }
        depth += 1
        return true
    }

    /// A closing bracket: an element's end (handed over), the array's end, or anything else nested.
    private mutating func close(_ byte: UInt8, found: (Data, Int) throws -> Void) rethrows -> Bool {
        depth -= 1
        guard depth >= 0 else { return false }
        if inArray, depth == 2, var finished = element {
            finished.append(byte)
            element = nil
            try found(Data(finished), elementStart)
        } else if inArray, depth == 1 {
            inArray = false
            frameBytes.append(byte)
        } else {
            take(byte)
        }
        return true
    }

    /// Where the run of bytes from `start` that change nothing but what is taken ends: in a string,
    /// up to a quote or a backslash (unless a key is being read, or a backslash came last); outside
    /// one, up to a quote or a bracket (unless between two elements, where every byte is checked).
    private func runOfPlainBytes(in chunk: UnsafeRawBufferPointer, from start: Int) -> Int {
        var index = start
        let count = chunk.count
        if inString {
            guard !escaped, !(depth == 1 && !inArray && key != nil) else { return start }
            while index < count {
                let byte = chunk[index]
                if byte == Byte.quote || byte == Byte.backslash { break }
                index += 1
            }
        } else {
            guard !(inArray && depth == 2 && element == nil) else { return start }
            while index < count {
                switch chunk[index] {
                case Byte.quote, Byte.openBrace, Byte.closeBrace, Byte.openBracket, Byte.closeBracket: return index
                default: index += 1
                }
            }
        }
        return index
    }

    /// A byte goes to the element being read, nowhere (between elements), or the frame.
    private mutating func take(_ byte: UInt8) {
        if element != nil {
            element!.append(byte)
        } else if !inArray {
            frameBytes.append(byte)
        }
    }

    private mutating func take(_ bytes: UnsafeRawBufferPointer) {
        if element != nil {
            element!.append(contentsOf: bytes)
        } else if !inArray {
            frameBytes.append(contentsOf: bytes)
        }
    }
}

/// The bytes of JSON's layout that the splitter looks for. Named, not written as character
/// literals: a brace inside a literal reads as one to anything that counts braces.
private enum Byte {
    static let quote: UInt8 = 0x22
    static let comma: UInt8 = 0x2C
    static let openBracket: UInt8 = 0x5B
    static let backslash: UInt8 = 0x5C
    static let closeBracket: UInt8 = 0x5D
    static let openBrace: UInt8 = 0x7B
    static let closeBrace: UInt8 = 0x7D
}
