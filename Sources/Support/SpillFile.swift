import Foundation
import NIOConcurrencyHelpers

/// A file that holds what a big crawl cannot keep in memory (each book's details, then each book
/// as it goes into `library.json`), written from any thread and read back by place. It is removed
/// from its folder as soon as it is open: nothing is left behind, whatever ends the run, and only
/// this process can read it.
package final class SpillFile: Sendable {
    let descriptor: Int32
    /// Where the next write goes: appends take turns, reads need no lock (`pread`).
    private let end: NIOLockedValueBox<Int>

    /// Bytes written so far.
    package var size: Int { end.withLockedValue { $0 } }

    package init(in folder: URL) throws {
        let path = folder.appendingPathComponent(".spill-\(UUID().uuidString)").path
        descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw SnapshotError(.notWritable(detail: String(cString: strerror(errno))), path: folder.path)
        }
        end = NIOLockedValueBox(0)
        unlink(path)
    }

    /// An existing file, to read (its records are appended after what it holds).
    package init(reading file: URL) throws {
        descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SnapshotError(.unreadableArchive(detail: String(cString: strerror(errno))), path: file.path)
        }
        end = NIOLockedValueBox(Int(lseek(descriptor, 0, SEEK_END)))
    }

    deinit { close(descriptor) }

    /// Where `data` now lies in the file.
    @discardableResult
    package func append(_ data: Data) throws -> Range<Int> {
        try end.withLockedValue { end in
            let start = end
            try data.withUnsafeBytes { bytes in
                var done = 0
                while done < bytes.count {
                    let written = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(start + done))
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw SnapshotError(.notWritable(detail: "a temporary file: \(String(cString: strerror(errno)))"), path: "")
                    }
                    done += written
                }
            }
            end += data.count
            return start..<end
        }
    }

    package func read(_ range: Range<Int>) throws -> Data {
        var data = Data(count: range.count)
        var done = 0
        try data.withUnsafeMutableBytes { bytes in
            while done < range.count {
                let read = pread(descriptor, bytes.baseAddress! + done, range.count - done, off_t(range.lowerBound + done))
                if read < 0, errno == EINTR { continue }
                guard read > 0 else {
                    throw SnapshotError(.notWritable(detail: "a temporary file could not be read back"), path: "")
                }
                done += read
            }
        }
        return data
    }

    /// The bytes in `range`, a megabyte at a time.
    package func copy(_ range: Range<Int>, to sink: (Data) throws -> Void) throws {
        var start = range.lowerBound
        while start < range.upperBound {
            let next = min(range.upperBound, start + (1 << 20))
            try sink(try read(start..<next))
            start = next
        }
    }
}
