import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import SampleServer
import TestSupport
import Testing

/// The formats people import elsewhere, and what privacy options leave out of all of them.
@Suite(.serialized)
struct CatalogExportTests {
    @Test func goodreadsCSVAndAtomFeed() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("out")
        let run = try await EndToEndTests.export(server, to: output, extra: ["--format", "csv,feed"])
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        let site = SiteInspector(root: output)
        // With the site's feed, a feed for each shelf beside where its page would be.
        #expect(site.files().filter { !$0.hasPrefix(".reader-snapshot/") && !$0.hasPrefix("covers/") && !$0.hasPrefix("shelves/") }.sorted()
                == ["changes.json", "feed.xml", "library.csv", "timeline.json", "timeline.xml"])
        #expect(site.files().filter { $0.hasPrefix("shelves/") }.allSatisfy { $0.hasSuffix(".xml") })
        #expect(site.files().filter { $0.hasPrefix("shelves/") }.count == 6)

        let csv = try #require(site.text("library.csv"))
        let lines = csv.components(separatedBy: "\r\n")
        #expect(lines[0].hasPrefix("Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,"))
        #expect(lines[0].hasSuffix(",Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies"))
        let dune = try #require(lines.first { $0.hasPrefix("101,") })
        #expect(dune.contains(#""=""0141439513""","=""9780141439518"""#), "\(dune)")
        #expect(dune.contains(",2024/01/03,currently-reading,currently-reading (#1),currently-reading,"), "\(dune)")
        #expect(dune.contains("Loved it."))
        // Read back as Python's csv module reads it, by the header's names: the note is in Private
        // Notes, which Goodreads keeps private on import; My Review, which it publishes, is empty.
        let script = """
            import csv, json, sys
            rows = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")))
            print(json.dumps({row["Book Id"]: [row["My Review"], row["Private Notes"], row["Exclusive Shelf"]] for row in rows}))
            """
        let (status, read) = try await ToolRunner.runChecker("/usr/bin/python3", ["-c", script, output.appendingPathComponent("library.csv").path])
        #expect(status == 0, "\(read)")
        let cells = try #require(try JSONSerialization.jsonObject(with: Data(read.utf8)) as? [String: [String]], "\(read)")
        #expect(cells.count == 30)
        #expect(cells["101"]?[0] == "")
        #expect(cells["101"]?[1].contains("Loved it.") == true, "\(String(describing: cells["101"]))")
        #expect(cells["101"]?[2] == "currently-reading")
        #expect(cells.values.allSatisfy { $0[0].isEmpty }, "a note in My Review")

        let feed = try #require(site.data("feed.xml"))
        let parser = XMLParser(data: feed)
        #expect(parser.parse(), "feed.xml is not well-formed XML: \(String(describing: parser.parserError))")
        let text = String(decoding: feed, as: UTF8.self)
        #expect(text.components(separatedBy: "<entry>").count - 1 == 30)
        // Newest first, dated by the books, not by the run.
        #expect(text.contains("<updated>2024-12-20T09:30:00.000Z</updated>\n  <author><name>Library</name></author>\n  <link rel=\"alternate\" href=\"index.html\"/>"))
        let first = try #require(text.range(of: "<entry>"))
        #expect(text[first.upperBound...].hasPrefix("\n    <title>The Picture of Dorian Gray</title>"))
    }

    @Test func excludedShelvesNotesAndCoversAreInNoFile() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("out")
        let run = try await EndToEndTests.export(server, to: output, extra: [
            "--exclude-shelf", "classics", "--exclude-shelf", "5", "--no-notes", "--no-covers",
        ])
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        let site = SiteInspector(root: output)
        #expect(!site.files().contains { $0.hasPrefix("covers/") })
        // Words only an excluded shelf, an excluded book or a note would bring, looked for as the
        // search index stores them (folded) in every file.
        let absent = ["Classics", "Dracula", "Middlemarch", "Little Women", "The Time Machine", "Emma",
                      "Loved it", "Reader, I married him", "Project Gutenberg", "active_storage"] + EndToEndTests.noteWords
        let leaks = site.holding(absent)
        #expect(leaks.isEmpty, "\(leaks.prefix(10))")
        // The check sees the index: a shared author's name, written "Austen", is found there folded.
        #expect(site.holding(["AUSTEN"]).contains { $0.hasPrefix("assets/search/t-") }, "\(site.holding(["AUSTEN"]))")
        // What remains is all there.
        #expect(site.files().contains("books/101-pride-and-prejudice.html"))
        #expect(site.files().contains { $0.hasPrefix("shelves/1-") })
        #expect(!site.files().contains { $0.hasPrefix("shelves/2-") || $0.hasPrefix("shelves/5") })
    }

    /// A shelf to leave out that matches no shelf is refused before a book's details are asked for
    /// or anything is written, with the closest names: a typo must not share the shelf it meant to hide.
    @Test func aShelfToLeaveOutThatMatchesNoneIsRefusedWithNothingWritten() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("out")
        let typo = try await EndToEndTests.export(server, to: output, extra: ["--exclude-shelf", "classics", "--exclude-shelf", "favourites"])
        #expect(typo.status == 64, "\(typo.output)")
        #expect(typo.stderr.contains(#"error: --exclude-shelf favourites: no shelf has that name or id; the closest: "Favourites ★" (id 4)"#), "\(typo.stderr)")
        #expect(!typo.stderr.contains("--exclude-shelf classics"), "\(typo.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path), "the output was written")
        #expect(!FileManager.default.fileExists(atPath: stateFolder(of: output).path), "the state was written")

        // Over a snapshot already there, that snapshot stays as it was.
        #expect(try await EndToEndTests.export(server, to: output).status == 2)
        let before = SiteInspector(root: output).fingerprints()
        let again = try await EndToEndTests.export(server, to: output, extra: ["--exclude-shelf", "favourites ★", "--exclude-shelf", "99"])
        await server.stop()
        #expect(again.status == 64, "\(again.output)")
        #expect(again.stderr.contains("error: --exclude-shelf 99: no shelf has that name or id; the shelves: \""), "\(again.stderr)")
        #expect(SnapshotSwapSafetyTests.changed(before, SiteInspector(root: output).fingerprints()).isEmpty)
    }

    @Test func siteURLAddsSitemapOpenGraphAndAbsoluteFeedLinks() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let with = folder.path("with"), without = folder.path("without")
        #expect(try await EndToEndTests.export(server, to: with, extra: ["--site-url", "https://example.org/books"]).status == 2)
        #expect(try await EndToEndTests.export(server, to: without).status == 2)
        let bad = try await EndToEndTests.export(server, to: folder.path("bad"), extra: ["--site-url", "example.org"])
        await server.stop()
        #expect(bad.status == 64 && bad.stderr.contains("--site-url"), "\(bad.output)")

        let site = SiteInspector(root: with)
        let sitemap = try #require(site.text("sitemap.xml"))
        #expect(sitemap.contains("<loc>https://example.org/books/books/104-dracula.html</loc>"))
        #expect(sitemap.components(separatedBy: "<url>").count - 1 == site.files().filter { $0.hasSuffix(".html") }.count)
        let page = try #require(site.text("books/104-dracula.html"))
        #expect(page.contains(#"<meta property="og:url" content="https://example.org/books/books/104-dracula.html">"#))
        #expect(page.contains(#""@type":"Book""#) && page.contains(#""isbn":"9780486411095""#))
        // Each page's preview shows a share card of its own, drawn from the covers the crawl kept
        // (the sample server's PNGs, JPEGs and the covers it cannot give included).
        let image = try #require(SiteInspector.metaTags(page)["og:image"])
        #expect(image.hasPrefix("https://example.org/books/cards/"))
        let cards = site.files().filter { $0.hasPrefix("cards/") }
        #expect(cards.contains(String(image.dropFirst("https://example.org/books/".count))))
        let pages = site.files().filter { $0.hasSuffix(".html") }
        for path in pages {
            let html = try #require(site.text(path))
            let card = try #require(SiteInspector.metaTags(html)["og:image"], "\(path)")
            #expect(cards.contains(String(card.dropFirst("https://example.org/books/".count))), "\(path): \(card)")
        }
        #expect(try #require(site.text("feed.xml")).contains(#"href="https://example.org/books/books/130-the-picture-of-dorian-gray.html""#))

        let plain = SiteInspector(root: without)
        #expect(!plain.files().contains("sitemap.xml"))
        #expect(!plain.files().contains { $0.hasPrefix("cards/") })
        #expect(!(plain.text("books/104-dracula.html") ?? "").contains("og:url"))
        #expect((plain.text("books/104-dracula.html") ?? "").contains(#""@type":"Book""#))
    }
}
