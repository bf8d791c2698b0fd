import Crypto
import Foundation
import Support

/// `--markdown-into DIR`: the snapshot's Markdown tree (and the covers it shows) kept in
/// `DIR/Reader/`, a folder of the user's (an Obsidian vault, a notes repository), where the user
/// may edit, rename and delete the files. Nothing outside `DIR/Reader/` is touched.
///
/// What the last sync wrote is remembered by content (`.reader-snapshot/vault.json`), so that:
/// - a file the user did not touch follows the server (a book renamed on the server is renamed);
/// - a file the user edited is never overwritten: when the server's version changed too, it goes
///   beside it as `NAME.reader.md`, once a version, and the sync reports the conflict;
/// - a file the user renamed is followed to its new name (found by its content or its front
///   matter's `id:`); one the user deleted stays deleted until `--restore`;
/// - a book gone from the server takes its file along only if the user never edited it.
package struct Vault: Sendable {
    package static let folderName = "Reader"
    package let root: URL
    package var restore: Bool

    package init(into folder: URL, restore: Bool = false) {
        root = folder.standardizedFileURL.appendingPathComponent(Self.folderName)
        self.restore = restore
    }

    var stateFolder: URL { root.appendingPathComponent(".reader-snapshot") }
    var manifestFile: URL { stateFolder.appendingPathComponent("vault.json") }

    /// What a sync did, by path from `DIR/Reader/`.
    package struct Report: Sendable, Equatable {
        package var written: [String] = []
        /// The user's edited file kept; the server's new version written beside it (this path).
        package var conflicts: [String] = []
        /// Deleted by the user since the last sync: not written again (`--restore` does).
        package var keptDeleted: [String] = []
        /// Deleted by the user before the last sync, and still left out.
        package var stillDeleted = 0
        package var restored: [String] = []
        /// Followed to the name the user gave it.
        package var followed: [String] = []
        /// Gone from the server and never edited here: removed.
        package var removed: [String] = []
        /// Gone from the server, but edited here: kept.
        package var keptRemoved: [String] = []
        package var unchanged = 0
    }

    /// Brings the vault up to `snapshot`'s Markdown tree.
    package func sync(from snapshot: URL) throws -> Report {
        let manager = FileManager.default
        do {
            try manager.createDirectory(at: stateFolder, withIntermediateDirectories: true)
        } catch {
            throw SnapshotError(.notWritable(detail: "--markdown-into: \(error.localizedDescription)"), path: root.path)
        }
        let lock = open(stateFolder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if lock >= 0 { flock(lock, LOCK_UN); close(lock) } }
        guard lock >= 0, flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            throw SnapshotError(.notWritable(detail: "another reader-snapshot run is writing in this vault"), path: root.path)
        }
        var sync = Sync(vault: self, manifest: VaultManifest.read(from: manifestFile) ?? VaultManifest(), snapshot: snapshot)
        do {
            try sync.run()
            try sync.manifest.write(to: manifestFile)
        } catch let error as SnapshotError {
            throw error
        } catch {
            throw SnapshotError(.notWritable(detail: "--markdown-into: \(error.localizedDescription)"), path: root.path)
        }
        return sync.report
    }

    /// One sync's work.
    private struct Sync {
        let vault: Vault
        var manifest: VaultManifest
        let snapshot: URL
        var report = Report()
        /// The vault's Markdown files no entry names, for finding renamed ones: read once, when needed.
        var strays: [String]?

        init(vault: Vault, manifest: VaultManifest, snapshot: URL) {
            self.vault = vault
            self.manifest = manifest
            self.snapshot = snapshot
        }

        mutating func run() throws {
            var seen = Set<String>()
            for path in Vault.files(under: snapshot, in: "markdown") {
                let key = VaultManifest.key(of: path)
                seen.insert(key)
                let content = try Data(contentsOf: snapshot.appendingPathComponent(path))
                try place(path, key: key, content: content)
            }
            for (key, entry) in manifest.files.sorted(by: { $0.key < $1.key }) where !seen.contains(key) {
                try goneFromServer(key, entry)
            }
            // Covers are named by their content: one already there is the same cover. Their
            // thumbnails (<hash>-<width>.jpg) are for the site, not the Markdown.
            for path in Vault.files(under: snapshot, in: "covers") where !exists(path) && !path.contains("-") {
                try vault.write(try Data(contentsOf: snapshot.appendingPathComponent(path)), to: path)
            }
        }

        private mutating func place(_ path: String, key: String, content: Data) throws {
            let digest = Vault.digest(content)
            guard var entry = manifest.files[key] else {
                // New here. A file of the user's by that name stays theirs.
                if let theirs = try read(path) {
                    if Vault.digest(theirs) == digest { report.unchanged += 1 } else { try conflict(at: path, content) }
                } else {
                    try vault.write(content, to: path)
                    report.written.append(path)
                }
                manifest.files[key] = .init(path: path, serverPath: path, written: digest, server: digest)
                return
            }
            if !exists(entry.path) {
                if let renamed = try findRenamed(key: key, entry: entry) {
                    entry.path = renamed
                    report.followed.append(renamed)
                } else if vault.restore {
                    try vault.write(content, to: path)
                    report.restored.append(path)
                    manifest.files[key] = .init(path: path, serverPath: path, written: digest, server: digest)
                    return
                } else {
                    if entry.deleted { report.stillDeleted += 1 } else { report.keptDeleted.append(entry.path) }
                    entry.deleted = true
                    entry.server = digest
                    entry.serverPath = path
                    manifest.files[key] = entry
                    return
                }
            }
            entry.deleted = false
            let mine = Vault.digest(try read(entry.path) ?? Data())
            if mine == entry.written || mine == digest {
                // Not edited here (or edited to what the server now has): it follows the server.
                // Renamed on the server: the file follows, unless a file of the user's has that name.
                if entry.path == entry.serverPath && path != entry.path && !exists(path) {
                    try vault.write(content, to: path)
                    try FileManager.default.removeItem(at: vault.root.appendingPathComponent(entry.path))
                    entry.path = path
                    report.written.append(path)
                } else if mine != digest {
                    try vault.write(content, to: entry.path)
                    report.written.append(entry.path)
                } else {
                    report.unchanged += 1
                }
                entry.written = digest
            } else if digest != entry.server {
                try conflict(at: entry.path, content)
            } else {
                report.unchanged += 1
            }
            entry.server = digest
            entry.serverPath = path
            manifest.files[key] = entry
        }

        /// The user's file stays; the server's version goes beside it.
        private mutating func conflict(at path: String, _ content: Data) throws {
            let beside = String(path.dropLast(path.hasSuffix(".md") ? 3 : 0)) + ".reader.md"
            try vault.write(content, to: beside)
            report.conflicts.append(beside)
        }

        private mutating func goneFromServer(_ key: String, _ entry: VaultManifest.File) throws {
            manifest.files[key] = nil
            guard !entry.deleted, let mine = try read(entry.path) else { return }
            if Vault.digest(mine) == entry.written {
                try FileManager.default.removeItem(at: vault.root.appendingPathComponent(entry.path))
                report.removed.append(entry.path)
            } else {
                report.keptRemoved.append(entry.path)
            }
        }

        /// A file the user renamed: a Markdown file no entry names, with the content last written,
        /// or (a book's or shelf's) with its id in the front matter.
        private mutating func findRenamed(key: String, entry: VaultManifest.File) throws -> String? {
            if strays == nil {
                let named = Set(manifest.files.values.map(\.path))
                strays = Vault.files(under: vault.root, in: "markdown").filter {
                    !named.contains($0) && $0.hasSuffix(".md") && !$0.hasSuffix(".reader.md")
                }
            }
            let id = key.split(separator: ":").count == 2 && !key.hasPrefix("markdown/") ? key.split(separator: ":")[1] : nil
            let kind = key.hasPrefix("book:") ? "books" : "shelves"
            for stray in strays! {
                guard let data = try read(stray) else { continue }
                let sameContent = Vault.digest(data) == entry.written
                let sameID = id.map { Vault.frontMatterID(of: data) == String($0) && stray.hasPrefix("markdown/\(kind)/") } ?? false
                if sameContent || sameID {
                    strays!.removeAll { $0 == stray }
                    return stray
                }
            }
            return nil
        }

        private func exists(_ path: String) -> Bool {
            FileManager.default.fileExists(atPath: vault.root.appendingPathComponent(path).path)
        }

        /// The file at `path`; nil when there is none. One that is there but cannot be read stops the
        /// sync, and says which: taken for none, it would be written over.
        private func read(_ path: String) throws -> Data? {
            let file = vault.root.appendingPathComponent(path)
            guard FileManager.default.fileExists(atPath: file.path) else { return nil }
            do { return try Data(contentsOf: file) } catch {
                throw SnapshotError(.notWritable(detail: "--markdown-into: \(path) could not be read: \(error.localizedDescription)"), path: vault.root.path)
            }
        }
    }

    /// Written beside, then renamed into place: an editor never sees half a file.
    func write(_ content: Data, to path: String) throws {
        let target = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try content.write(to: target, options: .atomic)
    }

    /// The files under `folder/sub`, as paths from `folder`, sorted; hidden ones left out.
    static func files(under folder: URL, in sub: String) -> [String] {
        let base = folder.appendingPathComponent(sub)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey],
                                                          options: [.skipsHiddenFiles]) else { return [] }
        let prefix = base.standardizedFileURL.path + "/"
        var paths: [String] = []
        // A file whose kind cannot be told is left out, as a folder is.
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            let full = url.standardizedFileURL.path
            guard full.hasPrefix(prefix) else { continue }
            paths.append(sub + "/" + full.dropFirst(prefix.count))
        }
        return paths.sorted()
    }

    static func digest(_ data: Data) -> String {
        Array(SHA256.hash(data: data)).hexString
    }

    /// The `id:` of a Markdown file's front matter (the block between its first two `---` lines).
    static func frontMatterID(of data: Data) -> String? {
        let text = String(decoding: data.prefix(4096), as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).makeIterator()
        guard lines.next()?.trimmingCharacters(in: .whitespaces) == "---" else { return nil }
        while let line = lines.next(), line.trimmingCharacters(in: .whitespaces) != "---" {
            if line.hasPrefix("id:") { return line.dropFirst(3).trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }
}
