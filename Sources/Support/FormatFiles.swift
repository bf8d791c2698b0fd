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

    package init(words: String, sealed: Bool, kept: [String] = [], holds: @escaping @Sendable (String) -> Bool,
                 mediaType: @escaping @Sendable (String) -> String? = { _ in nil }) {
        self.words = words
        self.sealed = sealed
        self.kept = kept
        self.holds = holds
        self.mediaType = mediaType
    }
}

extension Array where Element == FormatFiles {
    /// The media type the first format holding `path` gives it, if any does.
    package func mediaType(of path: String) -> String? {
        lazy.filter { $0.holds(path) }.compactMap { $0.mediaType(path) }.first
    }
}
