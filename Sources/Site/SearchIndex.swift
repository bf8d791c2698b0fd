import Foundation
import LibraryArchive
import SnapshotStore
import Support

/// `assets/search/`: what the site's search looks through, split so that a query loads only what it
/// needs and the home page none of it. Every file is a script (a `<script>` loads from file://,
/// where fetching a JSON file does not) that hands its part to `READER_SEARCH` (assets/search.js):
///
/// - `manifest.js`: how many books, how many a chunk holds, which term shards are split, and which
///   there are (by the prefix before their last character: a query for a word no term begins
///   with loads no file, and the browser's console shows no missing one);
/// - `t-<hex>.js`: the terms that begin with one prefix (its UTF-8 bytes in hex: a safe name on any
///   host), each with the books it is in, as gaps between their numbers (books are numbered in
///   the order of the list of all books); a shard past `shardBytes` is split by the next letter;
/// - `b-<n>.js`: what a result shows of books n × `booksPerChunk` onwards: title, author, shelf,
///   page and thumbnail.
///
/// Terms are folded as search.js folds a query: decomposed (NFD), accents (U+0300–U+036F) dropped,
/// lowercased, split at anything not a letter, digit or mark; words of one character are left out.
enum SearchIndex {
    /// Notes are searched on their first characters: enough to find a book, bounded for any library.
    static let noteCharacters = 2000
    static let booksPerChunk = 100
    /// A shard's text past this is split by one more character of its terms' beginning.
    static let shardBytes = 64 * 1024
    static let folder = "assets/search/"
    /// Longer words (addresses, hashes) are no one's query.
    static let longestTerm = 40

    /// Writes every file of the index.
    static func write(_ model: SiteModel, notes: NoteTexts, into writer: SnapshotWriter) throws {
        var index = TermIndex()
        var chunk: [String] = []
        for (number, place) in model.books.enumerated() {
            let view = model.bookView(place)
            let shelf = model.shelfName(of: place) ?? ""
            var text = [view.title, view.author ?? "", shelf, String(try notes.plainText(of: place).prefix(noteCharacters))]
            if let isbn = view.isbn {
                // As written ("978-0-14…") and as one number, whichever a reader types.
                text.append(isbn)
                text.append(String(isbn.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }))
            }
            if let subjects = view.openLibrary?.subjects { text += subjects }
            index.add(book: Int32(number), words: text.flatMap(Self.words))
            let thumbnail = view.cover.map { $0.list } ?? ""
            chunk.append("[" + [view.title, view.author ?? "", shelf, view.href, thumbnail].map(SiteModel.jsonString).joined(separator: ",") + "]")
            if chunk.count == booksPerChunk || number == model.books.count - 1 {
                let first = number / booksPerChunk
                try writer.write("READER_SEARCH.books(\(first),[\n" + chunk.joined(separator: ",\n") + "]);\n", to: folder + "b-\(first).js")
                chunk.removeAll(keepingCapacity: true)
            }
        }
        var split: [String] = [], written: [String] = []
        try writeShards(of: index.sortedTerms()[...], in: index, prefixLength: 2, split: &split, written: &written, into: writer)
        var shards: [String: String.UnicodeScalarView] = [:]
        for key in written {
            var parent = key.unicodeScalars
            let last = parent.removeLast()
            shards[String(parent), default: String.UnicodeScalarView()].append(last)
        }
        let manifest = "{\"books\":\(model.books.count),\"chunk\":\(booksPerChunk),\"split\":["
            + split.sorted().map(SiteModel.jsonString).joined(separator: ",") + "],\"shards\":{"
            + shards.sorted { $0.key < $1.key }.map { SiteModel.jsonString($0.key) + ":" + SiteModel.jsonString(String($0.value)) }.joined(separator: ",") + "}}"
        try writer.write("READER_SEARCH.manifest(\(manifest));\n", to: folder + "manifest.js")
    }

    /// The shards of `terms` (sorted), grouped by their first `prefixLength` Unicode scalars; a group
    /// too big is written as its terms of exactly that length, and the rest split one scalar further.
    private static func writeShards(of terms: ArraySlice<Int32>, in index: TermIndex, prefixLength: Int, split: inout [String],
                                    written: inout [String], into writer: SnapshotWriter) throws {
        var start = terms.startIndex
        while start < terms.endIndex {
            let key = prefix(index.text(of: terms[start]), prefixLength)
            var end = start
            var bytes = 0
            while end < terms.endIndex {
                let text = index.text(of: terms[end])
                guard prefix(text, prefixLength) == key else { break }
                bytes += text.utf8.count + index.length(of: terms[end]) + 6
                end += 1
            }
            let group = terms[start..<end]
            if bytes > shardBytes, group.count > 1 {
                split.append(key)
                let exact = group.filter { index.text(of: $0).unicodeScalars.count == prefixLength }
                try writeShard(key, exact[...], in: index, into: writer)
                written.append(key)
                try writeShards(of: group.filter { index.text(of: $0).unicodeScalars.count > prefixLength }[...], in: index, prefixLength: prefixLength + 1,
                                split: &split, written: &written, into: writer)
            } else {
                try writeShard(key, group, in: index, into: writer)
                written.append(key)
            }
            start = end
        }
    }

    private static func writeShard(_ key: String, _ terms: ArraySlice<Int32>, in index: TermIndex, into writer: SnapshotWriter) throws {
        var text = Data("READER_SEARCH.terms(\(SiteModel.jsonString(key)),{".utf8)
        for (position, term) in terms.enumerated() {
            if position > 0 { text.append(contentsOf: ",\n".utf8) }
            text.append(contentsOf: SiteModel.jsonString(index.text(of: term)).utf8)
            text.append(contentsOf: ":\"".utf8)
            index.appendPostings(of: term, to: &text)
            text.append(UInt8(ascii: "\""))
        }
        text.append(contentsOf: "});\n".utf8)
        try writer.write(text, to: folder + "t-\(shardName(key)).js")
    }

    static func prefix(_ term: String, _ length: Int) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: term.unicodeScalars.prefix(length))
        return String(scalars)
    }

    /// A shard's file name: its prefix's UTF-8 bytes in hex.
    static func shardName(_ key: String) -> String {
        Data(key.utf8).hexString
    }

    /// The folded words of a text, as search.js finds them in a query.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        // Most text is ASCII: folded and split byte by byte.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            var word: [UInt8] = []
            func finish() {
                if word.count >= 2 && word.count <= longestTerm { words.append(String(decoding: word, as: UTF8.self)) }
                word.removeAll(keepingCapacity: true)
            }
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): word.append(byte)
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): word.append(byte + 32)
                default: finish()
                }
            }
            finish()
            return words
        }
        var word = String.UnicodeScalarView()
        func finish() {
            let count = word.count
            if count >= 2 && count <= longestTerm { words.append(String(word)) }
            word = String.UnicodeScalarView()
        }
        for scalar in fold(text).unicodeScalars {
            if isWordScalar(scalar) { word.append(scalar) } else { finish() }
        }
        finish()
        return words
    }

    /// Decomposed, accents dropped, lowercased: "Brontë" is "bronte".
    static func fold(_ text: String) -> String {
        var kept = String.UnicodeScalarView()
        for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars where !(0x300...0x36F).contains(scalar.value) {
            kept.append(scalar)
        }
        return String(kept).lowercased()
    }

    /// A letter, a digit or a mark (Unicode's L, N and M), as search.js's `[\p{L}\p{N}\p{M}]`.
    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark:
            return true
        default:
            return false
        }
    }
}
