import Crawl
import Crypto
import Foundation
import LibraryArchive
import ReaderAPI
import Site
import SnapshotStore
import Support

/// What pages are made with: when it and the library are both as they were, the pages would come
/// out byte for byte the same, and a run need not render them at all.
enum RenderDigest {
    static func digest(_ site: SiteIdentity) -> String {
        var hasher = SHA256()
        func add(_ text: String) {
            hasher.update(data: Data(text.utf8))
            hasher.update(data: Data([0]))
        }
        // This build of the tool: a new one may render differently.
        add(thisBuild)
        // Every value that changes the pages, as the identity encodes them.
        hasher.update(data: site.renderedWith)
        hasher.update(data: Data([0]))
        let templates = site.templates
        let root = templates.directory.resolvingSymlinksInPath()
        let files = (FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? [])
            .map { $0.resolvingSymlinksInPath() }
            // The templates were read whole as the run began: a file that cannot be told or read
            // now can only change the digest, and the pages are then made again.
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .sorted { $0.path < $1.path }
        for file in files {
            add(String(file.path.dropFirst(root.path.count)))
            // One that cannot be read counts as empty, as above.
            hasher.update(data: (try? Data(contentsOf: file)) ?? Data())
        }
        return hasher.finalize().hexString
    }

    /// This build of the tool, as far as its file tells: its size and when it was made.
    static let thisBuild: String = {
        // A tool whose file cannot be looked at is of no known build, "": no state is taken for
        // this build's (`previousIsThisBuild`, `mayBeQuiet`).
        guard let tool = Bundle.main.executableURL?.resolvingSymlinksInPath(),
              let attributes = try? FileManager.default.attributesOfItem(atPath: tool.path) else { return "" }
        return "\(attributes[.size] ?? 0) \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
    }()

    /// The snapshot is as this tool left it, as far as a quick look can tell: the main file of each
    /// format is there, and nothing in it is a link or anything but a plain file or folder. One that
    /// someone emptied, or planted a link in, is rendered again (without following the link).
    static func isIntact(_ snapshot: URL, formats: Set<OutputFormat>) -> Bool {
        let base = snapshot.standardizedFileURL.path
        var info = stat()
        for file in formats.map(\.traits.mainFile) {
            guard lstat(base + "/" + file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        }
        guard let walk = FileManager.default.enumerator(atPath: base) else { return false }
        while let relative = walk.nextObject() as? String {
            guard lstat(base + "/" + relative, &info) == 0 else { return false }
            let kind = info.st_mode & S_IFMT
            guard kind == S_IFREG || kind == S_IFDIR else { return false }
        }
        return true
    }
}
