import Foundation

/// Reads `timeline.json` a piece at a time into numbers (`EventRecords`), without the file or an
/// event's `String`s in memory: nil for anything it does not expect (another layout, a schema
/// of another version, an unknown key), which `Timeline.read` then gives to `JSONDecoder`.
struct TimelineReader {
    private let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var position = 0
    private var end = 0
    /// A string's bytes as they are read: one buffer for the whole file.
    private var text: [UInt8] = []

    private init(descriptor: Int32) { self.descriptor = descriptor }

    static func read(_ path: String) -> Timeline? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var reader = TimelineReader(descriptor: descriptor)
        return reader.timeline()
    }

    private mutating func timeline() -> Timeline? {
        var schema: Int?, began: String?, through: String?
        var store = EventRecords()
        guard take(UInt8(ascii: "{")) else { return nil }
        repeat {
            guard let key = string() else { return nil }
            guard take(UInt8(ascii: ":")) else { return nil }
            switch key {
            case "schema_version": schema = integer()
            case "began": began = string()
            case "through": through = string()
            case "events":
                guard events(into: &store) else { return nil }
            default: return nil
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")), peek() == nil, schema == Timeline.schemaVersion, let began, let through else { return nil }
        if !store.isSorted { store.sort() }
        store.seal()
        return Timeline(began: began, through: through, store: store)
    }

    private mutating func events(into store: inout EventRecords) -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        if take(UInt8(ascii: "]")) { return true }
        repeat {
            guard let event = event() else { return false }
            store.append(event)
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]"))
    }

    /// One event; its strings are made here, and let go once its numbers are kept.
    private mutating func event() -> TimelineEvent? {
        var date: String?, book: Int?, kind: TimelineEvent.Kind?, title: String?, shelves: [String]?
        var to: [String]?, formerTitle: String?
        guard take(UInt8(ascii: "{")) else { return nil }
        repeat {
            guard let key = string(), take(UInt8(ascii: ":")) else { return nil }
            switch key {
            case "date": date = string()
            case "book": book = integer()
            case "kind": kind = string().flatMap(TimelineEvent.Kind.init(rawValue:))
            case "title": title = string()
            case "shelves": shelves = strings()
            case "to":
                if takeNull() { continue }
                guard let list = strings() else { return nil }
                to = list
            case "former_title":
                if takeNull() { continue }
                guard let former = string() else { return nil }
                formerTitle = former
            default: return nil
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")), let date, let book, let kind, let title, let shelves else { return nil }
        return TimelineEvent(date: date, book: book, kind: kind, title: title, shelves: shelves, to: to, formerTitle: formerTitle)
    }

    // The bytes.

    /// The next byte, white space too, the buffer filled again when it is used up.
    private mutating func current() -> UInt8? {
        if position == end {
            end = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            position = 0
            if end <= 0 {
                end = 0
                return nil
            }
        }
        return buffer[position]
    }

    private mutating func next() -> UInt8? {
        guard let byte = current() else { return nil }
        position += 1
        return byte
    }

    /// The next byte that is not JSON's white space (which may stand between any two tokens).
    private mutating func peek() -> UInt8? {
        while let byte = current() {
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return byte }
            position += 1
        }
        return nil
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        position += 1
        return true
    }

    private mutating func takeNull() -> Bool {
        guard peek() == UInt8(ascii: "n") else { return false }
        return next() == UInt8(ascii: "n") && next() == UInt8(ascii: "u") && next() == UInt8(ascii: "l") && next() == UInt8(ascii: "l")
    }

    /// A whole number; one with a fraction or an exponent, or too big, is left to JSONDecoder.
    private mutating func integer() -> Int? {
        let negative = take(UInt8(ascii: "-"))
        var value = 0, digits = 0
        while let byte = current(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            let (times, over) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !over, !carry else { return nil }
            value = sum
            digits += 1
            position += 1
        }
        guard digits > 0 else { return nil }
        if let byte = current(), byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return nil }
        return negative ? -value : value
    }

    private mutating func strings() -> [String]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var list: [String] = []
        if take(UInt8(ascii: "]")) { return list }
        repeat {
            guard let item = string() else { return nil }
            list.append(item)
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? list : nil
    }

    /// A JSON string, its escapes undone; nil where it is not one (or not UTF-8).
    private mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        text.removeAll(keepingCapacity: true)
        var ascii = true
        while let byte = next() {
            switch byte {
            case UInt8(ascii: "\""):
                return ascii ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = next() else { return nil }
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    ascii = ascii && scalar.isASCII
                    text += String(Character(scalar)).utf8
                default: return nil
                }
            case 0..<0x20: return nil
            default:
                if byte >= 0x80 { ascii = false }
                text.append(byte)
            }
        }
        return nil
    }

    /// `\uXXXX` after its `\u`, a surrogate pair as one scalar.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        guard (0xD800..<0xDC00).contains(high) else { return Unicode.Scalar(high) }
        guard next() == UInt8(ascii: "\\"), next() == UInt8(ascii: "u"), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    }

    private mutating func hex4() -> UInt32? {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = next(), let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
