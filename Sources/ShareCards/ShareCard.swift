import Crypto
import Foundation
import LibraryArchive
import Notes
import SnapshotStore
import Support
import Thumbnails

/// A page's share card (`cards/<hash>.jpg`, 1200 × 630): what it shows, and its name. The name is
/// made from what the card shows, so a card whose inputs are as they were last night has the name
/// it had, and is linked from the last snapshot rather than drawn again; hosts may keep it forever.
package struct ShareCard: Sendable, Hashable {
    package static let width = 1200
    package static let height = 630
    /// The covers a row card shows at most.
    package static let rowCovers = 6
    /// Changes when the drawing does, so that no host keeps a card drawn the old way.
    package static let drawing = "share-card 1"
    /// Where cards are, in a snapshot.
    package static let folder = "cards"

    package enum Kind: Sendable, Hashable {
        /// A book: its title and author, its cover (a path in the snapshot: its page thumbnail).
        case book(title: String, author: String, cover: String?)
        /// A list: its name, a line under it ("248 books"), and a few covers.
        case row(name: String, line: String, covers: [String])
    }

    package let kind: Kind
    package let siteTitle: String

    package static func book(title: String, author: String, cover: String?, siteTitle: String) -> ShareCard {
        ShareCard(kind: .book(title: title, author: author, cover: cover), siteTitle: siteTitle)
    }

    /// A book's card from what its page shows: its title (or the stand-in a page shows for none), its
    /// author, and its page's 2× thumbnail (the cover itself without thumbnails). The crawl and the
    /// render both make it here, so that a card drawn during the crawl is the one its page names.
    package static func book(_ book: BookEntry, siteTitle: String) -> ShareCard {
        let cover = book.cover.map { $0.thumbnail(.page2x) ?? $0.path }
        return .book(title: book.shownTitle, author: book.author?.trimmingSpaces() ?? "", cover: cover, siteTitle: siteTitle)
    }

    package static func row(name: String, line: String, covers: [String], siteTitle: String) -> ShareCard {
        ShareCard(kind: .row(name: name, line: line, covers: covers), siteTitle: siteTitle)
    }

    /// `cards/` and 32 hex digits of the inputs' SHA-256 (covers are named by their content).
    package var path: String {
        var hasher = SHA256()
        func add(_ text: String) {
            hasher.update(data: Data(text.utf8))
            hasher.update(data: Data([0]))
        }
        add(Self.drawing)
        add(siteTitle)
        switch kind {
        case .book(let title, let author, let cover):
            add("book"); add(title); add(author); add(cover ?? "")
        case .row(let name, let line, let covers):
            add("row"); add(name); add(line)
            covers.forEach(add)
        }
        return Self.folder + "/" + hasher.finalize().hexString.prefix(32) + ".jpg"
    }

    /// What a screen reader says of it.
    package var alt: String {
        alt { title, author in "\(title), by \(author)" }
    }

    /// The same, with a book's title and author put together by `titleByAuthor` (in the pages' language).
    package func alt(_ titleByAuthor: (_ title: String, _ author: String) -> String) -> String {
        switch kind {
        case .book(let title, let author, _): author.isEmpty ? title : titleByAuthor(title, author)
        case .row(let name, let line, _): "\(name): \(line)"
        }
    }

    /// Links the card from the last snapshot when it is there (the same name: the same inputs),
    /// else draws it from the covers already in the snapshot. A cover that cannot be read is
    /// drawn as a stand-in: the card is never missing.
    package func write(into writer: SnapshotWriter) throws {
        try write(into: writer, at: path)
    }

    /// The same, its `path` worked out already.
    package func write(into writer: SnapshotWriter, at path: String) throws {
        if writer.linkFromPrevious(path) { return }
        // Two pages can share a card (two empty shelves of one name): drawn once. A path that
        // cannot be written is refused by `writeOnce` below, which says why.
        if let url = try? writer.url(for: path), FileManager.default.fileExists(atPath: url.path) { return }
        func read(_ cover: String) -> Data? {
            // Nil draws the stand-in.
            guard let url = try? writer.url(for: cover) else { return nil }
            return try? Data(contentsOf: url)
        }
        let data: Data?
        switch kind {
        case .book(let title, let author, let cover):
            data = ShareCardDrawing.book(title: title, author: author, cover: cover.flatMap(read), siteTitle: siteTitle)?.jpeg
        case .row(let name, let line, let covers):
            data = ShareCardDrawing.row(name: name, line: line, covers: covers.compactMap(read), siteTitle: siteTitle)
        }
        guard let data else {
            throw SnapshotError(.notWritable(detail: "the share card \(path) could not be drawn (libvips)"), path: writer.root.path)
        }
        try writer.writeOnce(data, to: path)
    }
}
