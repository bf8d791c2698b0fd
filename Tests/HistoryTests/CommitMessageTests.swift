@testable import LibraryArchive
import Testing
@testable import History

/// A night's commit message: the counts as the run's summary gives them, then a line a book.
@Suite struct CommitMessageTests {
    static func report(added: Int = 0, removed: Int = 0, moved: Int = 0, edited: [ChangeReport.Edit] = []) -> ChangeReport {
        var report = ChangeReport(firstRun: false, previousGeneratedAt: "2026-11-23T03:15:00Z", generatedAt: "2026-11-24T03:15:00Z")
        report.added = (0..<added).map { ChangeReport.Entry(id: 100 + $0, title: "Added \($0)") }
        report.removed = (0..<removed).map { ChangeReport.Entry(id: 200 + $0, title: "Removed \($0)") }
        report.moved = (0..<moved).map { ChangeReport.Move(id: 300 + $0, title: "Moved \($0)", from: ["To read"], to: ["Read"]) }
        report.edited = edited
        return report
    }

    @Test func theCountsLeaveZerosOutInTheChangesPagesOrder() {
        let report = Self.report(removed: 1, moved: 1, edited: [ChangeReport.Edit(id: 7, title: "Emma", fields: ["note"])])
        let message = CommitMessage(changes: report, date: "2026-11-24T03:15:00Z", books: 30)
        #expect(message.subject == "2026-11-24: 1 removed, 1 moved, 1 edited")
        #expect(message.subject.hasSuffix(report.summary), "the commit says what the run's summary says")
        #expect(message.text.hasSuffix("\n\nremoved: Removed 0\nmoved: Moved 0 (To read → Read)\nedited: Emma (note)\n"), "\(message.text)")
    }

    @Test func aRenamedBookIsToldWithTheTitleItHad() {
        let report = Self.report(edited: [ChangeReport.Edit(id: 7, title: "Emma: A Novel", fields: ["title", "note"], formerTitle: "Emma")])
        let message = CommitMessage(changes: report, date: "2026-11-24", books: 30)
        #expect(message.text.contains("edited: Emma: A Novel (title, was Emma, note)"), "\(message.text)")
    }

    @Test func theFirstNightAndANightOfOtherFilesSaySo() {
        let first = ChangeReport(firstRun: true, previousGeneratedAt: nil, generatedAt: "2026-11-23T03:15:00Z")
        #expect(CommitMessage(changes: first, date: "2026-11-23", books: 1062).text == "2026-11-23: first snapshot, 1062 books\n")
        #expect(CommitMessage(changes: Self.report(), date: "2026-11-24", books: 30).text == "2026-11-24: the files changed, no book did\n")
    }

    @Test func aNightOfThousandsOfBooksSaysHowManyMore() {
        let message = CommitMessage(changes: Self.report(added: CommitMessage.mostLines + 20), date: "2026-11-24", books: 1_000)
        let lines = message.text.split(separator: "\n")
        #expect(lines.count == CommitMessage.mostLines + 2 && lines.last == "… and 20 more", "\(lines.suffix(2))")
    }
}
