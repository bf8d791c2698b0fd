import Foundation

extension SampleLibrary {
    /// A generated library of any size, the same for the same seed: for scale tests and benchmarks.
    /// Shelves hold a few hundred books each, as real ones do; about 1 book in 100 sits on a
    /// deleted shelf, and about 1 in 8 has no cover.
    public static func synthetic(books count: Int, seed: UInt64, shelves: Int? = nil) throws -> SampleLibrary {
        let base = try bundled()
        var random = SplitMix64(seed: seed)
        let shelfCount = shelves ?? max(2, count / 250 + 1)
        let shelfWords = ["Reading", "Classics", "To Read", "Favourites", "Poetry", "History", "Science",
                          "Mysteries", "Travel", "Essays", "Drama", "Letters", "Philosophy", "Nature"]
        var shelves: [Shelf] = []
        for index in 0..<shelfCount {
            let word = shelfWords[index % shelfWords.count]
            shelves.append(Shelf(id: index + 1, name: index < shelfWords.count ? word : "\(word) \(index / shelfWords.count + 1)"))
        }
        let adjectives = ["Silent", "Golden", "Hidden", "Last", "Northern", "Broken", "Distant", "Winter",
                          "Secret", "Burning", "Quiet", "Endless", "Scarlet", "Little", "Lost", "Iron"]
        let nouns = ["River", "Garden", "House", "Letters", "Voyage", "Mountain", "Harbour", "Orchard",
                     "Crown", "Lantern", "Forest", "Island", "Kingdom", "Bridge", "Station", "Tide"]
        let firstNames = ["Ada", "Bram", "Clara", "Daniel", "Edith", "Frans", "Greta", "Henrik", "Ines",
                          "Jonas", "Karin", "Léon", "Maja", "Nils", "Olga", "Pia", "Rosa", "Søren"]
        let lastNames = ["Andersen", "Brontë", "Castellanos", "Dahl", "Eliot", "Fontane", "Gaskell",
                         "Hamsun", "Ibsen", "Jansson", "Kafka", "Lagerlöf", "Mann", "Nabokov", "Orwell"]
        let sentences = [
            "Read it in one sitting.", "The second half drags, but the ending is worth it.",
            "Lent to a friend &amp; never came back.", "Reread for book club.",
            "Beautiful prose; the translation is uneven.", "Compare with the film adaptation.",
        ]
        let diskCovers = base.coverFiles.keys.sorted()
        var books: [Book] = []
        books.reserveCapacity(count)
        for index in 0..<count {
            let id = index + 1
            let title = "The \(adjectives[random.next(adjectives.count)]) \(nouns[random.next(nouns.count)]) \(id)"
            let author = "\(firstNames[random.next(firstNames.count)]) \(lastNames[random.next(lastNames.count)])"
            let isbn = "978" + String(format: "%010d", Int(random.next(1_000_000_000)) * 10 + id % 10)
            let shelfID = random.next(100) == 0 ? shelfCount + 1000 : shelves[random.next(shelves.count)].id
            var comments = ""
            switch random.next(4) {
            case 0: comments = ""
            case 1: comments = "<div class=\"trix-content\">\n  <div>\(sentences[random.next(sentences.count)])</div>\n</div>\n"
            case 2:
                comments = "<div class=\"trix-content\">\n  <div>\(sentences[random.next(sentences.count)])<br><br><strong>Page \(random.next(400) + 1)</strong>: <em>\(sentences[random.next(sentences.count)])</em><br>See <a href=\"https://example.org/books/\(id)?ref=notes&amp;v=2\">the reading guide</a>.</div>\n</div>\n"
            default:
                comments = "<div class=\"trix-content\">\n  <div>Quotes:<br></div><blockquote>\(sentences[random.next(sentences.count)])</blockquote><ul><li>\(sentences[random.next(sentences.count)])</li><li>\(sentences[random.next(sentences.count)])</li></ul>\n</div>\n"
            }
            let cover: Cover? = random.next(8) == 0 || diskCovers.isEmpty ? nil : .disk(file: diskCovers[random.next(diskCovers.count)])
            let day = 1 + random.next(28), month = 1 + random.next(12), year = 2015 + random.next(10)
            let created = String(format: "%04d-%02d-%02dT%02d:%02d:00.000Z", year, month, day, random.next(24), random.next(60))
            books.append(Book(id: id, title: title, author: .string(author), isbn: .string(isbn), shelfID: shelfID,
                              createdAt: created, updatedAt: created, comments: comments, cover: cover))
        }
        return SampleLibrary(account: base.account, shelves: shelves, books: books, coverFiles: base.coverFiles)
    }
}

/// A small, fast, seedable generator: the same seed gives the same library on every machine (and
/// the same test data on every run).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 { nextUInt64() }
    public mutating func nextUInt64() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    public mutating func next(_ bound: Int) -> Int {
        Int(nextUInt64() % UInt64(max(1, bound)))
    }
}
