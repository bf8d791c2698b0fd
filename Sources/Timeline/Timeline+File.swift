import Foundation
import LibraryArchive
import Support

/// `timeline.json`: the frame, then an event a line, so that a night's additions change the lines
/// they add and the file reads well in a diff (`--history` keeps it).
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
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = Data("{\n  \"schema_version\" : \(Self.schemaVersion),\n  \"began\" : ".utf8)
        data.append(try encoder.encode(began))
        data.append(contentsOf: Array(",\n  \"through\" : ".utf8))
        data.append(try encoder.encode(through))
        data.append(contentsOf: Array(",\n  \"events\" : [".utf8))
        for (index, event) in events.enumerated() {
            data.append(contentsOf: Array((index == 0 ? "\n    " : ",\n    ").utf8))
            data.append(try encoder.encode(event))
        }
        data.append(contentsOf: Array((events.isEmpty ? "]\n}\n" : "\n  ]\n}\n").utf8))
        return data
    }
}
