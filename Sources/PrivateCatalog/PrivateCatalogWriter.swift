import Foundation
import SnapshotStore
import Support

/// Writes a snapshot's catalog for friends only: every file a visitor's browser can open, sealed
/// under opaque names, and the door beside them (the page that asks for the password, its script
/// and style, the service worker that opens the sealed files, `lock.json`). It is sealed into the
/// staging folder's hidden `.private-catalog`, to be swapped in with the snapshot, and then kept
/// beside it (`PrivateCatalogFolder`), where `publish` sends it instead of the snapshot; the
/// owner's own files stay as they are.
package struct PrivateCatalogWriter: Sendable {
    package static let folder = ".private-catalog"
    /// The files of the door, in the clear on the host: what a visitor needs before the password.
    /// `404.html` is what a host shows for any address it has no file for (a friend's first link
    /// to a book): it finds the door and sends the visitor there, the address kept.
    package static let door = ["index.html", "404.html", "unlock.js", "unlock.css", "sw.js", "lock.json"]

    /// What is left out besides the formats that cannot be sealed (`FormatFiles.sealed`): link
    /// previews (`cards/`, the site map) would have nothing to show a crawler, `changes.json` is
    /// data, and the site's own worker is replaced by the door's.
    static let leftOutFolders = ["cards/"]
    static let leftOutFiles: Set<String> = ["changes.json", "timeline.json", "sw.js", "sitemap.xml"]

    /// How a message names what is left out of a catalog with these formats.
    package static func leftOutWords(_ formats: [FormatFiles]) -> String {
        listed(formats.filter { !$0.sealed }.map(\.words) + ["changes.json", "timeline.json", "the link previews' cards"])
    }

    /// What a private catalog's writing did.
    package struct Written: Sendable {
        /// Files sealed, the door's not counted.
        package var files = 0
        /// Of those, sealed tonight (the others are the last snapshot's, linked).
        package var sealedAnew = 0
    }

    let key: CatalogKey
    /// The door's files by name (`door`, but `lock.json`, which is the key's).
    let doorFiles: [String: Data]
    /// The snapshot's formats, as the catalog sees their files: sealed, or left out.
    let formats: [FormatFiles]

    package init(key: CatalogKey, doorFiles: [String: Data], formats: [FormatFiles]) {
        self.key = key
        self.doorFiles = doorFiles
        self.formats = formats
    }

    /// Whether the file at `path` stays out of a catalog with these formats.
    package static func isLeftOut(_ path: String, formats: [FormatFiles]) -> Bool {
        leftOutFiles.contains(path) || leftOutFolders.contains { path.hasPrefix($0) } || formats.contains { !$0.sealed && $0.holds(path) }
    }

    /// Seals the visitor files of the snapshot being written in `root` into `root/.private-catalog`,
    /// linking from `lastSealed`, the `previous` snapshot's sealed copy, each file sealed there
    /// already under this key.
    package func write(snapshot root: URL, previous: URL?, lastSealed: URL?) throws -> Written {
        let base = root.standardizedFileURL.path
        let paths = try Self.visitorFiles(base).filter { !Self.isLeftOut($0, formats: formats) }
        let out = SnapshotWriter(root: root.appendingPathComponent(Self.folder), previous: lastSealed)
        let last = lastSealed.map { $0.standardizedFileURL.path }
        // A last copy whose lock cannot be read is taken for another key's: every file is sealed anew.
        let sameKey = last.flatMap { try? Data(contentsOf: URL(fileURLWithPath: $0 + "/lock.json")) }.map { $0 == key.lock } ?? false
        var written = Written()
        written.files = paths.count
        let anew = try EveryCore.map(paths.count, itemsPerWorker: 64, worker: { () }) { _, index -> Int in
            let path = paths[index]
            let name = SealedFile.name(of: path, key: key)
            if sameKey, let previous, lastSealed != nil {
                // A file linked from the last snapshot is as it was: so is its sealed copy.
                if Self.sameFile(base + "/" + path, previous.standardizedFileURL.path + "/" + path), out.linkFromPrevious(name) { return 0 }
            }
            let plain = try Data(contentsOf: URL(fileURLWithPath: base + "/" + path), options: .mappedIfSafe)
            let nonce = SealedFile.nonce(of: plain, path: path, key: key)
            if sameKey, let last, Self.begins(last + "/" + name, with: nonce, size: SealedFile.sealedSize(of: plain.count)), out.linkFromPrevious(name) {
                return 0
            }
            try out.write(try SealedFile.seal(plain, path: path, key: key, nonce: nonce), to: name)
            return 1
        }
        written.sealedAnew = anew.reduce(0, +)
        for name in Self.door where name != "lock.json" {
            guard let data = doorFiles[name] else { throw SealError.cannotSeal(name) }
            try out.write(data, to: name)
        }
        try out.write(key.lock, to: "lock.json")
        return written
    }

    /// Every regular file below `base` whose path has no hidden part, sorted.
    static func visitorFiles(_ base: String) throws -> [String] {
        guard let walk = FileManager.default.enumerator(atPath: base) else { return [] }
        var paths: [String] = []
        while let relative = walk.nextObject() as? String {
            if (relative as NSString).lastPathComponent.hasPrefix(".") { walk.skipDescendants(); continue }
            var info = stat()
            guard lstat(base + "/" + relative, &info) == 0 else { continue }
            if (info.st_mode & S_IFMT) == S_IFREG { paths.append(relative) }
        }
        return paths.sorted()
    }

    static func sameFile(_ one: String, _ other: String) -> Bool {
        var first = stat(), second = stat()
        return lstat(one, &first) == 0 && lstat(other, &second) == 0 && first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }

    /// Whether the file at `path` has `size` bytes and begins with `prefix`. One that cannot be
    /// read does not: it is sealed anew.
    static func begins(_ path: String, with prefix: [UInt8], size: Int) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        // Closing a file that was only read loses nothing.
        defer { try? handle.close() }
        do {
            guard try handle.seekToEnd() == UInt64(size) else { return false }
            try handle.seek(toOffset: 0)
            return try handle.read(upToCount: prefix.count).map { Array($0) == prefix } ?? false
        } catch {
            return false
        }
    }
}
