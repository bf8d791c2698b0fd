import LibraryArchive
import ShareCards

/// Books' share cards, drawn during the crawl as the books are made (their covers and thumbnails
/// are in the snapshot by then), on the thumbnails' threads, below the crawl: the time spent
/// waiting on the network pays for them. A few at a time and only while requests are in flight;
/// those still waiting when the requests are done, and the shelves', authors', years' and the
/// index's cards, the render draws.
struct BookShareCards {
    /// The catalog's name, which every card shows.
    let siteTitle: String
    /// Cards being drawn at once: the thumbnails share their threads and must not wait long.
    static let drawnAtOnce = 2
    /// Cards waiting at most (a few hundred bytes each); past that, a book's card is the render's.
    static let waitingAtMost = 4096

    private var waiting: [ShareCard] = []
    private var first = 0
    private(set) var drawing = 0

    init(siteTitle: String) {
        self.siteTitle = siteTitle
    }

    /// A book just made: its card waits its turn.
    mutating func add(_ book: BookEntry) {
        guard waiting.count - first < Self.waitingAtMost else { return }
        waiting.append(.book(book, siteTitle: siteTitle))
    }

    /// The next card to draw, while fewer than `drawnAtOnce` are being drawn.
    mutating func next() -> ShareCard? {
        guard drawing < Self.drawnAtOnce, first < waiting.count else { return nil }
        let card = waiting[first]
        first += 1
        if first == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            first = 0
        } else if first >= 1024 && first * 2 >= waiting.count {
            waiting.removeFirst(first)
            first = 0
        }
        drawing += 1
        return card
    }

    mutating func drawn() { drawing -= 1 }
}
