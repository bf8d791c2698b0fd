import LibraryArchive

/// The nights before a timeline began, told again from the libraries an earlier `--history` kept:
/// each night's `library.json`, oldest first, compared with the one before it by the same change
/// report and the same event-making as a night's (`Timeline.tonight`). The first library gives
/// the arrivals, each dated by the server; every later one, the events of its own night.
///
/// It holds two libraries at most, the night before and the one it is handed: a history of
/// 100,000 books is read one night at a time, never whole.
package struct TimelineBackfill: Sendable {
    package private(set) var told: Timeline?
    private var previous: LibraryFile?

    package init() {}

    /// One night's library, after the nights handed before it.
    package mutating func add(_ library: LibraryFile) throws {
        let report = try ChangeReport.compare(previous: previous, current: library)
        told = Timeline.tonight(last: told, report: report, library: library)
        previous = library
    }

    /// The timeline with tonight on top: tonight's report compared the last snapshot's library
    /// with tonight's, so its events follow the history's last night. On a night that changed
    /// nothing (`unchanged`), the report is the last night's, which the history told already.
    package func withTonight(report: ChangeReport, library: LibraryFile, unchanged: Bool) -> Timeline? {
        guard let told else { return nil }
        return unchanged ? told : Timeline.tonight(last: told, report: report, library: library)
    }
}
