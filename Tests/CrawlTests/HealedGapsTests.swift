import Testing
@testable import Crawl

/// Gaps that healed tonight are news, told once: a few in a line each, many (an outage healed)
/// in one line, with each of them under `--verbose`.
struct HealedGapsTests {
    @Test func aFewHealedGapsAreALineEach() {
        let lines = CrawlRun.healedLines([("Book 1: details fetched again (missing since 2026-11-20)", "2026-11-20"),
                                          ("Book 2: details fetched again", nil)], what: "books' details")
        #expect(lines.map(\.text) == ["Book 1: details fetched again (missing since 2026-11-20)", "Book 2: details fetched again"])
        #expect(lines.allSatisfy { $0.summary })
    }

    @Test func manyHealedGapsAreOneLineWithTheListUnderVerbose() {
        let healed = (1...623).map { ("Book \($0): details fetched again (missing since 2026-11-25)", Optional("2026-11-25")) }
        let lines = CrawlRun.healedLines(healed, what: "books' details")
        #expect(lines.filter(\.summary).map(\.text) == ["623 books' details fetched again; they had been missing since 2026-11-25"])
        #expect(lines.filter { !$0.summary }.count == 623)

        let mixed = CrawlRun.healedLines([("a", "2026-11-25"), ("b", "2026-11-20"), ("c", nil), ("d", "2026-11-25")], what: "covers")
        #expect(mixed.first?.text == "4 covers fetched again; they had been missing since 2026-11-20 at the earliest")
    }
}
