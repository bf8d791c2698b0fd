import Crawl
import LibraryArchive
import Publish
import ReaderAPI
import SnapshotStore
import Vault

/// What a night did, in counts: what the command says and the metrics record. The night's own
/// values (its library, its change report) stay in the night and are let go with it.
package struct NightSummary: Sendable {
    package var books: Int
    package var shelves: Int
    package var booksWithNotes: Int
    /// Gaps, by kind: books whose details failed tonight (kept as the last snapshot had them or
    /// not), books without their cover, shelf pages not fetched.
    package var booksWithoutDetails: Int
    package var booksWithoutCover: Int
    package var shelfPagesNotFetched: Int
    /// Gaps the last snapshot did not list: news, where a gap still open is not.
    package var newGaps: Int
    /// The library was the same as in the previous snapshot: no file was rewritten.
    package var unchanged: Bool
    /// The change report's words: "first snapshot", "2 added, 1 edited", or nil for none.
    package var changes: String?
    package var network: ClientMetrics.Reading
    package var duration: Duration
    /// Where the snapshot is: `publish` takes it as it is.
    package var place: SnapshotPlace
    /// What `--markdown-into` did, when it was asked for.
    package var vault: Vault.Report?
    /// What `--publish` sent, when it was asked for and sent anything.
    package var published: Publishing.Outcome?
    /// The first step after the swap that failed (the Markdown, the history, the publish): the
    /// snapshot is in place, the command says what the night did, then this.
    package var failedAfterTheSwap: Error?

    package var hasGaps: Bool { booksWithoutDetails + booksWithoutCover + shelfPagesNotFetched > 0 }

    init(_ outcome: Exporter.Outcome, vault: Vault.Report?, duration: Duration) {
        let entries = outcome.library.entries, frame = outcome.library.frame
        books = entries.count
        shelves = frame.shelves.count
        booksWithNotes = entries.lazy.filter(\.hasNote).count
        booksWithoutDetails = frame.problems.filter { $0.kind == .bookDetails }.count
        booksWithoutCover = frame.problems.filter { $0.kind == .cover }.count
        shelfPagesNotFetched = frame.problems.filter { $0.kind == .shelfDetails }.count
        newGaps = outcome.newGaps
        unchanged = outcome.unchanged
        changes = outcome.unchanged || (outcome.changes.isEmpty && !outcome.changes.firstRun) ? nil : outcome.changes.summary
        network = outcome.network
        self.duration = duration
        place = outcome.place
        self.vault = vault
    }
}
