import ArgumentParser
import Foundation
import Logging
import SampleServer
import TestSupport
import Testing
@testable import Export
import ShareCards
@testable import Site
@testable import SnapshotStore
@testable import Support

/// The share cards drawn during the crawl take the title the pages take, in their language.
@Suite(.serialized)
struct CrawlCardTitleTests {
    /// Exported in German with a site address and no title, every share card the crawl drew is one
    /// a page names: none is taken out and drawn again by the render.
    @Test(arguments: ["de", "en"])
    func cardsDrawnDuringTheCrawlAreKept(_ language: String) async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("snapshot")
        let run = try await EndToEndTests.export(server, to: output, extra: ["--language", language, "--site-url", "https://books.example.org/", "-v"])
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        let drawn = SiteInspector.matches(of: #"Share cards drawn during the crawl: (\d+)"#, in: run.output).compactMap { Int($0) }
        let count = try #require(drawn.first, "\(run.output)")
        #expect(count > 0, "no card was drawn during the crawl: the test would prove nothing")
        #expect(!run.output.contains("taken out"), "\(run.output)")
        let cards = try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent(ShareCard.folder).path)
        #expect(cards.count >= count)
        // Every step is timed in a --verbose run, in the order it ran.
        let steps = SiteInspector.matches(of: #"Time: ([a-z ()]+): [0-9.]+ s"#, in: run.output)
        #expect(steps.first == "prepare the output" && steps.contains("crawl") && steps.last == "swap it into place", "\(steps)")
    }

    static let siteURL = "https://example.org/books/"

    @Test func booksCardsAreDrawnDuringTheCrawlAndAreTheOnesTheirPagesName() async throws {
        // Answers that take a while, as a real server's.
        let server = try await SampleServer.startSynthetic(books: 120, seed: 3, latency: .milliseconds(40))
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let exported = folder.path("exported"), rendered = folder.path("rendered")
        let run = try await EndToEndTests.export(server, to: exported, extra: ["--site-url", Self.siteURL, "--verbose"])
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        let line = try #require(run.output.split(separator: "\n").first { $0.contains("Share cards drawn during the crawl:") }, "\(run.output)")
        let drawn = Int(line.split(separator: ":").last?.split(separator: " ").first ?? "") ?? 0
        #expect(drawn > 0, "\(line)")
        // The same library rendered again with no crawl: the same cards, byte for byte, and no other.
        let render = try await ToolRunner.run(["render", "--from", exported.path, "--output", rendered.path, "--site-url", Self.siteURL])
        #expect(render.status == 0, "\(render.output)")
        let one = SiteInspector(root: exported), two = SiteInspector(root: rendered)
        let cards = one.files().filter { $0.hasPrefix("cards/") }
        #expect(cards.count > 120 && cards == two.files().filter { $0.hasPrefix("cards/") })
        for card in cards { #expect(one.data(card) == two.data(card), "\(card)") }
    }
}
