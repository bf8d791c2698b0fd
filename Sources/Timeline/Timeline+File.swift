import Foundation
import LibraryArchive
import Support

/// `timeline.json`: the frame, then an event a line, so that a night's additions change the lines
/// they add and the file reads well in a diff (`--history` keeps it).
///
/// A year of nights at 100,000 books is a file of about 60 MB: it is read a piece at a time, as
/// `library.json` is (`ArraySplitter` finds each event, `JSONDecoder` reads it, on every core),
/// and written a piece at a time, each event straight from its numbers (`EventRecords`), never as
/// the whole file in memory. A file laid out otherwise (edited by hand) is read whole.
extension Timeline {
    private struct Stored: Codable {
        var schemaVersion: Int
        var began: String
        var through: String
        var events: [TimelineEvent]

        enum CodingKeys: String, CodingKey { case schemaVersion = "schema_version", began, through, events }
    }

    /// Everything but the events.
    private struct Frame: Decodable {
        var schemaVersion: Int
        var began: String
        var through: String

        enum CodingKeys: String, CodingKey { case schemaVersion = "schema_version", began, through }
    }

    /// Why a snapshot's timeline could not be read: the night then begins a new one, and says so.
    package struct Unreadable: Error, CustomStringConvertible {
        package var description: String
    }

    /// The timeline a snapshot holds: nil when it has none (a first night, an older version's
    /// snapshot), an error when it is there but cannot be read as this version writes it.
    package static func read(in snapshot: URL) throws -> Timeline? {
        let file = snapshot.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        do {
            var (frame, store) = try readSplit(file) ?? readWhole(file)
            guard frame.schemaVersion == schemaVersion else {
                throw Unreadable(description: "\(file.path) is of another version's layout (schema \(frame.schemaVersion); this version reads \(schemaVersion))")
            }
            // A snapshot's files are input like any other: a date that is not one is not kept.
            guard NightDate.day(of: frame.began) == frame.began, store.allDates({ NightDate.day(of: $0) == $0 }) else {
                throw Unreadable(description: "\(file.path) holds a date that is not a day (YYYY-MM-DD)")
            }
            // Sorted and sealed in place: a copy was the events' 7 MB twice at 100,000 books.
            if !store.isSorted { store.sort() }
            store.seal()
            return Timeline(began: frame.began, through: frame.through, store: store)
        } catch let error as Unreadable {
            throw error
        } catch {
            throw Unreadable(description: "\(file.path) is not a timeline this version reads (\(error.localizedDescription))")
        }
    }

    /// The file a piece at a time, its events decoded a batch at a time; nil when it is not laid
    /// out as a JSON object with an `events` array of objects.
    private static func readSplit(_ file: URL) throws -> (Frame, EventRecords)? {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var split = ArraySplitter(key: "events")
        var store = EventRecords()
        var batch: [Data] = []
        func decodeBatch() throws {
            let events = try EveryCore.map(batch.count, itemsPerWorker: 256, worker: JSONDecoder.init) { decoder, index in
                try decoder.decode(TimelineEvent.self, from: batch[index])
            }
            for event in events { store.append(event) }
            batch.removeAll(keepingCapacity: true)
        }
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            guard try split.feed(chunk, element: { event in
                batch.append(event)
                if batch.count == 4096 { try decodeBatch() }
            }) else { return nil }
        }
        guard split.isComplete else { return nil }
        try decodeBatch()
        return (try JSONDecoder().decode(Frame.self, from: split.frame), store)
    }

    /// The whole file at once, as `JSONDecoder` reads it.
    private static func readWhole(_ file: URL) throws -> (Frame, EventRecords) {
        let stored = try JSONDecoder().decode(Stored.self, from: Data(contentsOf: file))
        return (Frame(schemaVersion: stored.schemaVersion, began: stored.began, through: stored.through), EventRecords(stored.events))
    }

    /// The file's bytes: the same timeline, the same bytes.
    package func encoded() throws -> Data {
        var data = Data()
        encode { data.append($0) }
        return data
    }

    /// The file's bytes, a piece at a time (about 256 KB each), into `emit`.
    package func encode(into emit: (Data) throws -> Void) rethrows {
        var line = JSONLine()
        line.raw("{\n  \"schema_version\" : \(Self.schemaVersion),\n  \"began\" : ")
        line.string(began.utf8)
        line.raw(",\n  \"through\" : ")
        line.string(through.utf8)
        line.raw(",\n  \"events\" : [")
        for (index, record) in store.records.enumerated() {
            line.raw(index == 0 ? "\n    " : ",\n    ")
            store.encode(record, into: &line)
            if line.bytes.count >= 1 << 18 { try emit(line.take()) }
        }
        line.raw(store.count == 0 ? "]\n}\n" : "\n  ]\n}\n")
        try emit(line.take())
    }
}

/// JSON as `JSONEncoder` writes it with `.sortedKeys` and `.withoutEscapingSlashes`, byte for byte
/// (`TimelineTests` holds the two side by side).
struct JSONLine {
    var bytes: [UInt8] = []

    mutating func raw(_ text: String) { bytes += text.utf8 }

    mutating func take() -> Data {
        defer { bytes.removeAll(keepingCapacity: true) }
        return Data(bytes)
    }

    mutating func string(_ text: some Collection<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text {
            switch byte {
            case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x08: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0C: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func strings(_ list: [ArraySlice<UInt8>]) {
        bytes.append(UInt8(ascii: "["))
        for (index, item) in list.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(item)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}
