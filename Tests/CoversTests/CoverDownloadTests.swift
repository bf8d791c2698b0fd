import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import TestSupport
import Testing
@testable import Covers
@testable import Covers
@testable import LibraryArchive
@testable import SnapshotStore

/// Covers go to disk as they arrive: hashed on the way, cut off at the limit, nothing left behind.
@Suite struct CoverDownloadTests {
    static func body(_ bytes: [UInt8], pieces: Int = 7) -> HTTPClientResponse.Body {
        let size = max(1, bytes.count / pieces)
        let chunks = stride(from: 0, to: bytes.count, by: size).map { ByteBuffer(bytes: bytes[$0..<min(bytes.count, $0 + size)]) }
        return .stream(AsyncStream { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        })
    }

    @Test func aCoverIsWrittenHashedAndKeepsItsHead() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let writer = SnapshotWriter(root: folder.url)
        let bytes = [UInt8](repeating: 0xAB, count: 200_000).enumerated().map { UInt8(truncatingIfNeeded: $0.offset) ^ $0.element }
        let download = try await CoverDownload.receive(Self.body(bytes), into: writer, limit: 1 << 20)
        #expect(download.bytes == bytes.count)
        #expect(download.head == Array(bytes.prefix(CoverDownload.headBytes)))
        #expect(download.sha256 == SHA256.hash(data: Data(bytes)).map { String(format: "%02x", $0) }.joined())
        #expect(try Data(contentsOf: download.file) == Data(bytes))
        try writer.place(download.file, at: "covers/\(download.sha256.prefix(32)).png")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("covers").path) == ["\(download.sha256.prefix(32)).png"])
    }

    @Test func aCoverOverTheLimitIsCutOffAndLeavesNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let writer = SnapshotWriter(root: folder.url)
        await #expect(throws: CoverDownload.Failure.self) {
            _ = try await CoverDownload.receive(Self.body([UInt8](repeating: 1, count: 300_000)), into: writer, limit: 100_000)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("covers").path).isEmpty)
    }
}
