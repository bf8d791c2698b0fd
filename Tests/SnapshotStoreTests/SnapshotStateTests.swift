import Foundation
import LibraryArchive
import SnapshotStore
import TestSupport
import Testing

/// A state that is there but cannot be used costs a full run, and says why: never silently. One
/// an older version wrote is read as the current layout, in one place (`StateLayout`).
@Suite struct SnapshotStateTests {
    @Test func aStateThatCannotBeUsedSaysWhy() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let state = folder.path("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        func why() -> [String] {
            var said: [String] = []
            _ = SnapshotState.read(from: state) { said.append($0) }
            return said
        }
        // None at all: a first run, nothing to say.
        #expect(why().isEmpty)
        let file = state.appendingPathComponent("state.json")
        try Data("{\"schema_version\": 4, \"responses\": ".utf8).write(to: file)
        #expect(why() == ["\(file.path) is damaged (not the JSON this tool writes)"])
        try Data("{\"schema_version\": 2, \"old_field\": true}".utf8).write(to: file)
        #expect(why() == ["\(file.path) is of an older version's layout (schema 2; this version reads 3 to 4)"])
        try Data("{\"schema_version\": 5, \"responses\": {}}".utf8).write(to: file)
        #expect(why() == ["\(file.path) was written by a newer reader-snapshot (schema 5; this version reads 3 to 4)"])
        // One that is whole reads as it was written, without a word.
        try SnapshotState().writeAnswers(to: state)
        #expect(why().isEmpty)
        #expect(try String(contentsOf: file, encoding: .utf8).contains("\"schema_version\":4"))
    }

    /// Layout 3, written before the origin and the privacy options were kept: the origin is read
    /// from the library's frame, and a state with a note limit kept a whole library.
    @Test func aStateOfLayoutThreeIsReadAsTheCurrentOne() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let state = folder.path("state")
        try SnapshotState().writeAnswers(to: state)
        let file = state.appendingPathComponent("state.json")
        func layoutThree(noteLimit: Int?) throws {
            let limit = noteLimit.map { ", \"note_limit\": \($0)" } ?? ""
            try Data("{\"schema_version\": 3, \"responses\": {}, \"rendered_with\": \"r\"\(limit)}".utf8).write(to: file)
        }
        try layoutThree(noteLimit: 50_000)
        // No library beside it: no origin to be had, and nothing said (the library's own reading says).
        var said: [String] = []
        var read = SnapshotState.read(from: state) { said.append($0) }
        #expect(said.isEmpty && read.origin == nil && read.privacy == "" && read.renderedWith == "r")

        let library = LibraryFile(Library(generatedAt: "2024-01-01T00:00:00Z", server: "https://reader.example", user: nil, userID: 7,
                                          shelves: [], books: [], problems: []))
        var json = Data()
        try library.writeJSON { json.append($0) }
        try json.write(to: state.appendingPathComponent("library.json"))
        read = SnapshotState.read(from: state)
        #expect(read.origin == SnapshotOrigin(server: "https://reader.example", userID: 7))
        // No note limit: the library was written under privacy options not known now.
        try layoutThree(noteLimit: nil)
        read = SnapshotState.read(from: state)
        #expect(read.privacy == nil && read.origin?.userID == 7)
        // Written again, it is of the current layout, with what was migrated.
        try read.writeAnswers(to: state)
        let written = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
        #expect(written?["schema_version"] as? Int == 4)
        #expect((written?["origin"] as? [String: Any])?["server"] as? String == "https://reader.example")
    }

    /// The covers' addresses are kept beside `state.json`: without them, every book taken
    /// unchanged would lose its cover. A file of them that is there but cannot be used costs a
    /// full run too, and says why; none at all is a state written by a night that left the
    /// snapshot as it was, and says nothing.
    @Test func coverAddressesThatCannotBeUsedCostAFullRun() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let state = folder.path("state")
        var kept = SnapshotState()
        kept.noteLimit = 50_000
        try kept.writeAnswers(to: state)
        var said: [String] = []
        #expect(SnapshotState.read(from: state) { said.append($0) }.noteLimit == 50_000)
        #expect(said.isEmpty)
        let file = state.appendingPathComponent("cover-addresses.json")
        try Data("{\"12\": ".utf8).write(to: file)
        #expect(SnapshotState.read(from: state) { said.append($0) }.noteLimit == nil)
        #expect(said == ["\(file.path) is damaged (not the JSON this tool writes)"])
        // A folder where the file should be: there, and nothing to read.
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
        said = []
        #expect(SnapshotState.read(from: state) { said.append($0) }.noteLimit == nil)
        #expect(said == ["\(file.path) could not be read (Is a directory)"])
    }
}
