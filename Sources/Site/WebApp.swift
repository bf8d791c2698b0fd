import Crypto
import Foundation
import LibraryArchive
import SnapshotStore
import Support
import Thumbnails

/// The catalog as a web app a phone installs and keeps for offline use, on any static host:
///
/// - `manifest.webmanifest`: its name, colours, icons, and a start and scope relative to the
///   manifest, so that the catalog works under any path. Linked by `assets/offline.js`, and only
///   over http(s): opened from file://, a page is as it was.
/// - `assets/icons/icon-<size>.png`: the catalog's first letter, drawn with libvips.
/// - `sw.js` (the bundled `assets/sw.js`, at the top, where a worker's scope must start): keeps the
///   catalog's files in the browser and answers from them.
/// - `offline.json`: what the worker keeps, each file with a version, so that after the next
///   night it fetches only what changed, into a new copy it switches to whole; `offline-id.json`,
///   the list's id alone, which the worker asks for at every page opened.
enum WebApp {
    static let manifestFile = "manifest.webmanifest"
    static let listFile = "offline.json"
    static let idFile = "offline-id.json"
    static let workerSource = "sw.js"
    static let iconSizes = [192, 512]
    /// The bundled style's accent and paper (style.css's --accent and --bg): the launcher's and
    /// the splash screen's colours.
    static let themeColour = "#8a3b12"
    static let backgroundColour = "#fbfaf7"
    static func iconFile(_ size: Int) -> String { "assets/icons/icon-\(size).png" }

    /// Each file's version: the last list's for a file linked from the last snapshot, else a
    /// digest of its bytes.
    private static func versions(of paths: Paths, in writer: SnapshotWriter) throws -> [Version] {
        let root = writer.root
        let last = writer.previous.flatMap { LastVersions(list: $0.appendingPathComponent(listFile)) }
        return try EveryCore.map(paths.count, itemsPerWorker: 64, worker: {}) { _, index in
            let path = paths[index]
            if let previous = writer.previous, let version = last?.version(of: path),
               sameFile(root.appendingPathComponent(path), previous.appendingPathComponent(path)) {
                return version
            }
            let data = try Data(contentsOf: root.appendingPathComponent(path), options: .mappedIfSafe)
            return Version(SHA256.hash(data: data))
        }
    }

    /// Whether two paths are one file (a link from the last snapshot): then its bytes are as they were.
    private static func sameFile(_ one: URL, _ other: URL) -> Bool {
        var first = stat(), second = stat()
        return lstat(one.path, &first) == 0 && lstat(other.path, &second) == 0
            && first.st_dev == second.st_dev && first.st_ino == second.st_ino && (first.st_mode & S_IFMT) == S_IFREG
    }

    static func writeManifest(_ model: SiteModel, into writer: SnapshotWriter) throws {
        let name = model.site.title
        // A launcher shows about twelve characters under an icon.
        let short = name.count <= 12 ? name : String(name.prefix(11)).trimmingCharacters(in: .whitespaces) + "…"
        let icons = iconSizes.map { "{\"src\":\(SiteModel.jsonString(iconFile($0))),\"sizes\":\"\($0)x\($0)\",\"type\":\"image/png\",\"purpose\":\"any\"}" }
        let manifest = """
            {"name":\(SiteModel.jsonString(name)),"short_name":\(SiteModel.jsonString(short)),"lang":\(SiteModel.jsonString(model.language.tag)),\
            "start_url":"index.html","scope":"./","display":"standalone","theme_color":"\(themeColour)","background_color":"\(backgroundColour)",\
            "icons":[\(icons.joined(separator: ","))]}

            """
        try writer.write(manifest, to: manifestFile)
    }

    /// The letter an icon shows: the catalog's title's first, as a capital.
    static func iconLetter(title: String) -> String {
        title.first.map { String($0).uppercased() } ?? "L"
    }

    /// Changes when the drawing does (its colour, its letter's place, its font), as a share card's
    /// does: an icon is kept from one night to the next, and across builds, while it would be drawn
    /// the same.
    static let iconDrawing = "app-icon 1"

    /// What an icon is made of, for the page digests: the same digest, the same icon.
    static func iconDigest(letter: String, size: Int, drawing: String = iconDrawing) -> PageDigests.Digest {
        PageDigests.Digest(of: Data("icon \(drawing) \(letter) \(size)".utf8))
    }

    static func drawIcon(letter: String, size: Int) throws -> Data {
        guard let png = ShareCardDrawing.appIcon(letter: letter, size: size, colour: (0x8a, 0x3b, 0x12)) else {
            throw SnapshotError(.notWritable(detail: "the web app's icon could not be drawn (libvips)"), path: iconFile(size))
        }
        return png
    }

    /// `offline.json`, once every other file is written: `shell`, kept at the first visit (the
    /// pages of lists, the assets, the search's and the lookup's index, and up to `keptWhole` books
    /// the lists' thumbnails); `pages`, each book's page with its cover, and the shelves', authors'
    /// and years' pages, kept in the background up to `keptWhole` books. A file's version is a
    /// digest of its bytes, so that the same pages give the same list from an export or from
    /// `render --from`; a cover's is empty, since its name is its content's. A file linked from the
    /// last snapshot keeps the version the last list gave it: a night that changed a few books
    /// reads only their files again (hashing every page of 10,000 books took about half a second).
    static func writeList(_ model: SiteModel, snapshot: String, keptWhole: Int, into writer: SnapshotWriter) throws {
        let root = writer.root
        let whole = model.books.count <= keptWhole
        var lists = ["index.html", "authors.html", "stats.html", "lookup.html", manifestFile] + (1...model.booksPageCount).map(SiteModel.booksPageFile)
        if model.changesView != nil { lists.append("changes.html") }
        if let timeline = model.timelineView {
            lists += timeline.pageFiles(perPage: model.booksPerPage)
        }
        if let files = FileManager.default.enumerator(atPath: root.appendingPathComponent("assets").path) {
            for case let file as String in files {
                var isFolder: ObjCBool = false
                let path = "assets/" + file
                if FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isFolder), !isFolder.boolValue { lists.append(path) }
            }
        }
        let pages = model.shelves.map { "shelves/\($0.fileName).html" } + model.years.years.map { "years/\($0.year).html" }
            + model.authors.authors.map { "authors/\($0.fileName).html" }
        let paths = Paths(lists: lists, pages: pages, books: model.books, fileNames: model.fileNames)
        let versions = try versions(of: paths, in: writer)
        func entry(_ path: String, _ version: Version?, _ more: String? = nil) -> String {
            "[\(SiteModel.jsonString(path)),\"\(version?.text ?? "")\"" + (more.map { ",\(SiteModel.jsonString($0))" } ?? "") + "]"
        }
        // The list's entries, made afresh for each pass rather than held: once to hash them, once
        // to write them. Held as strings, joined and copied, they raised the peak of a 100,000-book
        // render from 150 to 176 MB.
        func eachPiece(_ take: (String) throws -> Void) throws {
            try take("\"shell\":[\n")
            var first = true
            func item(_ text: String) throws {
                try take(first ? text : ",\n" + text)
                first = false
            }
            for index in 0..<lists.count { try item(entry(paths[index], versions[index])) }
            if whole {
                var thumbnails = Set<String>()
                for place in model.books {
                    if let list = model.library.entries[place].cover?.thumbnail(.list), thumbnails.insert(list).inserted { try item(entry(list, nil)) }
                }
            }
            try take("],\n\"pages\":[\n")
            first = true
            for index in lists.count..<paths.firstBook { try item(entry(paths[index], versions[index])) }
            for (index, place) in zip(paths.firstBook..., model.books) {
                let cover = model.library.entries[place].cover
                try item(entry(paths[index], versions[index], cover.map { $0.thumbnail(.page) ?? $0.path }))
            }
            try take("]}\n")
        }
        // The copy's identity is what it holds, not its date: two snapshots of one date (a fixed
        // SOURCE_DATE_EPOCH) that differ are two copies.
        var hasher = SHA256()
        try eachPiece { piece in
            var piece = piece
            piece.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        }
        let id = hasher.finalize().prefix(8).hexString
        try writer.writeStream(to: listFile) { write in
            var buffer = Data()
            buffer.reserveCapacity(1 << 16)
            buffer.append(contentsOf: "{\"id\":\"\(id)\",\"snapshot\":\(SiteModel.jsonString(snapshot)),\"books\":\(model.books.count),\"whole\":\(whole),\n".utf8)
            try eachPiece { piece in
                buffer.append(contentsOf: piece.utf8)
                if buffer.count >= 1 << 16 {
                    try write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try write(buffer)
        }
        try writer.write("{\"id\":\"\(id)\"}\n", to: idFile)
    }
}
