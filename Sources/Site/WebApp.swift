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

    /// The versions the last snapshot's list gave its files, by path; none when it has no list.
    private static func lastVersions(_ writer: SnapshotWriter) -> [String: String] {
        guard let previous = writer.previous,
              let data = try? Data(contentsOf: previous.appendingPathComponent(listFile), options: .mappedIfSafe),
              let list = try? JSONDecoder().decode(LastList.self, from: data) else { return [:] }
        return list.versions
    }

    /// The last list's versions by path, taken entry by entry as they are decoded: its entries
    /// held whole beside the dictionary would hold them twice, at the end of the render.
    private struct LastList: Decodable {
        var versions: [String: String] = [:]

        private enum Key: String, CodingKey { case shell, pages }

        init(from decoder: any Decoder) throws {
            let list = try decoder.container(keyedBy: Key.self)
            for key in [Key.shell, .pages] {
                var entries = try list.nestedUnkeyedContainer(forKey: key)
                while !entries.isAtEnd {
                    var entry = try entries.nestedUnkeyedContainer()
                    var strings: [String] = []
                    while !entry.isAtEnd { strings.append(try entry.decode(String.self)) }
                    if strings.count >= 2 { versions[strings[0]] = strings[1] }
                }
            }
        }
    }

    /// Each file's version: the last list's for a file linked from the last snapshot, else a
    /// digest of its bytes. The last list's versions are let go on return, before the list is
    /// written: a path and a version for every page, at the end of the render, where its memory
    /// peaks.
    private static func versions(of paths: [String], in writer: SnapshotWriter) throws -> [String] {
        let root = writer.root
        let last = lastVersions(writer)
        return try EveryCore.map(paths.count, itemsPerWorker: 64, worker: {}) { _, index in
            let path = paths[index]
            if let version = last[path], let previous = writer.previous, sameFile(root.appendingPathComponent(path), previous.appendingPathComponent(path)) {
                return version
            }
            let data = try Data(contentsOf: root.appendingPathComponent(path), options: .mappedIfSafe)
            return SHA256.hash(data: data).prefix(8).hexString
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
        if let files = FileManager.default.enumerator(atPath: root.appendingPathComponent("assets").path) {
            for case let file as String in files {
                var isFolder: ObjCBool = false
                let path = "assets/" + file
                if FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isFolder), !isFolder.boolValue { lists.append(path) }
            }
        }
        var pagePaths = model.shelves.map { "shelves/\($0.fileName).html" } + model.years.years.map { "years/\($0.year).html" }
            + model.authors.authors.map { "authors/\($0.fileName).html" }
        let firstBook = pagePaths.count
        pagePaths += model.books.map { "books/\(model.fileNames[$0]).html" }
        let paths = lists + pagePaths
        let versions = try versions(of: paths, in: writer)
        func entry(_ path: String, _ version: String, _ more: String? = nil) -> String {
            "[\(SiteModel.jsonString(path)),\(SiteModel.jsonString(version))" + (more.map { ",\(SiteModel.jsonString($0))" } ?? "") + "]"
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
            for (path, version) in zip(lists, versions) { try item(entry(path, version)) }
            if whole {
                var thumbnails = Set<String>()
                for place in model.books {
                    if let list = model.catalog.entries[place].cover?.thumbnail(.list), thumbnails.insert(list).inserted { try item(entry(list, "")) }
                }
            }
            try take("],\n\"pages\":[\n")
            first = true
            for (path, version) in zip(pagePaths.prefix(firstBook), versions[lists.count...]) { try item(entry(path, version)) }
            for (number, place) in model.books.enumerated() {
                let cover = model.catalog.entries[place].cover
                try item(entry(pagePaths[firstBook + number], versions[lists.count + firstBook + number], cover.map { $0.thumbnail(.page) ?? $0.path }))
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
