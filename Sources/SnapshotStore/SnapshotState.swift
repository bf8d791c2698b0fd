import Crypto
import Foundation
import LibraryArchive
import Support

/// What a run keeps for the next one, in the snapshot's hidden `.reader-snapshot/` folder (or
/// `--cache-dir`): the API's ETags and answers, the covers by URL, and the library as last seen.
/// The folder is readable by its owner alone. It never holds a key or a password: login answers
/// are not kept, and the key travels in the query, which is not part of any cache key.
package struct SnapshotState: Sendable {
    package static let folderName = ".reader-snapshot"

    /// Where the state of the snapshot at `output` is kept by default: beside it, not in it
    /// (`.NAME.reader-snapshot`), as Hugo keeps `resources/` apart from `public/`. The state holds
    /// the server's answers, the covers' addresses and what failed, in its words: all of it names
    /// the server or the account, and none of it may go wherever the snapshot is uploaded or shared.
    package static func beside(_ output: URL) -> URL {
        let output = output.standardizedFileURL
        return output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).reader-snapshot")
    }

    /// A state that snapshots written before it moved kept inside themselves (`DIR/.reader-snapshot`)
    /// is moved beside `output` once, so that the snapshot no longer holds it. (The empty folder
    /// older versions kept there as the snapshot's mark goes by `SnapshotMark.moveOut`.)
    /// A state that cannot be moved is left where it is, and why is said to `startingOver`: the
    /// night then asks for every book, and nothing is lost.
    package static func moveOutOfSnapshot(_ output: URL, to folder: URL, startingOver: (String) -> Void) {
        let manager = FileManager.default
        let inside = output.standardizedFileURL.appendingPathComponent(folderName)
        guard !manager.fileExists(atPath: folder.appendingPathComponent(stateFile).path),
              manager.fileExists(atPath: inside.appendingPathComponent(stateFile).path) else { return }
        do {
            // An empty or half folder of a run that could not write its state is nothing to keep.
            if manager.fileExists(atPath: folder.path) { try manager.removeItem(at: folder) }
            try manager.moveItem(at: inside, to: folder)
        } catch {
            startingOver("the state an earlier version kept inside the snapshot could not be moved beside it, to \(folder.path) (\(SnapshotWriter.describe(error)))")
        }
    }
    static let stateFile = "state.json"
    static let libraryFile = "library.json"
    /// The answers' bodies, one file each, named by their content: `state.json` holds the ETags.
    static let responsesFolder = "responses"
    /// The covers' records, a line each: read and written a record at a time.
    static let coversFile = "covers.jsonl"
    /// The book and shelf pages' digests, by path: what each was made from.
    static let pagesFile = "pages.bin"
    /// Each book's cover address, by id: `library.json` does not hold them (they name the server).
    static let addressesFile = "cover-addresses.json"

    package var responses: [String: KeptAnswer] = [:]
    /// The covers' records: left in `covers.jsonl` by `read(from:)`, read beside the login.
    package var covers: ReadWhenNeeded<CoverRecords?, Never>
    /// Set when the kept library is whole (no privacy option left anything out): the note limit
    /// its notes were converted under. Its books may then stand in for unchanged ones.
    package var noteLimit: Int?
    /// A digest of what the pages were rendered with (templates, formats, site URL, this tool).
    package var renderedWith: String?
    /// The privacy options the kept library was written under (`Privacy.summary`, "" for none);
    /// nil when not known (`StateLayout`).
    package var privacy: String?
    /// The build of the tool that wrote the state and its library (`RenderDigest.thisBuild`).
    package var writtenBy: String?
    /// What failed, and when it is to be asked for again.
    package var retry = RetrySchedule()
    /// What each book and shelf page of the snapshot was made from (`PageDigests`): left in
    /// `pages.bin` by `read(from:)`, since only the render needs them (a night of 100,000 books
    /// held their 6 MB through its crawl).
    package var pageDigests = ReadWhenNeeded<PageDigestTable, Never>(PageDigestTable())
    /// Which server and account the snapshot came from (nil when not known: `StateLayout`).
    package var origin: SnapshotOrigin?
    /// Each book's cover address, by book id.
    package var addresses = CoverAddresses()
    /// What the last quiet night found, when no run has written the state since (`QuietNight`).
    package var quietNight: QuietNight?
    /// Whether the covers and addresses are already written, waiting under other names (`setAside(in:)`).
    package private(set) var isSetAside = false

    package init(responses: [String: KeptAnswer] = [:], covers: CoverRecords? = nil) {
        self.responses = responses
        self.covers = ReadWhenNeeded(covers)
    }

    static func bodyFile(_ body: Data) -> String {
        SHA256.hash(data: body).prefix(16).hexString + ".json"
    }

    /// The state in `folder`, or an empty one: a missing or unreadable state only costs a full run,
    /// and one that is there but cannot be used is said, with why, to `startingOver`. The covers'
    /// records and the pages' digests stay on disk until they are asked for.
    package static func read(from folder: URL, startingOver: (String) -> Void = { _ in }) -> SnapshotState {
        let file = folder.appendingPathComponent(stateFile)
        guard FileManager.default.fileExists(atPath: file.path) else { return SnapshotState() }
        struct Layout: Decodable { var schemaVersion: Int; enum CodingKeys: String, CodingKey { case schemaVersion = "schema_version" } }
        let stored: StateLayout
        do {
            let data = try Data(contentsOf: file)
            // The layout first: a state of another version's is said as such, not as damaged.
            let layout = try JSONDecoder().decode(Layout.self, from: data).schemaVersion
            if let refusal = StateLayout.refusal(of: layout, file: file) {
                startingOver(refusal)
                return SnapshotState()
            }
            stored = try JSONDecoder().decode(StateLayout.self, from: data).migrated(folder: folder)
        } catch is DecodingError {
            startingOver("\(file.path) is damaged (not the JSON this tool writes)")
            return SnapshotState()
        } catch {
            startingOver("\(file.path) could not be read (\(SnapshotWriter.describe(error)))")
            return SnapshotState()
        }
        var state = SnapshotState()
        state.covers = ReadWhenNeeded(file: folder.appendingPathComponent(coversFile), read: CoverRecords.init(reading:))
        state.pageDigests = ReadWhenNeeded(file: folder.appendingPathComponent(pagesFile), read: readPages)
        state.noteLimit = stored.noteLimit
        state.renderedWith = stored.renderedWith
        state.writtenBy = stored.writtenBy
        state.retry = stored.retry ?? RetrySchedule()
        state.origin = stored.origin
        state.privacy = stored.privacy
        state.quietNight = QuietNight.read(from: folder)
        // Without their addresses, the books taken unchanged would lose their covers: a file of
        // them that is there but cannot be used costs a full run, as `state.json` does.
        let addresses = folder.appendingPathComponent(addressesFile)
        if FileManager.default.fileExists(atPath: addresses.path) {
            do {
                state.addresses = try CoverAddresses(json: Data(contentsOf: addresses))
            } catch is DecodingError {
                startingOver("\(addresses.path) is damaged (not the JSON this tool writes)")
                return SnapshotState()
            } catch {
                startingOver("\(addresses.path) could not be read (\(SnapshotWriter.describe(error)))")
                return SnapshotState()
            }
        }
        let bodies = folder.appendingPathComponent(responsesFolder)
        for (key, response) in stored.responses {
            // Only names this tool writes: a state folder is input like any other. An answer whose
            // body is missing, or is not the one named, is not kept: it is asked for again in full.
            guard response.file.count == 37, response.file.hasSuffix(".json"), !response.file.contains("/"),
                  let body = try? Data(contentsOf: bodies.appendingPathComponent(response.file)),
                  String(data: body, encoding: .utf8) != nil, bodyFile(body) == response.file
            else { continue }
            // Checked now, read again if a 304 needs it: a big library's answers stay on disk.
            state.responses[key] = KeptAnswer(etag: response.etag, body: .file(bodies.appendingPathComponent(response.file)))
        }
        return state
    }

    /// The pages' digests of `pages.bin`: none when it is missing or not one this build reads.
    package static func readPages(_ file: URL) -> PageDigestTable {
        guard let data = try? Data(contentsOf: file), let digests = PageDigestTable(data: data) else { return PageDigestTable() }
        return digests
    }

    /// The library of the last snapshot swapped into place (kept here whatever `--format` wrote):
    /// nil when there is none, an error when it is there but cannot be read.
    package static func readLibrary(from folder: URL) throws -> LibraryFile? {
        let file = folder.appendingPathComponent(libraryFile)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return try LibraryFile.read(from: file)
    }

    package func write(to folder: URL, library: LibraryFile) throws {
        do {
            try writeAnswers(to: folder)
            if isSetAside {
                for name in Self.filesSetAside {
                    if rename(folder.appendingPathComponent(Self.setAsideName(name)).path, folder.appendingPathComponent(name).path) != 0 {
                        throw CocoaError(.fileWriteUnknown)
                    }
                }
            } else {
                try writeCoversAndAddresses(to: folder, naming: { $0 })
            }
            // Last night's digests, on a night that linked its pages, are read here as they are written.
            try Self.writePrivately(to: folder.appendingPathComponent(Self.pagesFile)) { try pageDigests.value().write(to: $0) }
            try Self.writePrivately(to: folder.appendingPathComponent(Self.libraryFile)) { try library.writeJSON(to: $0) }
        } catch {
            throw SnapshotError(.notWritable(detail: SnapshotWriter.describe(error)), path: folder.path)
        }
    }

    /// A cover a line, in the order of their addresses (100,000 of them encoded at once took 90
    /// MB), and each book's cover address.
    private func writeCoversAndAddresses(to folder: URL, naming: (String) -> String) throws {
        try Self.writePrivately(to: folder.appendingPathComponent(naming(Self.coversFile))) { sink in
            try covers.value()?.writeLines(to: sink)
        }
        try Self.writePrivately(to: folder.appendingPathComponent(naming(Self.addressesFile))) { try addresses.writeJSON(to: $0) }
    }

    /// The files `setAside(in:)` writes ahead.
    static let filesSetAside = [coversFile, addressesFile]

    /// A file written ahead, under a name no run reads until `write(to:library:)` renames it.
    static func setAsideName(_ name: String) -> String { ".\(name).pending" }

    /// Writes the covers' records and addresses now, before the pages are made, under names no
    /// run reads, and lets both go: the render of 100,000 books held them for nothing (10 MB, and
    /// on a night 16 with last night's addresses). `write(to:library:)` puts them in place once
    /// the snapshot is swapped into place; a run that swaps nothing in removes them (`discardSetAside`).
    package mutating func setAside(in folder: URL) throws {
        do {
            try Self.makePrivateFolder(folder)
            try writeCoversAndAddresses(to: folder, naming: Self.setAsideName)
        } catch {
            Self.discardSetAside(in: folder)
            throw SnapshotError(.notWritable(detail: SnapshotWriter.describe(error)), path: folder.path)
        }
        covers = ReadWhenNeeded(nil)
        addresses = CoverAddresses()
        isSetAside = true
    }

    /// Removes what `setAside(in:)` wrote (the run swapped nothing in, or failed).
    package static func discardSetAside(in folder: URL) {
        // A file that cannot be removed is under a name no run reads, and the next `setAside` writes over it.
        for name in filesSetAside { try? FileManager.default.removeItem(at: folder.appendingPathComponent(setAsideName(name))) }
    }

    /// `state.json` and the answers' bodies alone: what a run that left the snapshot as it was
    /// still has to keep (what failed again, or waits its turn).
    package func writeAnswers(to folder: URL) throws {
        do {
            try Self.makePrivateFolder(folder)
            // What the last quiet night found was found against the state as it was.
            try QuietNight.remove(from: folder)
            let bodies = folder.appendingPathComponent(Self.responsesFolder)
            try Self.makePrivateFolder(bodies)
            var stored = StateLayout(schemaVersion: StateLayout.current, responses: [:], noteLimit: noteLimit, renderedWith: renderedWith,
                                writtenBy: writtenBy, retry: retry.isEmpty ? nil : retry, origin: origin, privacy: privacy)
            for (key, entry) in responses {
                let body = try entry.body.data()
                let file = Self.bodyFile(body)
                let url = bodies.appendingPathComponent(file)
                if !FileManager.default.fileExists(atPath: url.path) { try Self.writePrivately(body, to: url) }
                stored.responses[key] = StateLayout.Response(etag: entry.etag, file: file)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            try Self.writePrivately(try encoder.encode(stored), to: folder.appendingPathComponent(Self.stateFile))
            let named = Set(stored.responses.values.map(\.file))
            // Bodies no answer names any more (a kept --cache-dir) go, now that the new state.json
            // is in place. One that cannot be listed or removed only takes room until the next run.
            for file in (try? FileManager.default.contentsOfDirectory(atPath: bodies.path)) ?? [] where !named.contains(file) {
                try? FileManager.default.removeItem(at: bodies.appendingPathComponent(file))
            }
        } catch {
            throw SnapshotError(.notWritable(detail: SnapshotWriter.describe(error)), path: folder.path)
        }
    }

    package static func makePrivateFolder(_ folder: URL) throws {
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
            // The error thrown is the write's. A temporary file that cannot be removed stays in the
            // private folder, under a name no run reads.
            try? handle.close()
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        if rename(temporary.path, file.path) != 0 {
            // As above, a temporary file that cannot be removed stays in the private folder.
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
    }

    /// Written aside and renamed into place, readable by the owner alone from the start.
    package static func writePrivately(_ data: Data, to file: URL) throws {
        try writePrivately(to: file) { try $0(data) }
    }
}
