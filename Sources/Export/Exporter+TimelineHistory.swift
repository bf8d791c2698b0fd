import History
import LibraryArchive
import Timeline

/// `--history` on a night whose timeline begins (the last snapshot, an older version's, had
/// none): the nights the history kept fill in the time before.
extension Exporter {
    /// The history's nights, oldest first, told as the nights themselves would have told them
    /// (`TimelineBackfill`), then tonight's events on top; shown as tonight's privacy options show
    /// every night's. The timeline is the snapshot's, not the night's: a history that cannot be
    /// read is said, and the night goes on with the timeline begun tonight.
    func fillInTimeline(_ compared: consuming Compared, from history: NightHistory) async -> Compared {
        var compared = compared
        guard history.repository.exists else { return compared }
        let outcome = compared.outcome
        var backfill = TimelineBackfill()
        do {
            try await HistoryLog(history.repository).eachLibrary { _, library in try backfill.add(library) }
        } catch {
            logger.warning("The history could not fill in the timeline (\(error)): it begins tonight, from the books there are")
            return compared
        }
        guard let filled = backfill.withTonight(report: outcome.changes, library: outcome.library, unchanged: outcome.unchanged) else {
            return compared
        }
        compared.timeline.replace(with: settings.content.privacy.shown(filled, with: outcome.library))
        logger.info("The timeline begins with the history's nights, from \(filled.began)")
        return compared
    }
}
