/// One output format's files as the steps that move them see them: publishing (the media type a
/// host serves them with), the catalog for friends only (sealed, or left out) and the history (kept
/// in git, or not). Those steps know no format by name: the site's `OutputFormat` gives each of
/// them this value, so that a new format is described once, where it is written.
package struct FormatFiles: Sendable {
    /// How messages name the files: "the CSV".
    package var words: String
    /// Whether the file at a path below the snapshot is one of this format's.
    package var holds: @Sendable (String) -> Bool
    /// The media type a host serves one of them with; nil leaves it to the file's extension.
    package var mediaType: @Sendable (String) -> String?
    /// Whether a catalog for friends only seals them. Only what a browser opens through the
    /// catalog's door can be read sealed: e-readers, feed readers, spreadsheets and reference
    /// managers run no script, so their formats are left out.
    package var sealed: Bool
    /// What of them a snapshot's history keeps: lines of git's exclude file (`!/library.csv`),
    /// none when it keeps nothing of them.
    package var kept: [String]
    /// The wave one of them is uploaded in, so that what a page links is there before it; nil
    /// leaves it to where it lies (at the top of the snapshot: with the entry points).
    package var wave: @Sendable (String) -> Wave?

    package init(words: String, sealed: Bool, kept: [String] = [], holds: @escaping @Sendable (String) -> Bool,
                 mediaType: @escaping @Sendable (String) -> String? = { _ in nil }, wave: @escaping @Sendable (String) -> Wave? = { _ in nil }) {
        self.words = words
        self.sealed = sealed
        self.kept = kept
        self.holds = holds
        self.mediaType = mediaType
        self.wave = wave
    }
}

extension Array where Element == FormatFiles {
    /// The media type the first format holding `path` gives it, if any does.
    package func mediaType(of path: String) -> String? {
        lazy.filter { $0.holds(path) }.compactMap { $0.mediaType(path) }.first
    }
}

/// The order files go up in, so that a visitor never follows a link to a file not there yet:
/// what pages show first, then the pages that lead nowhere new, then the pages that lead to them.
/// Deletions come after all of them.
package enum Wave: Int, CaseIterable, Sendable, Comparable {
    /// Covers, thumbnails, share images and the site's assets (not the search index).
    case files
    /// Each book's page, in HTML and Markdown.
    case bookPages
    /// Shelf, author and year pages, their feeds, and the OPDS catalog's feeds below its root.
    case collectionPages
    /// A private catalog's sealed files (`c/…`): before its door, which leads to them all.
    case sealedFiles
    /// The index, the lists, the feeds, the OPDS roots, the search index, library.json, the CSV.
    case entryPoints

    package static func < (lhs: Wave, rhs: Wave) -> Bool { lhs.rawValue < rhs.rawValue }

    /// How the run's progress names the files of a wave.
    package var words: String {
        switch self {
        case .files: return "covers, thumbnails and assets"
        case .bookPages: return "book pages"
        case .collectionPages: return "shelf, author and year pages"
        case .sealedFiles: return "the private catalog's sealed files"
        case .entryPoints: return "the index, lists, feeds and library.json"
        }
    }
}
