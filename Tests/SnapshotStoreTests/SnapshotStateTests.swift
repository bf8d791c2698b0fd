import Foundation
import SnapshotStore
import TestSupport
import Testing

/// A state that is there but cannot be used costs a full run, and says why: never silently.
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
        try Data("{\"schema_version\": 3, \"responses\": ".utf8).write(to: file)
        #expect(why() == ["\(file.path) is damaged (not the JSON this tool writes)"])
        try Data("{\"schema_version\": 2, \"old_field\": true}".utf8).write(to: file)
        #expect(why() == ["\(file.path) is of another version's layout (schema 2; this version reads 3)"])
        // One that is whole reads as it was written, without a word.
        try SnapshotState().writeAnswers(to: state)
        #expect(why().isEmpty)
    }
}
