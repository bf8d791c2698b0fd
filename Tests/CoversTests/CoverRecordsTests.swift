import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import TestSupport
import Testing
@testable import Covers
@testable import LibraryArchive
@testable import SnapshotStore

/// The covers' records survive the state folder, a line each, and are found by their address.
struct CoverRecordsTests {
    @Test func coverRecordsRoundTripThroughTheirFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = CoverFile(path: "covers/" + String(repeating: "ab", count: 16) + ".png", format: .png, bytes: 10,
                             sha256: String(repeating: "ab", count: 32), width: 2, height: 3)
        let records = try CoverRecords(spillIn: folder.url)
        var expected: [String: CoverRecord] = [:]
        for number in 0..<300 {
            let url = "https://covers.example/\(number)?a=\"b\"\n"
            let record = CoverRecord(file: file, etag: number % 2 == 0 ? "W/\"\(number)\"" : nil, lastModified: nil, finalURL: nil)
            try records.set(record, for: url)
            expected[url] = record
        }
        // A record set again replaces the first.
        let changed = CoverRecord(file: file, etag: "new", lastModified: "Mon, 01 Jan 2024 00:00:00 GMT", finalURL: "https://covers.example/final")
        try records.set(changed, for: "https://covers.example/7?a=\"b\"\n")
        expected["https://covers.example/7?a=\"b\"\n"] = changed
        #expect(records["https://covers.example/7?a=\"b\"\n"] == changed && records["https://covers.example/nowhere"] == nil)
        #expect(records.count == 300)
        // The last ones set are kept in memory, the others read back from the file: all are found.
        #expect(expected.allSatisfy { records[$0.key] == $0.value })

        let library = LibraryFile(Library(generatedAt: "2024-01-01T00:00:00Z", server: "https://reader.example", user: nil, userID: 1,
                                      shelves: [], books: [], problems: []))
        let state = SnapshotState(covers: records)
        try state.write(to: folder.path("state"), library: library)
        let read = try #require(SnapshotState.read(from: folder.path("state")).covers.value())
        var found: [String: CoverRecord] = [:]
        var order: [String] = []
        try read.forEach { url, record in
            found[url] = record
            order.append(url)
        }
        #expect(found.count == 300)
        #expect(found == expected, "the records read back differ")
        #expect(order == order.sorted { (CoverRecords.hash($0), $0) < (CoverRecords.hash($1), $1) })
        #expect(read["https://covers.example/12?a=\"b\"\n"] == expected["https://covers.example/12?a=\"b\"\n"])
    }

    /// The covers' addresses by book id: added in any order, the last one for an id counts, each
    /// found again, and the state folder's file read back to the same addresses (also one that
    /// needs escaping, and more than one batch of the file).
    @Test func coverAddressesAreFoundByIdAndRoundTripThroughTheStateFile() throws {
        var addresses = CoverAddresses()
        var expected: [Int: String] = [:]
        for number in (0..<10_000).reversed() where number % 3 != 0 {
            let address = "https://covers.example/\(number).jpg?size=\"L\"&\\é\n"
            addresses.add(address, for: number)
            expected[number] = address
        }
        addresses.add("https://covers.example/later.jpg", for: 5)
        expected[5] = "https://covers.example/later.jpg"
        let sorted = addresses.sorted()
        #expect(sorted.count == expected.count)
        #expect(expected.allSatisfy { sorted[$0.key] == $0.value })
        #expect(sorted[3] == nil && sorted[-1] == nil && sorted[10_000] == nil)
        #expect(sorted == CoverAddresses(expected))

        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var state = SnapshotState()
        state.addresses = addresses
        let library = LibraryFile(Library(generatedAt: "2024-01-01T00:00:00Z", server: "https://reader.example", user: nil, userID: 1,
                                      shelves: [], books: [], problems: []))
        try state.write(to: folder.path("state"), library: library)
        let file = try Data(contentsOf: folder.path("state").appendingPathComponent(SnapshotState.addressesFile))
        // One JSON object, as the builds before this one wrote and read it.
        let object = try JSONDecoder().decode([String: String].self, from: file)
        #expect(object == Dictionary(uniqueKeysWithValues: expected.map { (String($0.key), $0.value) }))
        #expect(SnapshotState.read(from: folder.path("state")).addresses == sorted)
    }

    /// The covers' records and addresses written ahead of the render (`setAside`) end up in the
    /// state folder as if written at the end, and a run that publishes nothing leaves neither
    /// them nor last night's files changed.
    @Test func coversSetAsideBeforeTheRenderAreKeptOnlyWhenTheSnapshotIsPublished() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = CoverFile(path: "covers/" + String(repeating: "cd", count: 16) + ".jpg", format: .jpeg, bytes: 10,
                             sha256: String(repeating: "cd", count: 32), width: 4, height: 5)
        func state(covers count: Int) throws -> SnapshotState {
            let records = try CoverRecords(spillIn: folder.url)
            var state = SnapshotState(covers: records)
            for number in 0..<count {
                try records.set(CoverRecord(file: file, etag: "\"\(number)\""), for: "https://covers.example/\(number).jpg")
                state.addresses.add("https://covers.example/\(number).jpg", for: number)
            }
            return state
        }
        let library = LibraryFile(Library(generatedAt: "2024-01-01T00:00:00Z", server: "https://reader.example", user: nil, userID: 1,
                                      shelves: [], books: [], problems: []))
        let stateFolder = folder.path("state")
        // Last night's files, written the usual way.
        try state(covers: 3).write(to: stateFolder, library: library)
        let files = [SnapshotState.coversFile, SnapshotState.addressesFile]
        func read() throws -> [Data] { try files.map { try Data(contentsOf: stateFolder.appendingPathComponent($0)) } }
        let lastNight = try read()

        // Tonight's, set aside, then the run fails: last night's stay, nothing is left over.
        var failed = try state(covers: 5)
        try failed.setAside(in: stateFolder)
        #expect(failed.covers.value() == nil && failed.addresses.count == 0, "what was set aside is still held")
        SnapshotState.discardSetAside(in: stateFolder)
        #expect(try read() == lastNight)
        let names = try FileManager.default.contentsOfDirectory(atPath: stateFolder.path)
        #expect(!names.contains { $0.hasSuffix(".pending") }, "\(names)")

        // Set aside, then published: the same files as tonight's written at the end.
        var published = try state(covers: 5)
        try published.setAside(in: stateFolder)
        try published.write(to: stateFolder, library: library)
        let setAside = try read()
        try state(covers: 5).write(to: folder.path("direct"), library: library)
        #expect(try files.map { try Data(contentsOf: folder.path("direct").appendingPathComponent($0)) } == setAside)
        #expect(setAside != lastNight)
        let read = SnapshotState.read(from: stateFolder)
        #expect(read.covers.value()?.count == 5 && read.addresses.count == 5)
        #expect(try !FileManager.default.contentsOfDirectory(atPath: stateFolder.path).contains { $0.hasSuffix(".pending") })
    }
}
