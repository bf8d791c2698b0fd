import Crypto
import Foundation
import LibraryArchive
import NIOConcurrencyHelpers
import SnapshotStore
import Support

/// What each book's and shelf's pages were made from, as a digest by the page's path. A night
/// that changes a few books finds most pages' inputs as they were: their files are linked from the
/// last snapshot rather than rendered again, and the bytes are what a full render would give.
///
/// A page's inputs are its book (the book's entry in `library.json`: every field, the note, the
/// cover), its shelf, its problems, its file name, what the pages are made with (templates, formats,
/// site address, this build: `seed`) and the values of the site that its templates name. Book and
/// shelf pages are not dated (the date is on the index and the lists), so the date is none of them.
package struct PageDigests: Sendable {
    /// The last run's digests, each with the size of the page it gave.
    package var previous: PageDigestTable
    /// What the pages are made with (`RenderDigest`); nil: no page is taken from the last run.
    package var seed: String?

    package init(previous: PageDigestTable = PageDigestTable(), seed: String? = nil) {
        self.previous = previous
        self.seed = seed
    }

    /// A page's inputs, as the table keeps them: the first 128 bits of their SHA-256.
    struct Digest: Equatable {
        var high: UInt64
        var low: UInt64

        init(high: UInt64, low: UInt64) {
            self.high = high
            self.low = low
        }

        init(of data: Data) {
            var hasher = SHA256()
            hasher.update(data: data)
            self = PageInputs.digest(hasher)
        }
    }

    /// Each book's entry digested, by its place: written by the book's job, read by its shelf's
    /// once every book job is done (each place written once, by one thread).
    /// Unchecked: a buffer the render's threads write without a lock, each its own books' places,
    /// read once they are done (a lock for each of 100,000 writes would serve nothing).
    final class EntryDigests: @unchecked Sendable {
        private let digests: UnsafeMutableBufferPointer<Digest>

        init(count: Int) {
            digests = .allocate(capacity: max(1, count))
            digests.initialize(repeating: Digest(high: 0, low: 0))
        }

        deinit { digests.deallocate() }

        subscript(place: Int) -> Digest {
            get { digests[place] }
            set { digests[place] = newValue }
        }
    }

    /// The size of the last run's page at `path` when its inputs were these: it can be linked.
    func sizeAsBefore(_ path: String, digest: Digest) -> Int? {
        guard seed != nil, let kept = previous.entry(for: path), kept.digest0 == digest.high, kept.digest1 == digest.low else { return nil }
        return Int(kept.size)
    }

    /// The digests of a run's book and shelf pages (and of the web app's icons), gathered from
    /// the render's threads.
    final class Gathered: Sendable {
        private struct State {
            var entries: [PageDigestTable.Entry] = []
            var linked = 0
            /// The book, shelf, author and year pages among them (the rest: the web app's icons).
            var pages = 0
        }
        private let state = NIOLockedValueBox(State())

        init() {}

        var linked: Int { state.withLockedValue { $0.linked } }
        var pages: Int { state.withLockedValue { $0.pages } }

        /// Room for `pages` entries at once: grown by doubling, the array took twice that for a while.
        func reserve(_ pages: Int) {
            state.withLockedValue { $0.entries.reserveCapacity(pages) }
        }

        func add(_ path: String, _ digest: Digest, size: Int, linked wasLinked: Bool, page: Bool = true) {
            let entry = PageDigestTable.Entry(path: PageDigestTable.key(path), digest0: digest.high, digest1: digest.low, size: UInt64(size))
            state.withLockedValue { state in
                state.entries.append(entry)
                if page {
                    state.pages += 1
                    if wasLinked { state.linked += 1 }
                }
            }
        }

        /// The digests, taken out (the render is over).
        func take() -> PageDigestTable {
            var taken: [PageDigestTable.Entry] = []
            state.withLockedValue { swap(&taken, &$0.entries) }
            return PageDigestTable(taken)
        }
    }
}

/// The names the book and shelf templates look up, and the digests built from them.
struct PageInputs: Sendable {
    /// Every name in a tag of the templates that book and shelf pages are made from (their layout
    /// and partials included): a site value whose name is not among them cannot change those pages.
    let names: Set<String>
    let seed: String
    /// The site's values that the templates name, in a fixed order.
    let site: String

    init(templates: TemplateSet, seed: String, site: SiteView) {
        var names = Set<String>()
        for format in OutputFormat.allCases {
            let folder = templates.directory.appendingPathComponent(format.rawValue)
            var pending = ["book", "shelf", "author", "year"], seen = Set<String>()
            while let name = pending.popLast() {
                // A page or partial that is not there adds no names: the render says it is missing.
                guard seen.insert(name).inserted,
                      let text = try? String(contentsOf: folder.appendingPathComponent(name + ".mustache"), encoding: .utf8) else { continue }
                for tag in Self.tags(in: text) {
                    if let first = tag.first, first == ">" || first == "<" {
                        pending.append(tag.dropFirst().trimmingCharacters(in: .whitespaces))
                    }
                    for word in tag.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }) { names.insert(String(word)) }
                }
            }
        }
        self.names = names
        self.seed = seed
        self.site = Self.values(of: site, among: SiteView.names, named: names)
    }

    /// The contents of every `{{…}}` tag.
    static func tags(in text: String) -> [String] {
        var tags: [String] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            guard let close = rest.range(of: "}}", range: open.upperBound..<rest.endIndex) else { break }
            tags.append(rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: CharacterSet(charactersIn: "{} \t\n")))
            rest = rest[close.upperBound...]
        }
        return tags
    }

    /// "name=value" lines for each of `all` that the templates name.
    static func values(of object: MustacheParentValues, among all: [String], named names: Set<String>) -> String {
        var text = ""
        for name in all where names.contains(name) {
            text += name + "=" + describe(object.child(named: name)) + "\n"
        }
        return text
    }

    static func describe(_ value: Any?) -> String {
        switch value {
        case nil: return "\u{0}"
        case let text as Text: return text.renderText
        case let value?: return String(describing: value)
        }
    }

    /// A book's page (either format): the book's entry (its digest), its file name, its shelf, its problems.
    func book(entry: PageDigests.Digest, fileName: String, shelf: ShelfView?, problems: [Problem]) -> PageDigests.Digest {
        var hasher = SHA256()
        add(&hasher, seed, site, "book", fileName)
        add(&hasher, shelf.map { Self.values(of: $0, among: ShelfView.names, named: names) } ?? "\u{0}")
        for problem in problems { add(&hasher, problem.kind.rawValue, problem.message) }
        add(&hasher, entry)
        return Self.digest(hasher)
    }

    /// A shelf's page: the shelf and every book on it, in order (each book's file name and entry).
    func shelf(_ view: ShelfView, books: [(fileName: String, entry: PageDigests.Digest)]) -> PageDigests.Digest {
        var hasher = SHA256()
        add(&hasher, seed, site, "shelf", Self.values(of: view, among: ShelfView.names, named: names))
        for book in books {
            add(&hasher, book.fileName)
            add(&hasher, book.entry)
        }
        return Self.digest(hasher)
    }

    /// An author's or a year's page (`kind`, `key` naming it and what else it shows): every book on
    /// it in order, with the name of the shelf its card shows.
    func list(_ kind: String, key: String, books: [(fileName: String, entry: PageDigests.Digest, shelf: String)]) -> PageDigests.Digest {
        var hasher = SHA256()
        add(&hasher, seed, site, kind, key)
        for book in books {
            add(&hasher, book.fileName, book.shelf)
            add(&hasher, book.entry)
        }
        return Self.digest(hasher)
    }

    /// A page of the timeline: what it shows, as text (`TimelineView.inputs`).
    func timeline(_ parts: [String]) -> PageDigests.Digest {
        var hasher = SHA256()
        add(&hasher, seed, site, "timeline")
        for part in parts { add(&hasher, part) }
        return Self.digest(hasher)
    }

    private func add(_ hasher: inout SHA256, _ digest: PageDigests.Digest) {
        withUnsafeBytes(of: (digest.high.bigEndian, digest.low.bigEndian)) { hasher.update(bufferPointer: $0) }
    }

    static func digest(_ hasher: SHA256) -> PageDigests.Digest {
        let bytes = Array(hasher.finalize())
        func word(_ start: Int) -> UInt64 { bytes[start..<start + 8].reduce(0) { $0 << 8 | UInt64($1) } }
        return PageDigests.Digest(high: word(0), low: word(8))
    }

    private func add(_ hasher: inout SHA256, _ parts: String...) {
        for part in parts {
            hasher.update(data: Data(part.utf8))
            hasher.update(data: Data([0]))
        }
    }
}

/// A page object whose children can be listed by name.
protocol MustacheParentValues {
    func child(named name: String) -> Any?
}

extension SiteView: MustacheParentValues {
    /// Every name `child(named:)` answers.
    static let names = ["url", "title", "titleMarkdown", "user", "server", "generatedAt", "generator", "bookCount", "shelfCount", "noteCount",
                        "coverCount", "unshelvedCount", "problemCount", "hasProblems", "hasChanges", "hasTimeline", "hasFeed", "hasOPDS",
                        "language", "totals", "totalsMarkdown", "allBooksLabel", "booksByTitle"]
}

extension ShelfView: MustacheParentValues {
    static let names = ["id", "name", "nameMarkdown", "nameYAML", "href", "markdownHref", "count", "countLabel", "complete"]
}
