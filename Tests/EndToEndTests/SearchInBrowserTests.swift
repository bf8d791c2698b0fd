import Foundation
import SampleServer
import TestSupport
import Testing
@testable import Site

/// The search page in Chromium, over an exported library.
@Suite(.serialized)
struct SearchInBrowserTests {
    /// At 10,000 books, from file://, as a reader types: a title word, an author typed without the
    /// accent of the name, a word of a note; the home page loads none of the index.
    @Test func aBrowserFindsBooksInATenThousandBookLibrary() async throws {
        let seed: UInt64 = 21
        let server = try await HistoryTests.startServer(books: 10_000, seed: seed)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("out")
        let run = try await EndToEndTests.export(server, to: output, extra: ["--format", "html", "--no-thumbnails"])
        await server.stop()
        #expect(run.status == 0, "\(run.output)")

        // Which books to look for: the server's library, made again from the same seed (numbers of four
        // digits, not 1000, whose number begins 10000's: a query's word of one character is no word).
        let books = try SampleLibrary.synthetic(books: 10_000, seed: seed).books
        func author(_ book: SampleLibrary.Book) -> String { if case .string(let name) = book.author { name } else { "" } }
        let titled = try #require(books.first { $0.id == 4_711 })
        let noun = try #require(titled.title.split(separator: " ").dropFirst(2).first).lowercased()
        let bronte = try #require(books.first { $0.id > 1_000 && author($0).contains("Brontë") })
        let note = try #require(books.first { $0.id > 1_000 && $0.comments.contains("one sitting") })
        try await HostileInputTests.checkInBrowser(output, searches: [
            ("\(noun) 4711", titled.title),
            ("bronte \(bronte.id)", bronte.title),
            // (A number can also be part of another book's ISBN: the title's last word narrows it down.)
            ("Sitting \(try #require(note.title.split(separator: " ").dropFirst(2).first)) \(note.id)", note.title),
        ], more: ["bronte"], accessibility: false, onlySearch: true)

        // The home page names no file of the index: a query loads what it needs.
        let index = try #require(SiteInspector(root: output).text("index.html"))
        #expect(!index.contains("assets/search/") && index.contains("assets/search.js"))
        let files = SiteInspector(root: output).files().filter { $0.hasPrefix("assets/search/") }
        #expect(files.contains("assets/search/manifest.js") && files.filter { $0.hasPrefix("assets/search/b-") }.count == 100)
    }
}
