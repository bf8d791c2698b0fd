import Foundation
import Support

/// Where a snapshot lives, worked out once from the folder the user named: the export writes
/// there, returns it in its outcome, and `publish` and `--history` take it as it is.
package struct SnapshotPlace: Sendable {
    /// The folder the user named (`--output`, or `publish DIR`).
    package let root: URL
    /// `--keep N`: the dated snapshots under `root`, with `latest` pointing at the newest.
    package let dated: DatedSnapshots?
    /// The private state between runs: beside `root`, never in what may be shared, or `--cache-dir`.
    package let stateFolder: URL
    /// Whether the state is where the tool puts it by default (not `--cache-dir`).
    package let stateBesideRoot: Bool

    package init(root: URL, keep: Int?, cacheDirectory: URL? = nil) {
        let dated = keep.map { DatedSnapshots(root: root, keep: $0) }
        self.root = dated?.root ?? root
        self.dated = dated
        stateFolder = cacheDirectory ?? SnapshotState.beside(dated?.root ?? root)
        stateBesideRoot = cacheDirectory == nil
    }

    /// A snapshot folder that is already there, as `publish` finds it: dated when it holds the
    /// `latest` link or a `snapshots/` folder. Nothing is removed through such a place.
    package static func existing(_ folder: URL, cacheDirectory: URL? = nil) -> SnapshotPlace {
        SnapshotPlace(root: folder, keep: DatedSnapshots.holdsDatedSnapshots(folder) ? Int.max : nil, cacheDirectory: cacheDirectory)
    }

    /// The folder a snapshot taken at `date` goes to: `root`, or with `--keep` that day's folder.
    package func folder(for date: SnapshotDate) -> URL {
        dated?.folder(for: date) ?? root
    }

    /// What the user opens: `root`, or with `--keep` its `latest` link.
    package var shown: URL { dated?.latest ?? root }

    /// Where `--history` keeps its git directory: beside the snapshot, as the private state is
    /// (`PARENT/.DIR.history.git`), never in what may be shared, uploaded or zipped whole. Every
    /// note the library ever held is in it, the ones `--no-notes` leaves out of tonight's included.
    package var gitDirectory: URL { Self.history(beside: root) }

    /// Where histories made before it moved out were kept: `DIR/.git`, or with `--keep`
    /// `DIR/history.git` (moved out by the next export with `--history`).
    package var gitDirectoryInside: URL {
        root.appendingPathComponent(dated == nil ? ".git" : "history.git")
    }

    /// `PARENT/.DIR.history.git` for the snapshot folder `root`.
    package static func history(beside root: URL) -> URL {
        let root = root.standardizedFileURL
        return root.deletingLastPathComponent().appendingPathComponent(".\(root.lastPathComponent).history.git")
    }
}
