import Foundation
import SampleServer
import Testing
@testable import Site

/// The site's search (`assets/search/`, `assets/search.js`): folded terms in shards, as a reader's
/// browser loads them.
@Suite struct SearchTests {
    @Test func wordsAreFoldedAsTheBrowserFoldsAQuery() {
        #expect(SearchIndex.words("Brontë, Emily") == ["bronte", "emily"])
        #expect(SearchIndex.words("LAGERLÖF Selma") == ["lagerlof", "selma"])
        #expect(SearchIndex.words("978-0-14-143960-0") == ["978", "14", "143960"])
        // One character is no word; marks stay inside their word; other scripts are words too.
        #expect(SearchIndex.words("a I x9 é") == ["x9"])
        #expect(SearchIndex.words("مرتفعات وذرينغ") == ["مرتفعات", "وذرينغ"])
        #expect(SearchIndex.words("हिन्दी") == ["हिन्दी"])
        #expect(SearchIndex.words(String(repeating: "x", count: 41) + " ok") == ["ok"])
    }

    @Test func termsKnowTheirBooksAsGapsOnce() {
        var index = TermIndex()
        index.add(book: 3, words: ["river", "the", "river"])
        index.add(book: 4, words: ["the"])
        index.add(book: 16, words: ["river", "the"])
        let terms = Dictionary(uniqueKeysWithValues: index.sortedTerms().map { (index.text(of: $0), index.postings(of: $0)) })
        #expect(terms == ["river": "3,13", "the": "3,1,12"])
        #expect(index.sortedTerms().map(index.text) == ["river", "the"])
    }

    /// Thousands of terms (the table grows), long lists of books (cells chained), words of other
    /// scripts: the same text as a plain dictionary of strings gives.
    @Test func manyTermsAndLongListsAreKeptExactly() {
        var generator = SplitMix64(seed: 7)
        let vocabulary = (0..<5_000).map { number in
            number % 7 == 0 ? "wörd\(number)" : number % 11 == 0 ? "كلمة\(number)" : "w\(number)"
        }
        var index = TermIndex()
        var expected: [String: (last: Int32, text: String)] = [:]
        for book in Int32(0)..<3_000 {
            // Common words in most books, rare ones in a few.
            let words = (0..<20).map { _ in vocabulary[Int(generator.next() % 60)] } + (0..<10).map { _ in vocabulary[Int(generator.next() % 5_000)] }
            index.add(book: book, words: words)
            for word in words {
                if let entry = expected[word] {
                    if entry.last != book { expected[word] = (book, entry.text + ",\(book - entry.last)") }
                } else {
                    expected[word] = (book, "\(book)")
                }
            }
        }
        let terms = index.sortedTerms()
        #expect(terms.count == expected.count && terms.count > 4_000)
        #expect(terms.map(index.text) == expected.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        for term in terms {
            let text = index.text(of: term)
            #expect(index.postings(of: term) == expected[text]?.text, "\(text)")
            #expect(index.length(of: term) == expected[text]?.text.utf8.count)
        }
    }

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
        #expect(run.status == 0 || run.status == 2, "\(run.output)")

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
        ], accessibility: false, onlySearch: true)

        // The home page names no file of the index: a query loads what it needs.
        let index = try #require(SiteInspector(root: output).text("index.html"))
        #expect(!index.contains("assets/search/") && index.contains("assets/search.js"))
        let files = SiteInspector(root: output).files().filter { $0.hasPrefix("assets/search/") }
        #expect(files.contains("assets/search/manifest.js") && files.filter { $0.hasPrefix("assets/search/b-") }.count == 100)
    }
}
