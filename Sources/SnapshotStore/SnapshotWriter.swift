import Foundation
import LibraryArchive
import Support

/// Writes a snapshot's files under one folder, and nowhere else: every path is relative, made of
/// names this tool chose, and checked before it is written. A file whose bytes are the same as in
/// the previous snapshot is that file, hard-linked: its modification time stays, so rsync and
/// backups see only what changed.
package struct SnapshotWriter: Sendable {
    package let root: URL
    /// The snapshot this one replaces, if any.
    package let previous: URL?
    /// `root`'s path, kept: a page's path is made from it as a string. `URL.appendingPathComponent`
    /// asks the disk whether the name is a folder, and that was 7% of a render's time.
    private let rootPath: String

    package init(root: URL, previous: URL? = nil) {
        self.root = root.standardizedFileURL
        self.previous = previous?.standardizedFileURL
        rootPath = self.root.path
    }

    /// A file for what waits on disk during the render, in the snapshot's folder (made if it is
    /// not there yet: nothing may have been written yet), gone once closed.
    package func spillFile() throws -> SpillFile {
        do {
            try FileManager.default.createDirectory(atPath: rootPath, withIntermediateDirectories: true)
        } catch {
            throw SnapshotError(.notWritable(detail: Self.describe(error)), path: rootPath)
        }
        return try SpillFile(in: root)
    }

    package func url(for relativePath: String) throws -> URL {
        URL(fileURLWithPath: try path(for: relativePath))
    }

    /// The file's path under the root, once `relativePath` is known to stay there.
    func path(for relativePath: String) throws -> String {
        guard Self.staysInside(relativePath) else {
            throw SnapshotError(.notWritable(detail: "refusing to write outside the snapshot: \(relativePath)"), path: rootPath)
        }
        return rootPath.hasSuffix("/") ? rootPath + relativePath : rootPath + "/" + relativePath
    }

    /// Every part of the path is a name: not empty (no leading or doubled "/"), not "." or "..",
    /// without a NUL byte. On the UTF-8 bytes: each of those is one byte, never part of another
    /// character's encoding.
    static func staysInside(_ relativePath: String) -> Bool {
        var length = 0, dots = 0
        func partIsAName() -> Bool { length > 0 && !(dots == length && length <= 2) }
        for byte in relativePath.utf8 {
            switch byte {
            case 0: return false
            case UInt8(ascii: "/"):
                guard partIsAName() else { return false }
                length = 0
                dots = 0
            case UInt8(ascii: "."):
                length += 1
                dots += 1
            default:
                length += 1
            }
        }
        return partIsAName()
    }

    package func write(_ data: Data, to relativePath: String) throws {
        try data.withUnsafeBytes { try write(bytes: $0, to: relativePath) }
    }

    /// Writes text as its UTF-8 bytes, as they are in memory: a big page is not copied first.
    package func write(_ text: String, to relativePath: String) throws {
        var text = text
        try text.withUTF8 { try write(bytes: UnsafeRawBufferPointer($0), to: relativePath) }
    }

    private func write(bytes data: UnsafeRawBufferPointer, to relativePath: String) throws {
        let destination = try path(for: relativePath)
        // Same size first: most changed pages are told apart without reading the old file. An old
        // file that cannot be read costs the link alone: the page is written below.
        if let (old, size) = previousFileAndSize(relativePath), size == data.count,
           let oldBytes = try? Data(contentsOf: old), oldBytes.withUnsafeBytes({ $0.elementsEqual(data) }) {
            if Self.hardLink(old.path, destination) { return }
            // A folder that cannot be made for the link is made again below, and there it is said why not.
            if errno == ENOENT, (try? makeParent(ofPath: destination)) != nil, Self.hardLink(old.path, destination) { return }
        }
        // Pages are many and small: one open, write and close each; folders are made when missing.
        var result = Self.create(destination, data)
        if result == ENOENT {
            try makeParent(ofPath: destination)
            result = Self.create(destination, data)
        }
        if result != 0 {
            throw SnapshotError(.notWritable(detail: String(cString: strerror(result))), path: destination)
        }
    }

    /// Writes a file piece by piece (a big `library.json`), then links the previous snapshot's
    /// file instead if the bytes came out the same.
    package func writeStream(to relativePath: String, _ produce: ((Data) throws -> Void) throws -> Void) throws {
        let destination = try url(for: relativePath)
        var descriptor = open(destination.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        if descriptor < 0, errno == ENOENT {
            try makeParent(of: destination)
            descriptor = open(destination.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        }
        guard descriptor >= 0 else {
            throw SnapshotError(.notWritable(detail: String(cString: strerror(errno))), path: destination.path)
        }
        var size = 0
        do {
            try produce { data in
                let failure = Self.writeAll(descriptor, data)
                if failure != 0 { throw SnapshotError(.notWritable(detail: String(cString: strerror(failure))), path: destination.path) }
                size += data.count
            }
        } catch {
            close(descriptor)
            throw error
        }
        if close(descriptor) != 0 {
            throw SnapshotError(.notWritable(detail: String(cString: strerror(errno))), path: destination.path)
        }
        if let (old, oldSize) = previousFileAndSize(relativePath), oldSize == size, Self.sameBytes(old, destination) {
            let aside = destination.path + ".new"
            if rename(destination.path, aside) == 0 {
                if Self.hardLink(old, destination) { unlink(aside) } else { rename(aside, destination.path) }
            }
        }
    }

    private static func writeAll(_ descriptor: Int32, _ data: Data) -> Int32 {
        data.withUnsafeBytes { writeAll(descriptor, $0) }
    }

    private static func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32 {
        var offset = 0
        while offset < buffer.count {
            let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return 0
    }

    /// Two files' bytes compared a piece at a time. Files that cannot be opened or read are told
    /// apart: the new file then stays as written, which costs a link and nothing more.
    static func sameBytes(_ a: URL, _ b: URL) -> Bool {
        guard let first = try? FileHandle(forReadingFrom: a), let second = try? FileHandle(forReadingFrom: b) else { return false }
        // Closing a file that was only read loses nothing.
        defer { try? first.close(); try? second.close() }
        do {
            while true {
                let x = try first.read(upToCount: 1 << 20), y = try second.read(upToCount: 1 << 20)
                if x != y { return false }
                if x == nil || x!.isEmpty { return true }
            }
        } catch {
            return false
        }
    }

    /// Writes `data` to a new file at `path` (replacing a file there, never following a link);
    /// 0 or the errno.
    private static func create(_ path: String, _ data: UnsafeRawBufferPointer) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { return errno }
        var failure = writeAll(descriptor, data)
        if close(descriptor) != 0, failure == 0 { failure = errno }
        return failure
    }

    /// Writes a content-named file once: if it is there, it is these bytes already.
    package func writeOnce(_ data: Data, to relativePath: String) throws {
        let destination = try url(for: relativePath)
        guard !FileManager.default.fileExists(atPath: destination.path) else { return }
        try makeParent(of: destination)
        // The last snapshot's file only if it is these bytes: one changed by hand, or that cannot
        // be read, is made again.
        if let (old, size) = previousFileAndSize(relativePath), size == data.count, (try? Data(contentsOf: old)) == data,
           Self.hardLink(old, destination) { return }
        // Two covers with the same bytes may arrive at once: write aside, then rename into place.
        let temporary = destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString)")
        do {
            try data.write(to: temporary)
        } catch {
            // The error said is the write's: a temporary file that cannot be removed after it keeps
            // a hidden name, which no page names and publish never sends.
            try? FileManager.default.removeItem(at: temporary)
            throw SnapshotError(.notWritable(detail: Self.describe(error)), path: destination.path)
        }
        if rename(temporary.path, destination.path) != 0 {
            let failure = errno
            // The error said is the rename's, as above: the file is not in the snapshot.
            try? FileManager.default.removeItem(at: temporary)
            throw SnapshotError(.notWritable(detail: String(cString: strerror(failure))), path: destination.path)
        }
    }

    /// Moves a downloaded file to its content-named place: if the file is there already (or in the
    /// previous snapshot, to be linked), the download is dropped.
    package func place(_ download: URL, at relativePath: String) throws {
        let destination = try url(for: relativePath)
        let there = FileManager.default.fileExists(atPath: destination.path)
            || previousFile(relativePath).map { Self.hardLink($0, destination) } == true
        if there {
            // A download that cannot be removed keeps its hidden name: no page names it, and
            // publish never sends it.
            try? FileManager.default.removeItem(at: download)
            return
        }
        if rename(download.path, destination.path) != 0 {
            let failure = errno
            // The error said is the rename's; the download goes if it can, as above.
            try? FileManager.default.removeItem(at: download)
            throw SnapshotError(.notWritable(detail: String(cString: strerror(failure))), path: destination.path)
        }
    }

    /// The previous snapshot's file at `relativePath`, if it is a plain file reached without
    /// following a link: a symlink planted in an old output must not pull outside files in.
    package func previousFile(_ relativePath: String) -> URL? {
        previousFileAndSize(relativePath)?.url
    }

    private func previousFileAndSize(_ relativePath: String) -> (url: URL, size: Int)? {
        // A path that would leave the snapshot has no file in the previous one: writing it is
        // refused, and says why.
        guard let previous, (try? path(for: relativePath)) != nil else { return nil }
        var current = previous.path
        var info = stat()
        for part in relativePath.split(separator: "/") {
            current += "/" + part
            guard lstat(current, &info) == 0 else { return nil }
            let kind = info.st_mode & S_IFMT
            guard kind == S_IFDIR || kind == S_IFREG else { return nil }
        }
        return (info.st_mode & S_IFMT) == S_IFREG ? (URL(fileURLWithPath: current, isDirectory: false), Int(info.st_size)) : nil
    }

    /// Links the previous snapshot's file at `relativePath` into this one; false if there is none
    /// (or, given `size`, if it is not of that size: a file changed by hand is made again). False
    /// costs the link alone: the caller then makes the file itself, and a write that fails says why.
    package func linkFromPrevious(_ relativePath: String, size: Int? = nil) -> Bool {
        // A path that would leave the snapshot is refused when the caller writes it.
        guard let (old, oldSize) = previousFileAndSize(relativePath), oldSize == size ?? oldSize,
              let destination = try? path(for: relativePath) else { return false }
        // The link first: it fails only when the file is there already or its folder is not yet.
        if Foundation.link(old.path, destination) == 0 || errno == EEXIST { return true }
        // A folder that cannot be made is the caller's to make again, and to say why it cannot.
        guard (try? makeParent(ofPath: destination)) != nil else { return false }
        if Self.hardLink(old.path, destination) || FileManager.default.fileExists(atPath: destination) { return true }
        // So is a copy that fails.
        return (try? FileManager.default.copyItem(atPath: old.path, toPath: destination)) != nil
    }

    /// Links every plain file of `source` (the previous snapshot) into this one, folders made as
    /// needed; links and other odd files are left out, the state folder too.
    package func linkTree(from source: URL) throws {
        let base = source.standardizedFileURL.path
        guard let walk = FileManager.default.enumerator(atPath: base) else { return }
        while let relative = walk.nextObject() as? String {
            if relative == SnapshotState.folderName || relative.hasPrefix(SnapshotState.folderName + "/") {
                walk.skipDescendants()
                continue
            }
            var info = stat()
            guard lstat(base + "/" + relative, &info) == 0 else { continue }
            if (info.st_mode & S_IFMT) == S_IFLNK { walk.skipDescendants() }
            guard (info.st_mode & S_IFMT) == S_IFREG else { continue }
            try link(URL(fileURLWithPath: base + "/" + relative), to: relative)
        }
    }

    /// Puts an existing file at `relativePath`, linked when it can be, copied otherwise.
    package func link(_ source: URL, to relativePath: String) throws {
        let destination = try path(for: relativePath)
        if FileManager.default.fileExists(atPath: destination) { return }
        try makeParent(ofPath: destination)
        if Self.hardLink(source.path, destination) { return }
        try copy(source, to: relativePath)
    }

    package func copy(_ source: URL, to relativePath: String) throws {
        let destination = try url(for: relativePath)
        do {
            try makeParent(of: destination)
            if FileManager.default.fileExists(atPath: destination.path) {
                try FileManager.default.removeItem(at: destination)
            }
            try FileManager.default.copyItem(at: source, to: destination)
        } catch let error as SnapshotError {
            throw error
        } catch {
            throw SnapshotError(.notWritable(detail: Self.describe(error)), path: destination.path)
        }
    }

    private func makeParent(of destination: URL) throws {
        try makeParent(ofPath: destination.path)
    }

    private func makeParent(ofPath destination: String) throws {
        let parent = String(destination[..<(destination.lastIndex(of: "/") ?? destination.endIndex)])
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw SnapshotError(.notWritable(detail: Self.describe(error)), path: parent)
        }
    }

    /// A hard link; false when the file is missing or links cannot be made there (another disk).
    static func hardLink(_ source: URL, _ destination: URL) -> Bool {
        hardLink(source.path, destination.path)
    }

    static func hardLink(_ source: String, _ destination: String) -> Bool {
        var info = stat()
        guard lstat(source, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        return Foundation.link(source, destination) == 0
    }

    package static func describe(_ error: Error) -> String {
        let nsError = error as NSError
        // The system's word, where Foundation keeps its error beside its own: on Linux as a Swift
        // error, which `as? NSError` does not find ("Is a directory" was said as "error 256").
        if let underlying = (nsError.userInfo[NSUnderlyingErrorKey] as? any Error).map({ $0 as NSError }),
           underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        // Foundation on Linux gives no underlying error: its sentence ("The operation could not be
        // completed. You don't have permission.") is said the way the system says it elsewhere.
        if let code = (error as? CocoaError)?.code, let number = posixNumbers[code] {
            return String(cString: strerror(number))
        }
        return nsError.localizedDescription
    }

    private static let posixNumbers: [CocoaError.Code: Int32] = [
        .fileWriteNoPermission: EACCES, .fileReadNoPermission: EACCES, .fileWriteVolumeReadOnly: EROFS,
        .fileWriteOutOfSpace: ENOSPC, .fileNoSuchFile: ENOENT, .fileReadNoSuchFile: ENOENT, .fileWriteFileExists: EEXIST,
    ]
}
