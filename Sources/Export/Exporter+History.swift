import Foundation
import History
import LibraryArchive
import Site
import SnapshotStore
import Support

/// `--history`, a step the night takes or not: the repository beside the snapshot, and who its
/// commits are by. Planned once (`Exporter.run`), it carries what each of its steps needs.
struct NightHistory: Sendable {
    let repository: HistoryRepository
    let author: HistoryRepository.Author
}

/// `--history`'s steps: made ready before the login, the night's commit noted as due before the
/// swap, and made after it.
extension Exporter {
    /// The history moved beside the snapshot if an older version kept it inside, checked to be
    /// ours, and the commit a killed run left made.
    func prepareHistory(_ prepared: consuming Prepared, _ history: NightHistory) async throws -> Prepared {
        let prepared = prepared
        let place = prepared.output.place
        try await moveHistoryOut(of: place, to: history.repository)
        try await history.repository.checkOwned()
        await finishLastCommit(history.repository, snapshot: place.dated?.newest ?? prepared.output.swap.previous)
        return prepared
    }

    /// A history made before it moved beside the snapshot is moved there once, if it is ours: a
    /// repository of the user's in the folder stays theirs, untouched.
    func moveHistoryOut(of place: SnapshotPlace, to history: HistoryRepository) async throws {
        let inside = HistoryRepository(gitDirectory: place.gitDirectoryInside)
        // A repository inside that is not ours (`checkOwned` throws) is the user's: it is left.
        guard !history.exists, inside.exists, (try? await inside.checkOwned()) != nil else { return }
        do {
            try FileManager.default.moveItem(at: inside.gitDirectory, to: history.gitDirectory)
        } catch {
            throw SnapshotError(.notWritable(detail: "could not move the history out of the snapshot, to \(history.gitDirectory.path): \(SnapshotWriter.describe(error))"),
                                path: inside.gitDirectory.path)
        }
        logger.info("The history moved beside the snapshot, out of what may be shared: \(history.gitDirectory.path)")
    }

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

    /// Said before the swap: a run killed between the swap and its commit leaves the commit to
    /// the next run, even when that run finds nothing new.
    func markCommitDue(_ made: consuming Made<NightMade>, in history: NightHistory) throws -> Made<NightMade> {
        let made = made
        let outcome = made.kept.outcome
        if history.repository.exists, outcome.decision.writesNewFiles {
            history.repository.markPending(nightCommit(outcome, history: history))
        }
        return made
    }

    /// The night's text committed. A commit git could not make (a full disk, a damaged
    /// repository) is told as the commit's; git gone, or a repository not ours, keeps its own words
    /// and exit code: what decides the code is not flattened.
    func commitHistory(_ swapped: Swapped, to history: NightHistory) async throws -> Swapped {
        let snapshot = swapped.output.place.dated?.newest ?? swapped.output.target
        let commit = nightCommit(swapped.outcome, history: history)
        let recorded: HistoryRepository.Recorded
        do {
            recorded = try await history.repository.record(snapshot, as: commit, keeping: OutputFormat.files)
        } catch let error as HistoryError {
            guard case .gitFailed = error.reason else { throw error }
            throw HistoryError(.commitFailed(detail: error.description), path: history.repository.gitDirectory.path)
        } catch {
            throw HistoryError(.commitFailed(detail: SnapshotWriter.describe(error)), path: history.repository.gitDirectory.path)
        }
        if case .committed(let id) = recorded {
            logger.info("History: committed \(id.prefix(12)), \(commit.message.subject)")
        }
        return swapped
    }

    /// The night's commit: the change report in short, dated by the snapshot.
    func nightCommit(_ outcome: Outcome, history: NightHistory) -> HistoryRepository.Commit {
        let date = outcome.library.frame.generatedAt
        var changes = outcome.changes
        // The same library, rendered anew (other templates): the report kept is the night before's.
        if outcome.unchanged { changes = .nothing(at: date) }
        // The first commit holds the whole library, whatever the report says of the night before.
        if !history.repository.exists { changes.firstRun = true }
        let message = CommitMessage(changes: changes, date: date, books: outcome.library.count)
        // The library's date is tonight's or, when nothing changed, the last snapshot's; one that
        // cannot be read is dated tonight, never 1970.
        let seconds = SnapshotDate(parsing: date)?.seconds ?? settings.date.seconds
        return HistoryRepository.Commit(message: message, date: seconds, author: history.author)
    }
}
