import Foundation
import LibraryArchive
import SnapshotStore
import Support

/// `assets/lookup/`: "do I have this book?" by ISBN, for lookup.html, offline and at any size. A
/// lookup loads the manifest and one shard, as scripts (they load from file:// too), each handing
/// its part to `READER_LOOKUP` (assets/lookup.js):
///
/// - `manifest.js`: how many digits name a shard, and which shards there are;
/// - `l-<digits>.js`: the books whose ISBN-13 has those digits before its check digit, each as
///   its lookup key (`ISBN.lookupKey`), title, author, shelf, page, thumbnail (1× and 2×) and the
///   note's first words.
///
/// The digits before the check digit spread books evenly: at 100,000 books, a thousand shards of
/// about a hundred books each, well under the 30 kB a lookup may fetch.
enum LookupIndex {
    static let folder = "assets/lookup/"
    /// What the answer shows of the note: its first words, as a reminder.
    static let noteCharacters = 160

    static func shardDigits(books: Int) -> Int {
        books <= 2_000 ? 1 : books <= 20_000 ? 2 : 3
    }

    static func write(_ model: SiteModel, notes: NoteTexts, authors: Bool = false, into writer: SnapshotWriter) throws {
        let digits = shardDigits(books: model.books.count)
        // The books by shard first (their keys only): the entries are made a shard at a time, and
        // a big library's whole index is never held at once.
        var keyed: [(shard: String, key: String, place: Int)] = []
        for place in model.books {
            guard let key = ISBN.lookupKey(model.library.entries[place].isbn) else { continue }
            keyed.append((String(key.suffix(digits)), key, place))
        }
        keyed.sort { ($0.shard, $0.key, $0.place) < ($1.shard, $1.key, $1.place) }
        var shards: [String] = []
        var start = 0
        while start < keyed.count {
            let shard = keyed[start].shard
            var end = start
            var entries: [String] = []
            while end < keyed.count, keyed[end].shard == shard {
                entries.append(try entry(keyed[end].key, place: keyed[end].place, in: model, notes: notes))
                end += 1
            }
            try writer.write("READER_LOOKUP.shard(\"\(shard)\",[\n" + entries.joined(separator: ",\n") + "]);\n", to: folder + "l-\(shard).js")
            shards.append(shard)
            start = end
        }
        var manifest = "{\"digits\":\(digits),\"books\":\(keyed.count),\"shards\":[" + shards.map(SiteModel.jsonString).joined(separator: ",") + "]"
        if authors { manifest += ",\"authorShards\":\(try writeAuthors(model, into: writer))" }
        manifest += "}"
        try writer.write("READER_LOOKUP.manifest(\(manifest));\n", to: folder + "manifest.js")
    }

    private static func entry(_ key: String, place: Int, in model: SiteModel, notes: NoteTexts) throws -> String {
        let view = model.bookView(place)
        // The note's plain text has a link's words without its address: a reminder reads "the
        // Penguin edition", not a URL.
        let fields = [key, view.title, view.author ?? "", model.shelfName(of: place) ?? "", view.href, view.cover?.list ?? "", view.cover?.list2x ?? "",
                      excerpt(String(try notes.plainText(of: place).prefix(noteCharacters * 2)))]
        return "[" + fields.map(SiteModel.jsonString).joined(separator: ",") + "]"
    }

    /// With `--lookup-online`, `a-<n>.js`: the library's authors by `authorKey`, for an ISBN the
    /// library lacks whose author Open Library names. Each as its key, its name, its page, its
    /// number of books and the first of them (title and page), spread over as many shards as keep
    /// about a hundred authors each. Gives the number of shards.
    static func writeAuthors(_ model: SiteModel, into writer: SnapshotWriter) throws -> Int {
        let named = model.authors.authors.compactMap { author in author.name.map { (author, authorKey($0)) } }.filter { !$0.1.isEmpty }
        var bits = 0
        while bits < 12, named.count > authorsPerShard << bits { bits += 1 }
        let count = 1 << bits
        var shards = [[String]](repeating: [], count: count)
        for (author, key) in named {
            let books = author.books.prefix(booksPerAuthor).map { place -> String in
                let view = model.bookView(place)
                return "[" + SiteModel.jsonString(view.title) + "," + SiteModel.jsonString(view.href) + "]"
            }
            let fields = [key, author.displayName, "authors/\(author.fileName).html"].map(SiteModel.jsonString)
            shards[Int(fnv1a(key) % UInt32(count))].append("[" + fields.joined(separator: ",") + ",\(author.books.count),[" + books.joined(separator: ",") + "]]")
        }
        for (number, entries) in shards.enumerated() {
            try writer.write("READER_LOOKUP.authors(\(number),[\n" + entries.joined(separator: ",\n") + "]);\n", to: folder + "a-\(number).js")
        }
        return count
    }

    static let authorsPerShard = 100
    /// The books an answer lists by an author; the author's page has the rest.
    static let booksPerAuthor = 5

    /// An author's name as both Open Library and the server may write it: compatibility-decomposed,
    /// without accents, lower case, its words (letters and digits) in order, so that "Brontë,
    /// Emily" and "Emily Bronte" meet. lookup.js makes the same key the same way.
    static func authorKey(_ name: String) -> String {
        let bare = String(String.UnicodeScalarView(name.decomposedStringWithCompatibilityMapping.unicodeScalars.filter { !(0x300...0x36F).contains($0.value) }))
        var words: [String] = []
        var word = String.UnicodeScalarView()
        for scalar in bare.lowercased().unicodeScalars {
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber, .letterNumber, .otherNumber:
                word.append(scalar)
            default:
                if !word.isEmpty { words.append(String(word)) }
                word = String.UnicodeScalarView()
            }
        }
        if !word.isEmpty { words.append(String(word)) }
        // By UTF-16 code units, as JavaScript's sort compares.
        return words.sorted { Array($0.utf16).lexicographicallyPrecedes(Array($1.utf16)) }.joined(separator: " ")
    }

    /// FNV-1a, 32 bits, of the key's UTF-8: which shard an author is in (lookup.js the same).
    static func fnv1a(_ key: String) -> UInt32 {
        key.utf8.reduce(2_166_136_261 as UInt32) { ($0 ^ UInt32($1)) &* 16_777_619 }
    }

    /// The text's first `noteCharacters`, cut at a word with "…" when there is more.
    static func excerpt(_ text: String) -> String {
        let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard words.count > noteCharacters else { return words }
        let cut = words.prefix(noteCharacters)
        let atWord = cut.lastIndex(of: " ").map { cut[..<$0] } ?? cut
        return atWord + "…"
    }
}
