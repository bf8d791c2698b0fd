import Foundation
import LibraryArchive
import Notes
import SnapshotStore
import TestSupport
import Testing
@testable import Site

/// `assets/lookup/`: every copy of a book under its ISBN's key, whatever form the server stored.
@Suite struct LookupIndexTests {
    /// The entries of each shard, as lookup.js receives them.
    static func shards(in folder: URL) throws -> [String: [[String]]] {
        let lookup = folder.appendingPathComponent("assets/lookup")
        var shards: [String: [[String]]] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: lookup.path) where file.hasPrefix("l-") {
            let text = try String(contentsOf: lookup.appendingPathComponent(file), encoding: .utf8)
            let key = String(file.dropFirst(2).dropLast(3))
            #expect(text.hasPrefix("READER_LOOKUP.shard(\"\(key)\",[") && text.hasSuffix("]);\n"))
            let array = text[text.index(after: text.firstIndex(of: ",")!)..<text.lastIndex(of: ")")!]
            shards[key] = try JSONDecoder().decode([[String]].self, from: Data(array.utf8))
        }
        return shards
    }

    @Test func everyCopyIsUnderItsKeyWhateverFormTheServerStored() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var library = SmallLibrary.hostile()
        let long = String(repeating: "A long reminder of <a href=\"https://example.org/edition\">the edition</a> to buy. ", count: 10)
        library.books += [
            Book(id: 20, title: "Dune, the paperback", author: "Frank Herbert", isbn: "0-441-01359-7", shelfID: 1, note: Note(receiving: "<div>\(long)</div>")),
            Book(id: 21, title: "Dune, stored wrongly", author: "Frank Herbert", isbn: "978 0441 013591", shelfID: 1),
            Book(id: 22, title: "A 979 book", isbn: "979-10-90636-07-1", shelfID: 1),
            // Numbers a server stores that are not ISBNs: a bookseller's, a UPC, a shop's EAN.
            Book(id: 23, title: "A bookseller's number", isbn: "2940012026620", shelfID: 1),
            Book(id: 24, title: "A UPC", isbn: "0785342657883", shelfID: 1),
            Book(id: 25, title: "A shop's EAN", isbn: "400-6381-33393-1", shelfID: 1),
        ]
        library.shelves[0].bookIDs += [20, 21, 22, 23, 24, 25]
        try SiteRenderer(templates: try await TemplateSet.bundled()).render(library, into: SnapshotWriter(root: folder.url))

        let manifest = try String(contentsOf: folder.url.appendingPathComponent("assets/lookup/manifest.js"), encoding: .utf8)
        let shards = try Self.shards(in: folder.url)
        #expect(manifest == "READER_LOOKUP.manifest({\"digits\":1,\"books\":7,\"shards\":[\(shards.keys.sorted().map { "\"\($0)\"" }.joined(separator: ","))]});\n")
        let entries = shards.values.flatMap { $0 }
        let dune = entries.filter { $0[0] == "978044101359" }
        #expect(Set(dune.map { $0[1] }) == ["Dune \"<script>alert(1)</script>\"", "Dune, the paperback", "Dune, stored wrongly"], "\(entries)")
        #expect(shards["9"]?.count == 3, "a shard is named by the digit before the check digit")
        #expect(entries.contains { $0[0] == "979109063607" && $0[1] == "A 979 book" })
        for (key, title) in [("294001202662", "A bookseller's number"), ("078534265788", "A UPC"), ("400638133393", "A shop's EAN")] {
            #expect(entries.contains { $0[0] == key && $0[1] == title }, "\(title)")
        }
        // The note's first words, without the link's address, cut at a word.
        let paperback = try #require(dune.first { $0[1] == "Dune, the paperback" })
        #expect(paperback[7].hasPrefix("A long reminder of the edition to buy. A long") && paperback[7].hasSuffix("…"), "\(paperback[7])")
        #expect(paperback[7].count <= LookupIndex.noteCharacters + 1 && !paperback[7].contains("https:"))
        #expect(paperback[4].hasPrefix("books/20-") && FileManager.default.fileExists(atPath: folder.url.appendingPathComponent(paperback[4]).path))
        // What a page shows is escaped in its script as in JSON: a title cannot end the script.
        let text = try String(contentsOf: folder.url.appendingPathComponent("assets/lookup/l-9.js"), encoding: .utf8)
        #expect(!text.contains("</script>"))
        #expect(FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("lookup.html").path))
    }

    @Test func aShardIsNamedByMoreDigitsAsTheLibraryGrows() {
        #expect(LookupIndex.shardDigits(books: 30) == 1)
        #expect(LookupIndex.shardDigits(books: 10_000) == 2)
        #expect(LookupIndex.shardDigits(books: 100_000) == 3)
    }

    /// An author's key is the same however the name is written; lookup.js makes the same keys (the
    /// browser check asks it for these) and the same shard numbers.
    @Test(arguments: [("Brontë, Emily", "bronte emily"), ("Emily BRONTE", "bronte emily"), ("Ursula K. Le Guin", "guin k le ursula"),
                      ("  ", ""), ("紫式部", "紫式部"), ("Ｆｕｌｌ Width", "full width")])
    func anAuthorsKeyIsTheSameHoweverTheNameIsWritten(_ name: String, _ key: String) {
        #expect(LookupIndex.authorKey(name) == key)
    }

    @Test func authorShardsAreNumberedByFNV1aAsTheBrowserNumbersThem() {
        // FNV-1a's own test vectors (32 bits).
        #expect(LookupIndex.fnv1a("") == 0x811c9dc5 && LookupIndex.fnv1a("a") == 0xe40c292c && LookupIndex.fnv1a("foobar") == 0xbf9cf968)
    }

    /// With `--lookup-online`, the authors' shards name each author's books and page; without it,
    /// none is written and the manifest is as it was.
    @Test func theAuthorsAreWrittenOnlyForALookupOnline() async throws {
        let templates = try await TemplateSet.bundled()
        let library = RenderTests.libraryOfThirtyThree()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let plain = folder.url.appendingPathComponent("plain"), online = folder.url.appendingPathComponent("online")
        try SiteRenderer(templates: templates).render(library, into: SnapshotWriter(root: plain))
        var site = SiteIdentity(templates: templates)
        site.lookupOnline = URL(string: "https://openlibrary.org/")
        try SiteRenderer(site: site).render(library, into: SnapshotWriter(root: online))

        let plainFiles = try FileManager.default.contentsOfDirectory(atPath: plain.appendingPathComponent("assets/lookup").path)
        #expect(!plainFiles.contains { $0.hasPrefix("a-") })
        #expect(try String(contentsOf: plain.appendingPathComponent("assets/lookup/manifest.js"), encoding: .utf8).contains("authorShards") == false)
        let manifest = try String(contentsOf: online.appendingPathComponent("assets/lookup/manifest.js"), encoding: .utf8)
        #expect(manifest.hasSuffix(",\"authorShards\":1});\n"), "\(manifest)")
        let text = try String(contentsOf: online.appendingPathComponent("assets/lookup/a-0.js"), encoding: .utf8)
        let array = text[text.index(after: text.firstIndex(of: ",")!)..<text.lastIndex(of: ")")!]
        let authors = try #require(try JSONSerialization.jsonObject(with: Data(array.utf8)) as? [[Any]])
        let named = Set(library.books.compactMap(\.author).filter { !$0.isEmpty })
        #expect(authors.count == named.count)
        for author in authors {
            let (key, name, page, count) = (author[0] as? String, author[1] as? String, author[2] as? String, author[3] as? Int)
            let books = try #require(author[4] as? [[String]])
            #expect(key == name.map(LookupIndex.authorKey) && named.contains(name ?? ""))
            #expect(count == library.books.filter { $0.author == name }.count && books.count == min(count ?? 0, LookupIndex.booksPerAuthor))
            #expect(FileManager.default.fileExists(atPath: online.appendingPathComponent(page ?? "-").path), "\(page ?? "")")
            for book in books { #expect(FileManager.default.fileExists(atPath: online.appendingPathComponent(book[1]).path), "\(book)") }
        }
        // Only lookup.html may reach Open Library; the other pages are as they were.
        let lookup = try String(contentsOf: online.appendingPathComponent("lookup.html"), encoding: .utf8)
        #expect(lookup.contains("form-action 'none'; connect-src https://openlibrary.org\">") && lookup.contains("data-online=\"https://openlibrary.org/\""))
        #expect(try String(contentsOf: online.appendingPathComponent("index.html"), encoding: .utf8)
                == String(contentsOf: plain.appendingPathComponent("index.html"), encoding: .utf8))
    }
}

