import Foundation
import History
import LibraryArchive
import Site
import Support

/// `--history`: a night's commit, and the one a killed run left.
extension Exporter {
    /// The commit a killed or failed run could not make, made from the snapshot it was for
    /// before this run replaces it.
    /// Not a reason to stop the night: when git fails here too, this run's own commit, after the
    /// snapshot is swapped into place, says so.
    func finishLastCommit(_ history: HistoryRepository, snapshot: URL?) async {
        guard let pending = history.pending, let snapshot else { return }
        logger.info("History: making the commit the last run could not (\(pending.message.subject))")
        do {
            _ = try await history.record(snapshot, as: pending, keeping: OutputFormat.files)
        } catch {
            logger.warning("History: the last run's commit could not be made (\(error)); this run's commit will hold its changes")
        }
    }

    /// The snapshot's text, committed if it changed; the message is the change report in short.
    func commit(_ result: Outcome, to history: HistoryRepository, snapshot: URL,
                        author: HistoryRepository.Author) async throws -> HistoryRepository.Recorded {
        let commit = nightCommit(result, history: history, author: author)
        let recorded = try await history.record(snapshot, as: commit, keeping: OutputFormat.files)
        if case .committed(let id) = recorded {
            logger.info("History: committed \(id.prefix(12)), \(commit.message.subject)")
        }
        return recorded
    }

    /// The night's commit: the change report in short, dated by the snapshot.
    func nightCommit(_ result: Outcome, history: HistoryRepository, author: HistoryRepository.Author) -> HistoryRepository.Commit {
        let date = result.library.frame.generatedAt
        var changes = result.changes
        // The same library, rendered anew (other templates): the report kept is the night before's.
        if result.unchanged { changes = .nothing(at: date) }
        // The first commit holds the whole library, whatever the report says of the night before.
        if !history.exists { changes.firstRun = true }
        let message = CommitMessage(changes: changes, date: date, books: result.library.count)
        // The library's date is tonight's or, when nothing changed, the last snapshot's; one that
        // cannot be read is dated tonight, never 1970.
        let seconds = SnapshotDate(parsing: date)?.seconds ?? settings.date.seconds
        return HistoryRepository.Commit(message: message, date: seconds, author: author)
    }
}
