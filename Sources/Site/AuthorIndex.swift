import Crypto
import Foundation
import LibraryArchive
import Support

/// The library by author: each author's books on every shelf, the authors sorted by surname. An
/// author is the name as the server gives it, spaces trimmed; books with no name (none, or blank)
/// go together under "Unknown author".
struct AuthorIndex {
    struct Author {
        /// As the books give it; nil for the books with none.
        let name: String?
        let displayName: String
        /// `authors/<fileName>.html`, `markdown/authors/<fileName>.md`, `opds/authors/<fileName>.xml`.
        let fileName: String
        /// Surname first, folded: "le guin, ursula k."
        let sortKey: String
        /// The letter the index files it under: "A"…"Z", or "#" for the rest.
        let letter: String
        /// Places in the catalog, in the order of the list of all books.
        var books: [Int]
    }


    /// Sorted by `sortKey`, the unknown author last.
    let authors: [Author]
    /// The author of each place in the library, as an index into `authors`.
    let authorOfPlace: [Int]

    /// `books` is every place in the library in title order; `names` gives a place's author.
    init(books: [Int], count: Int, language: Language, names: (Int) -> String?) {
        var indexByKey: [String: Int] = [:]
        var found: [(name: String?, books: [Int])] = []
        var authorOfPlace = [Int](repeating: 0, count: count)
        for place in books {
            let name = names(place)?.trimmingSpaces()
            let key = name.flatMap { $0.isEmpty ? nil : $0 }
            let lookup = key ?? "\u{0}"
            let index: Int
            if let known = indexByKey[lookup] {
                index = known
            } else {
                index = found.count
                indexByKey[lookup] = index
                found.append((key, []))
            }
            found[index].books.append(place)
            authorOfPlace[place] = index
        }
        // File names from the names' slugs; two names with one slug (or none) get their hash too.
        let slugs = found.map { $0.name.map { Slug.make(Self.surnameFirst($0)) } ?? "unknown-author" }
        var slugCount: [String: Int] = [:]
        for slug in slugs { slugCount[slug, default: 0] += 1 }
        let made = found.enumerated().map { index, author -> Author in
            var fileName = slugs[index]
            if fileName.isEmpty || slugCount[fileName, default: 0] > 1 || fileName == "unknown-author" && author.name != nil {
                let digest = SHA256.hash(data: Data((author.name ?? "").utf8)).prefix(4).map { String(format: "%02x", $0) }.joined()
                // "--" is in no slug (its words are joined by one "-"): no other author's name can be this one.
                fileName = fileName.isEmpty ? "author--\(digest)" : "\(fileName)--\(digest)"
            }
            // Filed by the language's particles (file names keep English filing: the same files in every language).
            let filed = author.name.map { Self.surnameFirst($0, particles: language.surnameParticles) }
            let sortKey = filed.map(language.sortKey) ?? ""
            // In English a name whose first letter folds to none of "a"…"z" ("ıșık") is filed under "#".
            let letter = filed.map(language.letter) ?? "#"
            return Author(name: author.name, displayName: author.name ?? language.text("unknownAuthor"), fileName: fileName, sortKey: sortKey,
                          letter: letter, books: author.books)
        }
        let order = made.indices.sorted { left, right in
            let a = made[left], b = made[right]
            if (a.name == nil) != (b.name == nil) { return b.name == nil }
            return (a.letter == "#" ? 1 : 0, a.sortKey, a.name ?? "") < (b.letter == "#" ? 1 : 0, b.sortKey, b.name ?? "")
        }
        var newIndex = [Int](repeating: 0, count: made.count)
        for (position, old) in order.enumerated() { newIndex[old] = position }
        authors = order.map { made[$0] }
        self.authorOfPlace = authorOfPlace.map { made.isEmpty ? 0 : newIndex[$0] }
    }

    /// Words that start a surname in English filing ("Ursula K. Le Guin", "Daphne du Maurier"); "de", "van" and the like are
    /// filed under the name after them (Cervantes, Gogh), as most English-language libraries do.
    static let particles: Set<String> = ["du", "la", "le", "st."]

    /// "Ursula K. Le Guin" → "Le Guin, Ursula K."; a name of one word as it is.
    static func surnameFirst(_ name: String, particles: Set<String> = particles) -> String {
        let words = name.split(separator: " ")
        guard words.count > 1 else { return name }
        var start = words.count - 1
        while start > 1, particles.contains(words[start - 1].lowercased()) { start -= 1 }
        return words[start...].joined(separator: " ") + ", " + words[..<start].joined(separator: " ")
    }

    func author(of place: Int) -> Author? {
        authors.isEmpty ? nil : authors[authorOfPlace[place]]
    }

    /// The authors by letter, in the order of the index.
    var letters: [(letter: String, authors: ArraySlice<Author>)] {
        var result: [(String, ArraySlice<Author>)] = []
        var start = 0
        while start < authors.count {
            var end = start + 1
            while end < authors.count, authors[end].letter == authors[start].letter { end += 1 }
            result.append((authors[start].letter, authors[start..<end]))
            start = end
        }
        return result
    }
}

/// The library by the year each book was added (the date `/books` gives).
struct YearIndex {
    struct Year {
        let year: String
        /// Places, newest first.
        let books: [Int]
    }

    /// Oldest first.
    let years: [Year]

    /// `alsoYears`: the years the timeline tells of, which have a page even when no book of the
    /// library was added in them.
    init(entries: EntryList, alsoYears: [String] = []) {
        var byYear: [String: [(added: String, id: Int, place: Int)]] = [:]
        for year in alsoYears { byYear[year] = [] }
        for place in entries.indices {
            guard let added = entries[place].createdAt, let day = SiteModel.day(added) else { continue }
            let year = String(day.prefix(4))
            byYear[year, default: []].append((added, entries.id(at: place), place))
        }
        years = byYear.keys.sorted().map { year in
            Year(year: year, books: byYear[year]!.sorted { ($0.added, $1.id) > ($1.added, $0.id) }.map(\.place))
        }
    }
}
