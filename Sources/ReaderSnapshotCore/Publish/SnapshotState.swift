import Foundation

/// What a run keeps for the next one, in the snapshot's hidden `.reader-snapshot/` folder (or
/// `--cache-dir`): the API's ETags and answers, the covers by URL, and the library as last seen.
/// The folder is readable by its owner alone. It never holds a key or a password: login answers
/// are not kept, and the key travels in the query, which is not part of any cache key.
public struct SnapshotState: Codable, Sendable, Equatable {
    public static let folderName = ".reader-snapshot"
    static let stateFile = "state.json"
    static let libraryFile = "library.json"

    public var schemaVersion = 1
    public var responses: [String: ResponseCache.Entry] = [:]
    public var covers: [String: CoverRecord] = [:]
    /// Set when the kept library is whole (no privacy option left anything out): the note limit
    /// its notes were converted under. Its books may then stand in for unchanged ones.
    public var noteLimit: Int?
    /// A digest of what the pages were rendered with (templates, formats, site URL, this tool).
    public var renderedWith: String?

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", responses, covers, noteLimit = "note_limit", renderedWith = "rendered_with"
    }

    public init(responses: [String: ResponseCache.Entry] = [:], covers: [String: CoverRecord] = [:]) {
        self.responses = responses
        self.covers = covers
    }

    /// The state in `folder`, or an empty one: a missing or unreadable state only costs a full run.
    public static func read(from folder: URL) -> SnapshotState {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent(stateFile)),
              let state = try? JSONDecoder().decode(SnapshotState.self, from: data), state.schemaVersion == 1
        else { return SnapshotState() }
        return state
    }

    /// The library the last run published (kept here whatever `--format` wrote).
    public static func readLibrary(from folder: URL) -> Library? {
        try? Library.read(from: folder.appendingPathComponent(libraryFile))
    }

    /// - Parameter published: the snapshot's own `library.json` of this same library, if it wrote
    ///   one: linked rather than encoded again (a big library's JSON takes a while to write).
    public func write(to folder: URL, library: Library, published: URL? = nil) throws {
        do {
            try Self.makePrivateFolder(folder)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            try Self.writePrivately(try encoder.encode(self), to: folder.appendingPathComponent(Self.stateFile))
            let kept = folder.appendingPathComponent(Self.libraryFile)
            try? FileManager.default.removeItem(at: kept)
            if let published, SnapshotWriter.hardLink(published, kept) { return }
            try Self.writePrivately(to: kept) { try library.writeJSON(to: $0) }
        } catch {
            throw SnapshotError(.notWritable(detail: SnapshotWriter.describe(error)), path: folder.path)
        }
    }

    static func makePrivateFolder(_ folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
    }

    /// Written aside a piece at a time and renamed into place, readable by the owner alone from the start.
    static func writePrivately(to file: URL, _ produce: ((Data) throws -> Void) throws -> Void) throws {
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: temporary.path) else {
            throw CocoaError(.fileWriteUnknown)
        }
        do {
            try produce { try handle.write(contentsOf: $0) }
            try handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        if rename(temporary.path, file.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
    }

    /// Written aside and renamed into place, readable by the owner alone from the start.
    static func writePrivately(_ data: Data, to file: URL) throws {
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown)
        }
        if rename(temporary.path, file.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
    }
}
