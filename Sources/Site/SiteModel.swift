import Foundation
import LibraryArchive
import Notes
import SnapshotStore
import Support
import Timeline

/// The library arranged for pages: sorted, linked, with file names chosen once. Books are named
/// by their place in the library (`Int`); views are made when a page needs them, so that a big
/// library's pages hold its entries and one page's views, never every book.
struct SiteModel {
    struct ShelfEntry {
        var shelf: Shelf
        var fileName: String
        /// Places in the library, by title.
        var books: [Int]
        var view: ShelfView
    }

    let library: LibraryFile
    /// The library without its books.
    var frame: Library { library.frame }
    let site: SiteView
    /// The site as a book's or a shelf's page sees it: undated.
    let undatedSite: SiteView
    let changesView: ChangesView?
    /// The timeline as the pages tell it, when the snapshot keeps one.
    let timelineView: TimelineView?
    let shelves: [ShelfEntry]
    /// Every book's place, sorted by title.
    let books: [Int]
    /// By place.
    let fileNames: FileNames
    let shelfByID: [Int: ShelfEntry]
    let unshelved: [Int]
    /// The shelf that lists each book (the first, when several do), by place; `noShelf` for none.
    /// An array, not a dictionary by id: 100,000 books' took 4 MB of the render's peak that way.
    private let listingShelf: [Int]
    private static let noShelf = Int.min
    let placeByID: PlacesByID
    let problemsByBook: [Int: [Problem]]
    let authors: AuthorIndex
    let years: YearIndex
    /// What the timeline tells of each year and month, when the snapshot keeps one.
    let timelineYears: TimelineYears?
    /// The most recently added books, newest first (`recentCount` of them): the feed, the index, the OPDS catalog.
    let recent: [Int]
    static let recentCount = 50
    /// What the snapshot holds besides pages: the feeds and the OPDS catalog are linked from the pages.
    let formats: Set<OutputFormat>
    /// Whether pages with previews get share cards (`--no-share-cards` turns them off).
    var shareCards = true
    /// The language the pages are written and sorted in.
    let language: Language

    init(_ library: LibraryFile, changes: ChangeReport? = nil, timeline: Timeline? = nil, siteURL: URL? = nil, formats: Set<OutputFormat> = Set(OutputFormat.allCases), language: Language = .bundledEnglish) {
        self.language = language
        self.formats = formats
        self.library = library
        let frame = library.frame
        let entries = library.entries
        let fileNames = FileNames(entries.lazy.map { Slug.fileName(id: $0.id, name: $0.title) })
        self.fileNames = fileNames
        let placeByID = PlacesByID(entries)
        self.placeByID = placeByID
        problemsByBook = Dictionary(grouping: frame.problems.filter { $0.bookID != nil }, by: { $0.bookID! })
        // Each title is folded once, not at every comparison; a shelf's books keep that order.
        let books = fileNames.indices.map { (key: language.sortKey(entries[$0].title), id: entries.id(at: $0), place: $0) }
            .sorted { ($0.key, $0.id) < ($1.key, $1.id) }.map(\.place)
        self.books = books
        var rank = [Int](repeating: 0, count: entries.count)
        for (position, place) in books.enumerated() { rank[place] = position }
        let shelves = frame.shelves.map { shelf in
            let fileName = Slug.fileName(id: shelf.id, name: shelf.name)
            let places = shelf.bookIDs.compactMap { placeByID[$0] }.sorted { rank[$0] < rank[$1] }
            return ShelfEntry(shelf: shelf, fileName: fileName, books: places, view: Self.shelfView(shelf, fileName: fileName, count: places.count, language: language))
        }.sorted { (language.sortKey($0.shelf.name), $0.shelf.id) < (language.sortKey($1.shelf.name), $1.shelf.id) }
        self.shelves = shelves
        shelfByID = Dictionary(shelves.map { ($0.shelf.id, $0) }, uniquingKeysWith: { first, _ in first })
        var shelfOfID: [Int: Int] = [:]
        for shelf in frame.shelves {
            for id in shelf.bookIDs where shelfOfID[id] == nil { shelfOfID[id] = shelf.id }
        }
        let listingShelf = entries.indices.map { shelfOfID[entries.id(at: $0)] ?? Self.noShelf }
        self.listingShelf = listingShelf
        unshelved = books.filter { listingShelf[$0] == Self.noShelf }
        authors = AuthorIndex(books: books, count: entries.count, language: language) { entries[$0].author }
        let timelineYears = timeline.map(TimelineYears.init)
        self.timelineYears = timelineYears
        years = YearIndex(entries: entries, alsoYears: timelineYears?.yearKeys ?? [])
        recent = Self.newestFirst(entries.indices, in: entries)
        let title = Self.title(of: frame, in: language)
        let base = siteURL.map { $0.absoluteString.hasSuffix("/") ? $0.absoluteString : $0.absoluteString + "/" }
        site = SiteView(url: base, title: title, titleMarkdown: Markdown.text(title), user: frame.user, server: frame.server,
                        generatedAt: language.dateTime(frame.generatedAt),
                        bookCount: entries.count, shelfCount: frame.shelves.count,
                        noteCount: entries.lazy.filter(\.hasNote).count,
                        coverCount: entries.lazy.filter { $0.cover != nil }.count,
                        unshelvedCount: unshelved.count,
                        problemCount: frame.problems.count, hasProblems: !frame.problems.isEmpty,
                        hasChanges: changes != nil, hasTimeline: timeline != nil, hasFeed: formats.contains(.feed), hasOPDS: formats.contains(.opds),
                        language: language)
        undatedSite = SiteView(url: site.url, title: site.title, titleMarkdown: site.titleMarkdown, user: site.user, server: site.server,
                               generatedAt: nil, bookCount: site.bookCount, shelfCount: site.shelfCount, noteCount: site.noteCount,
                               coverCount: site.coverCount, unshelvedCount: site.unshelvedCount, problemCount: site.problemCount,
                               hasProblems: site.hasProblems, hasChanges: site.hasChanges, hasTimeline: site.hasTimeline, hasFeed: site.hasFeed,
                               hasOPDS: site.hasOPDS, language: language)
        timelineView = timeline.map { [placeByID, fileNames] timeline in
            TimelineView(timeline, language: language, fileOf: { placeByID[$0].map { fileNames[$0] } })
        }
        changesView = changes.map { [placeByID, fileNames] report in
            Self.changesView(of: report, language: language, fileOf: { placeByID[$0].map { fileNames[$0] } })
        }
    }

    /// A change report as the pages show it, with the nights before it; `fileOf` gives the file
    /// name of a book still in the library, by id, for a link to its page.
    static func changesView(of report: ChangeReport, language: Language, fileOf: (Int) -> String?) -> ChangesView {
        func item(_ id: Int?, _ title: String, detail: String?) -> ChangeItemView {
            let file = id.flatMap(fileOf)
            return ChangeItemView(title: title, titleMarkdown: Markdown.text(title), href: file.map { "books/\($0).html" },
                                  markdownHref: file.map { "books/\($0).md" }, detail: detail, detailMarkdown: detail.map(Markdown.text))
        }
        // The report says "no shelf" in English (changes.json); the page in its language.
        func names(_ shelves: [String]) -> String {
            shelves == ["no shelf"] ? language.text("noShelfLower") : shelves.joined(separator: ", ")
        }
        return ChangesView(
            firstRun: report.firstRun, hasChanges: !report.isEmpty, noChanges: !report.firstRun && report.isEmpty,
            date: language.dateTime(report.generatedAt), previousDate: report.previousGeneratedAt.map(language.dateTime),
            summary: Self.summary(of: report, in: language),
            added: report.added.map { item($0.id, $0.title, detail: nil) },
            // A removed book has no page to link to.
            removed: report.removed.map { item(nil, $0.title, detail: nil) },
            moved: report.moved.map { item($0.id, $0.title, detail: "\(names($0.from)) → \(names($0.to))") },
            edited: report.edited.map { edit in
                let fields = edit.fields.map { field in
                    if field == "title", let former = edit.formerTitle { return language.text("changesFormerTitle", ["title": former]) }
                    return language.text("field." + field)
                }
                return item(edit.id, edit.title, detail: fields.joined(separator: ", "))
            },
            earlier: (report.earlier ?? []).map { changesView(of: $0, language: language, fileOf: fileOf) })
    }

    /// The catalog's name: `--title`, or a neutral one. A snapshot written before `--title` existed
    /// is read as it was written (it named the account).
    static func title(of library: Library, in language: Language) -> String {
        let given = library.title.map(UntrustedText.displayable) ?? ""
        if given.isEmpty, library.catalogID == nil, let user = library.user { return "Library of \(user)" }
        return SiteIdentity.title(given: library.title, in: language)
    }

    /// What feeds' and catalogs' ids are made from: a name that says nothing of the account
    /// (the server's host, in snapshots written before).
    static func feedHost(of library: Library) -> String {
        library.catalogID ?? library.server?.split(separator: "/").dropFirst().first.map(String.init) ?? "reader"
    }

    /// What the change report says in a sentence: "2 added, 0 removed, 1 moved, 3 edited".
    static func summary(of report: ChangeReport, in language: Language) -> String {
        if report.firstRun { return language.text("changesFirst") }
        if report.isEmpty { return language.text("changesNone") }
        return language.text("changesSummary", ["added": language.number(report.added.count), "removed": language.number(report.removed.count),
                                                "moved": language.number(report.moved.count), "edited": language.number(report.edited.count)])
    }

    /// The `recentCount` books of `places` added last, newest first (books without a date left out).
    static func newestFirst<Places: Sequence<Int>>(_ places: Places, in entries: EntryList) -> [Int] {
        places.compactMap { place in entries[place].createdAt.map { (added: $0, id: entries.id(at: place), place: place) } }
            .sorted { ($0.added, $1.id) > ($1.added, $0.id) }
            .prefix(recentCount).map(\.place)
    }

    /// "2024-01-03T09:30:00.000Z" → "2024-01-03"; nil for what is not a date (the server's text is untrusted).
    static func day(_ text: String) -> String? {
        let day = text.prefix(10)
        let bytes = Array(day.utf8)
        guard bytes.count == 10, bytes[4] == 0x2D, bytes[7] == 0x2D,
              [0, 1, 2, 3, 5, 6, 8, 9].allSatisfy({ (0x30...0x39).contains(bytes[$0]) }),
              let month = Int(day.dropFirst(5).prefix(2)), let date = Int(day.suffix(2)), (1...12).contains(month), (1...31).contains(date)
        else { return nil }
        return String(day)
    }

    private static func shelfView(_ shelf: Shelf, fileName: String, count: Int, language: Language) -> ShelfView {
        ShelfView(id: shelf.id, name: shelf.name, nameMarkdown: Markdown.text(shelf.name), nameYAML: YAML.quoted(shelf.name),
                  href: "shelves/\(fileName).html", markdownHref: "shelves/\(fileName).md",
                  count: count, countLabel: language.count("books", count), complete: shelf.complete)
    }

    /// The shelf a book sits on, or else the first that lists it.
    private func shelf(of place: Int) -> ShelfEntry? {
        library.entries.shelfID(at: place).flatMap { shelfByID[$0] }
            ?? (listingShelf[place] == Self.noShelf ? nil : shelfByID[listingShelf[place]])
    }

    /// The book at `place` in the library as pages show it.
    func bookView(_ place: Int) -> BookView {
        let book = library.entries[place]
        let fileName = fileNames[place]
        let shelf = shelf(of: place)?.view
        let title = book.shownTitle
        let cover = book.cover.map { cover in
            CoverView(src: cover.path, title: title, language: language, width: cover.width, height: cover.height,
                      thumbnails: ThumbnailBox.all.compactMap(cover.thumbnail),
                      fromOpenLibrary: cover.fromOpenLibrary)
        }
        return BookView(id: book.id, title: title, givenTitle: book.title, author: book.author,
                        authorFile: authors.author(of: place)?.fileName, isbn: book.isbn,
                        href: "books/\(fileName).html", markdownHref: "books/\(fileName).md", cover: cover,
                        shelf: shelf, shelfName: shelf?.name ?? book.shelfName,
                        missingShelfName: shelf == nil ? (book.shelfName ?? book.shelfID.map { language.text("deletedShelf", ["id": String($0)]) }) : nil,
                        createdAt: book.createdAt.flatMap(Self.day),
                        hasNote: book.hasNote, complete: book.complete, openLibrary: book.openLibrary, language: language)
    }

    /// The shelf a book's pages show, and the book's problems: with the book, what its pages are made from.
    func shelfView(of place: Int) -> ShelfView? { shelf(of: place)?.view }
    func problems(of place: Int) -> [Problem] { problemsByBook[library.entries.id(at: place)] ?? [] }

    /// The name of the shelf a book sits on, or the deleted shelf it names.
    func shelfName(of place: Int) -> String? {
        let card = library.entries[place]
        return shelf(of: place)?.shelf.name ?? card.shelfName
    }

    func problemViews(_ problems: [Problem]) -> [ProblemView] {
        problems.map { problem in
            let message = words(of: problem)
            return ProblemView(message: message, messageMarkdown: Markdown.text(message),
                        book: problem.bookID.flatMap { placeByID[$0] }.map(bookView))
        }
    }

    /// What a visitor reads of a gap, in the pages' language. A snapshot written before the words
    /// were fixed holds other text: that is shown as it is.
    func words(of problem: Problem) -> String {
        let kept = problem.kept ?? false
        guard problem.message == Problem.words(problem.kind, since: problem.since, kept: kept) else { return problem.message }
        let since = problem.since.map { language.text("problemSince", ["date": language.day($0)]) } ?? ""
        let key = switch (problem.kind, kept) {
        case (.bookDetails, true): "problemDetailsKept"
        case (.bookDetails, false): "problemDetails"
        case (.cover, true): "problemCoverKept"
        case (.cover, false): "problemCover"
        case (.shelfDetails, _): "problemShelf"
        }
        return language.text(key, ["since": since])
    }

    func indexPage(root: String) -> IndexPage {
        let unshelvedViews = unshelved.map(bookView)
        return IndexPage(root: root, site: site, changes: changesView, shelves: shelves.map(\.view), unshelved: unshelvedViews,
                         hasUnshelved: !unshelvedViews.isEmpty, problems: problemViews(frame.problems),
                         recent: recent.prefix(Self.recentOnIndex).map(bookView))
    }

    /// Covers on the index: two rows on a desktop.
    static let recentOnIndex = 12

    func shelfPage(_ entry: ShelfEntry, root: String) -> ShelfPage {
        ShelfPage(root: root, site: undatedSite, shelf: entry.view, books: entry.books.map(bookView), isEmpty: entry.books.isEmpty,
                  feedHref: formats.contains(.feed) ? Self.shelfFeedFile(entry) : nil,
                  hidesShelf: entry.books.allSatisfy { library.entries[$0].shelfID == entry.shelf.id })
    }

    /// A shelf's Atom feed, beside its page.
    static func shelfFeedFile(_ entry: ShelfEntry) -> String { "shelves/\(entry.fileName).xml" }

    func authorsPage(root: String) -> AuthorsPage {
        AuthorsPage(root: root, site: site, letters: authors.letters.map { LetterView(letter: $0.letter, authors: $0.authors.map { AuthorView($0, language: language) }) },
                    count: authors.authors.count)
    }

    func authorPage(_ author: AuthorIndex.Author, root: String) -> AuthorPage {
        AuthorPage(root: root, site: undatedSite, author: AuthorView(author, language: language), books: author.books.map(bookView),
                   opdsHref: formats.contains(.opds) ? "opds/authors/\(author.fileName).xml" : nil)
    }

    func yearPage(_ index: Int, root: String) -> YearPage {
        let year = years.years[index]
        func link(_ other: Int) -> YearLinkView? {
            years.years.indices.contains(other) ? YearLinkView(year: years.years[other].year, count: years.years[other].books.count) : nil
        }
        return YearPage(root: root, site: undatedSite, year: year.year, inBooks: yearInBooks(year), books: year.books.map(bookView),
                        previous: link(index - 1), next: link(index + 1))
    }

    /// Books per page of the list of all books (`SiteRenderer.booksPerPage`).
    var booksPerPage = SiteRenderer.defaultBooksPerPage

    /// The pages of the list of all books: `books.html`, then `books-2.html`, …
    var booksPageCount: Int { max(1, (books.count + booksPerPage - 1) / booksPerPage) }

    static func booksPageFile(_ number: Int) -> String { number == 1 ? "books.html" : "books-\(number).html" }

    func booksPage(_ number: Int, root: String) -> BooksPage {
        let start = (number - 1) * booksPerPage
        let places = books[min(start, books.count)..<min(start + booksPerPage, books.count)]
        let count = booksPageCount
        let pager = count == 1 ? nil : PagerView(
            pages: (1...count).map { PageLinkView(number: $0, href: Self.booksPageFile($0), current: $0 == number) },
            previousHref: number > 1 ? Self.booksPageFile(number - 1) : nil,
            nextHref: number < count ? Self.booksPageFile(number + 1) : nil,
            number: number, count: count, first: start + 1, last: start + places.count, language: language)
        return BooksPage(root: root, site: site, books: places.map(bookView), pager: pager)
    }

    func bookPage(_ view: BookView, noteMarkdown: String, root: String, noteHTML: String, jsonLD: Bool = true) -> BookPage {
        let pageURL = site.url.map { $0 + view.href }
        let imageURL = site.url.flatMap { base in view.cover.map { base + $0.src } }
        var problems = problemsByBook[view.id] ?? []
        var detailsUnavailable: String?
        if !view.complete {
            // Said once, with its date, where the details would be: not again among the gaps.
            let since = problems.first { $0.kind == .bookDetails }?.since.map { language.text("problemSince", ["date": language.day($0)]) } ?? ""
            detailsUnavailable = language.text("detailsUnavailable", ["since": since])
            problems.removeAll { $0.kind == .bookDetails }
        }
        return BookPage(root: root, site: undatedSite, book: view, noteHTML: noteHTML, noteMarkdown: noteMarkdown,
                        problems: problemViews(problems), detailsUnavailable: detailsUnavailable,
                        jsonLD: jsonLD ? Self.jsonLD(view, root: root, pageURL: pageURL, imageURL: imageURL) : "", pageURL: pageURL, imageURL: imageURL,
                        story: timelineView?.story(of: view.id))
    }

    /// schema.org `Book`, keys sorted. Escaped for a script element: no "<", ">" or "&" can end it early.
    static func jsonLD(_ book: BookView, root: String, pageURL: String?, imageURL: String?) -> String {
        // Members in the order of their names, as JSONEncoder's sortedKeys would put them.
        var text = "{\"@context\":\"https://schema.org\",\"@type\":\"Book\""
        if let author = book.author { text += ",\"author\":{\"@type\":\"Person\",\"name\":" + jsonString(author) + "}" }
        if let added = book.createdAt { text += ",\"dateCreated\":" + jsonString(added) }
        if let image = imageURL ?? book.cover.map({ root + $0.src }) { text += ",\"image\":" + jsonString(image) }
        if let isbn = book.isbn { text += ",\"isbn\":" + jsonString(isbn) }
        text += ",\"name\":" + jsonString(book.title)
        if let pageURL { text += ",\"url\":" + jsonString(pageURL) }
        return text + "}"
    }

    /// A JSON string literal that is also safe inside `<script>`.
    static func jsonString(_ value: String) -> String {
        // Most text needs no escape: then it is the same bytes, quoted (0xE2 may begin U+2028 or U+2029).
        if value.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C && $0 != 0x3C && $0 != 0x3E && $0 != 0x26 && $0 != 0xE2 }) {
            return "\"" + value + "\""
        }
        var text = "\""
        text.reserveCapacity(value.utf8.count + 2)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "<": text += "\\u003c"
            case ">": text += "\\u003e"
            case "&": text += "\\u0026"
            case "\u{2028}": text += "\\u2028"
            case "\u{2029}": text += "\\u2029"
            case _ where scalar.value < 0x20: text += String(format: "\\u%04x", scalar.value)
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }

    /// `sitemap.xml` (with --site-url): every page, absolute.
    func sitemap() -> String? {
        guard let base = site.url else { return nil }
        var pages = ["index.html"] + (1...booksPageCount).map(Self.booksPageFile) + ["stats.html", "lookup.html"]
        if changesView != nil { pages.append("changes.html") }
        if let timelineView { pages += timelineView.pageFiles(perPage: booksPerPage) }
        pages.append("authors.html")
        pages += shelves.map { "shelves/\($0.fileName).html" }
        pages += authors.authors.map { "authors/\($0.fileName).html" }
        pages += years.years.map { "years/\($0.year).html" }
        pages += books.map { "books/\(fileNames[$0]).html" }
        let entries = pages.map { "  <url><loc>\(AtomFeed.escape(base + $0))</loc></url>\n" }.joined()
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n" + entries + "</urlset>\n"
    }
}

