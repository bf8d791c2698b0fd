import Foundation
import SampleServer
import SnapshotStore
import TestSupport
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

    /// The manifest names every shard there is, and no other: search.js loads no file for a word
    /// no term begins with (a missing script is an error in the browser's console).
    @Test func theManifestNamesEveryShardThereIs() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try SiteRenderer(templates: try await TemplateSet.bundled()).render(RenderTests.libraryOfThirtyThree(), into: SnapshotWriter(root: folder.url))
        let search = folder.url.appendingPathComponent("assets/search")
        let text = try String(contentsOf: search.appendingPathComponent("manifest.js"), encoding: .utf8)
        let json = try #require(text.firstIndex(of: "(").map { text[text.index(after: $0)..<text.lastIndex(of: ")")!] })
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let shards = try #require(manifest["shards"] as? [String: String])
        let listed = Set(shards.flatMap { parent, children in children.unicodeScalars.map { SearchIndex.shardName(parent + String($0)) } })
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: search.path).filter { $0.hasPrefix("t-") }.map { String($0.dropFirst(2).dropLast(3)) })
        #expect(listed == files && files.count > 20, "\(listed.symmetricDifference(files))")
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
}
