import Foundation
import LibraryArchive
import Support

/// `timeline.json`: the frame, then an event a line, so that a night's additions change the lines
/// they add and the file reads well in a diff (`--history` keeps it).
///
/// A year of nights at 100,000 books is a file of about 60 MB: it is read and written a piece at a
/// time, each event straight from and to its numbers (`EventRecords`), never as the whole file in
/// memory, nor through Foundation's JSON coders (seconds at that size). A file laid out otherwise
/// (edited by hand, an older version's) is read by `JSONDecoder`, which says what is wrong with it.
extension Timeline {
    private struct Stored: Codable {
        var schemaVersion: Int
        var began: String
        var through: String
        var events: [TimelineEvent]

        enum CodingKeys: String, CodingKey { case schemaVersion = "schema_version", began, through, events }
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
        // The file as this version writes it; anything else (or an error) is told by the decoder below.
        if let timeline = TimelineReader.read(file.path), NightDate.day(of: timeline.began) == timeline.began,
           timeline.store.allDates({ SnapshotDate.isDay($0) }) {
            return timeline
        }
        let stored: Stored
        do {
            stored = try JSONDecoder().decode(Stored.self, from: Data(contentsOf: file))
        } catch {
            throw Unreadable(description: "\(file.path) is not a timeline this version reads (\(error.localizedDescription))")
        }
        guard stored.schemaVersion == schemaVersion else {
            throw Unreadable(description: "\(file.path) is of another version's layout (schema \(stored.schemaVersion); this version reads \(schemaVersion))")
        }
        // A snapshot's files are input like any other: a date that is not one is not kept.
        guard NightDate.day(of: stored.began) == stored.began,
              stored.events.allSatisfy({ NightDate.day(of: $0.date) == $0.date }) else {
            throw Unreadable(description: "\(file.path) holds a date that is not a day (YYYY-MM-DD)")
        }
        return Timeline(began: stored.began, through: stored.through, events: stored.events)
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
