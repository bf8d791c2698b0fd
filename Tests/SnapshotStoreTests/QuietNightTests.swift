import Foundation
import TestSupport
import Testing
@testable import SnapshotStore

/// What the last quiet night found: it stands only under the same options and until something
/// waiting is due, and any run that writes the state lets it go.
struct QuietNightTests {
    static let night = QuietNight(shelves: "\"s1\"", books: "\"b1\"", options: "options", until: 1_700_086_400,
                                  lines: [QuietNight.Line(level: "info", text: "Shelves: 5")], coversReused: 24, coversFailed: 1)

    @Test func itStandsUnderTheSameOptionsUntilSomethingWaitingIsDue() {
        let night = Self.night
        #expect(night.stands(options: "options", now: 1_700_000_000))
        #expect(!night.stands(options: "other options", now: 1_700_000_000))
        #expect(night.stands(options: "options", now: 1_700_086_399))
        #expect(!night.stands(options: "options", now: 1_700_086_400), "the first failure is due: the crawl asks for it")
        var nothingWaits = night
        nothingWaits.until = nil
        #expect(nothingWaits.stands(options: "options", now: Int.max))
    }

    @Test func theScheduleSaysWhenItsFirstFailureIsDue() {
        var schedule = RetrySchedule()
        #expect(schedule.nextDue == nil)
        schedule.details["7"] = RetrySchedule.Failure(lastTried: 1_700_000_000, tries: 2, message: "HTTP 500")
        schedule.covers["https://covers.example/1.jpg"] = RetrySchedule.Failure(lastTried: 1_700_000_000, tries: 3, message: "gone")
        #expect(schedule.nextDue == 1_700_000_000 + 86_400 - 3_600)
    }

    @Test func itReadsBackAsWrittenAndGoesWhenTheStateIsWritten() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let state = folder.path("state")
        try SnapshotState.makePrivateFolder(state)
        try SnapshotState().writeAnswers(to: state)
        try Self.night.write(to: state)
        #expect(QuietNight.read(from: state) == Self.night)
        #expect(SnapshotState.read(from: state).quietNight == Self.night)
        let file = state.appendingPathComponent(QuietNight.fileName)
        #expect((try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int) == 0o600)
        // A night that failed again, or any that renders, writes the state: what the quiet night
        // found was found against the state before.
        var retried = SnapshotState()
        retried.retry.details["7"] = RetrySchedule.Failure(lastTried: 1_700_000_000, tries: 1, message: "HTTP 500")
        try retried.writeAnswers(to: state)
        #expect(QuietNight.read(from: state) == nil)
        #expect(SnapshotState.read(from: state).quietNight == nil)
        // Written again over nothing: no error.
        try retried.writeAnswers(to: state)
        try Data("not JSON".utf8).write(to: file)
        #expect(QuietNight.read(from: state) == nil, "an unreadable record is no record: the night crawls")
    }
}
