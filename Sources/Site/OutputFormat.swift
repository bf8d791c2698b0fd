import LibraryArchive
import Notes
import SnapshotStore
import Support

/// What a snapshot holds: the browsable site, the Markdown tree, the `library.json` archive,
/// `library.csv` (Goodreads' layout), `feed.xml` (Atom; a feed for each shelf too) and `opds/`
/// (an OPDS catalog for e-reader apps).
package enum OutputFormat: String, CaseIterable, Sendable, Comparable {
    case html, markdown, json, csv, feed, opds

    package static func < (lhs: OutputFormat, rhs: OutputFormat) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
