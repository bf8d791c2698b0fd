import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import SnapshotStore

/// A cover's bytes as they arrive: written to a temporary file beside the covers, hashed on the
/// way, with the first 64 KB kept to tell the format and size.
struct CoverDownload {
    enum Failure: Error {
        case tooLarge
        case notWritable(String)
    }

    static let headBytes = 65_536

    let file: URL
    let bytes: Int
    let sha256: String
    let head: [UInt8]

    static func receive(_ body: HTTPClientResponse.Body, into writer: SnapshotWriter, limit: Int) async throws -> CoverDownload {
        let folder = try writer.url(for: "covers")
        let file = folder.appendingPathComponent(".download-\(UUID().uuidString)")
        // Created and opened in one call: FileManager.createFile writes a temporary file and
        // renames it, which cost more than the rest of a small cover's download. The folder is
        // made by the first cover.
        func create() -> Int32 { open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        var descriptor = create()
        if descriptor < 0, errno == ENOENT {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw Failure.notWritable("cannot make \(folder.lastPathComponent): \(SnapshotWriter.describe(error))")
            }
            descriptor = create()
        }
        guard descriptor >= 0 else {
            throw Failure.notWritable("cannot create \(file.lastPathComponent): \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        var hasher = SHA256()
        var head: [UInt8] = []
        var bytes = 0
        do {
            for try await chunk in body {
                bytes += chunk.readableBytes
                guard bytes <= limit else { throw Failure.tooLarge }
                chunk.withUnsafeReadableBytes { buffer in
                    hasher.update(bufferPointer: buffer)
                    if head.count < headBytes { head.append(contentsOf: buffer.prefix(headBytes - head.count)) }
                }
                try handle.write(contentsOf: Data(chunk.readableBytesView))
            }
            try handle.close()
        } catch {
            // The error thrown is the download's: a file that cannot be removed after it keeps its
            // hidden name, which no page names and publish never sends.
            try? handle.close()
            try? FileManager.default.removeItem(at: file)
            throw error
        }
        let sha256 = hasher.finalize().hexString
        return CoverDownload(file: file, bytes: bytes, sha256: sha256, head: head)
    }

    func discard() {
        // A download that cannot be removed keeps its hidden name: no page names it, and publish
        // never sends it.
        try? FileManager.default.removeItem(at: file)
    }
}
