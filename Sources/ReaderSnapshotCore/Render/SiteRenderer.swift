import Foundation

/// Library → files: the HTML site, the Markdown tree and `library.json`, from the templates.
/// Needs nothing but the Library and the cover files it names.
public struct SiteRenderer: Sendable {
    public var templates: TemplateSet
    public var formats: Set<OutputFormat>
    /// Where the site will be served (`--site-url`): for the sitemap, Open Graph and the feed.
    public var siteURL: URL?

    public init(templates: TemplateSet, formats: Set<OutputFormat> = Set(OutputFormat.allCases), siteURL: URL? = nil) {
        self.templates = templates
        self.formats = formats
        self.siteURL = siteURL
    }

    /// Writes every page into `writer`. The cover files must already be in place (the crawl
    /// writes them; `render --from` copies them). With a change report, `changes.json`,
    /// `changes.html` and a section of `markdown/index.md` say what changed.
    public func render(_ library: Library, changes: ChangeReport? = nil, into writer: SnapshotWriter) throws {
        var jobs: [Job] = []
        if let changes {
            jobs.append {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                var data = try encoder.encode(changes)
                data.append(0x0A)
                try writer.write(data, to: "changes.json")
            }
        }
        if formats.contains(.json) {
            jobs.append {
                do {
                    try writer.writeStream(to: "library.json") { try library.writeJSON(to: $0) }
                } catch let error as EncodingError {
                    throw SnapshotError(.notWritable(detail: "library.json: \(error)"), path: writer.root.path)
                }
            }
        }
        // The pages' model (views, orders, file names) only for the formats that have pages.
        if !formats.isDisjoint(with: [.csv, .feed, .html, .markdown]) {
            let model = SiteModel(library, changes: changes, siteURL: siteURL)
            if formats.contains(.csv) { jobs.append { try writer.write(GoodreadsCSV.render(model), to: "library.csv") } }
            if formats.contains(.feed) { jobs.append { try writer.write(AtomFeed.render(model), to: "feed.xml") } }
            if formats.contains(.html) { jobs += htmlJobs(model, into: writer) }
            if formats.contains(.markdown) { jobs += markdownJobs(model, into: writer) }
        }
        try Self.run(jobs)
    }

    /// Writes one or more files. Jobs are independent: the model and the templates are only read.
    typealias Job = () throws -> Void

    /// The site's pages; the pages of the whole library first, so that they do not finish last alone.
    private func htmlJobs(_ model: SiteModel, into writer: SnapshotWriter) -> [Job] {
        let templates = self.templates
        var jobs: [Job] = [
            { try writer.write(try templates.render(BooksPage(root: "", site: model.site, books: model.allBooks), .html, template: "books"), to: "books.html") },
            { try writer.write(try SearchIndex.render(model), to: "assets/search-index.js") },
            { try writer.write(try templates.render(context: StatsPage(model, root: ""), .html, template: "stats"), to: "stats.html") },
            { try writer.write(try templates.render(model.indexPage(root: ""), .html, template: "index"), to: "index.html") },
        ]
        if model.site.url != nil { jobs.append { if let sitemap = model.sitemap() { try writer.write(sitemap, to: "sitemap.xml") } } }
        if let changes = model.changesView {
            jobs.append { try writer.write(try templates.render(ChangesPage(root: "", site: model.site, changes: changes), .html, template: "changes"), to: "changes.html") }
        }
        for asset in templates.assets {
            jobs.append {
                let source = templates.directory.appendingPathComponent("assets").appendingPathComponent(asset)
                let data: Data
                do { data = try Data(contentsOf: source) } catch {
                    throw SnapshotError(.templatesMissing, path: source.path)
                }
                try writer.write(data, to: "assets/" + asset)
            }
        }
        for shelf in model.shelves {
            jobs.append {
                let page = model.shelfPage(shelf, root: "../")
                try writer.write(try templates.render(page, .html, template: "shelf"), to: "shelves/\(shelf.fileName).html")
            }
        }
        for book in model.books {
            jobs.append {
                let page = model.bookPage(book, root: "../", noteHTML: book.note.html)
                try writer.write(try templates.render(page, .html, template: "book"), to: "books/\(model.fileNames[book.id]!).html")
            }
        }
        return jobs
    }

    private func markdownJobs(_ model: SiteModel, into writer: SnapshotWriter) -> [Job] {
        let templates = self.templates
        var jobs: [Job] = [
            { try writer.write(try templates.render(model.indexPage(root: ""), .markdown, template: "index"), to: "markdown/index.md") },
        ]
        for shelf in model.shelves {
            jobs.append {
                let page = model.shelfPage(shelf, root: "../")
                try writer.write(try templates.render(page, .markdown, template: "shelf"), to: "markdown/shelves/\(shelf.fileName).md")
            }
        }
        for book in model.books {
            jobs.append {
                let page = model.bookPage(book, root: "../", noteHTML: "", jsonLD: false)
                try writer.write(try templates.render(page, .markdown, template: "book"), to: "markdown/books/\(model.fileNames[book.id]!).md")
            }
        }
        return jobs
    }

    /// Runs the jobs on every core, each worker taking the next job not yet taken. The error of
    /// the earliest failing job is thrown.
    static func run(_ jobs: [Job]) throws {
        let workers = min(jobs.count, max(1, ProcessInfo.processInfo.activeProcessorCount))
        guard workers > 1 else {
            for job in jobs { try job() }
            return
        }
        let queue = JobQueue()
        nonisolated(unsafe) let jobs = jobs
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while let index = queue.next(below: jobs.count) {
                do { try jobs[index]() } catch { queue.record(error, at: index) }
            }
        }
        if let error = queue.error { throw error }
    }
}

/// Hands out job numbers in order, and keeps the error of the earliest job that failed; after a
/// failure no later job starts.
final class JobQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var taken = 0
    private var failedAt = Int.max
    private var first: Error?

    var error: Error? { lock.withLock { first } }

    func next(below count: Int) -> Int? {
        lock.withLock {
            guard taken < count, taken < failedAt else { return nil }
            defer { taken += 1 }
            return taken
        }
    }

    func record(_ error: Error, at index: Int) {
        lock.withLock {
            if index < failedAt { failedAt = index; first = error }
        }
    }
}

/// The library arranged for pages: sorted, linked, with file names chosen once.
struct SiteModel {
    struct ShelfEntry {
        var shelf: Shelf
        var fileName: String
        var books: [Book]
    }

    let library: Library
    let site: SiteView
    let changesView: ChangesView?
    let shelves: [ShelfEntry]
    /// Every book, sorted by title.
    let books: [Book]
    let fileNames: [Int: String]
    let shelfByID: [Int: ShelfEntry]
    let unshelved: [Book]
    /// The shelf that lists each book (the first, when several do).
    let listingShelf: [Int: Int]
    let booksByID: [Int: Book]
    let problemsByBook: [Int: [Problem]]
    /// Each book as pages show it, made once: every page kind lists the same views.
    private var bookViews: [Int: BookView] = [:]

    init(_ library: Library, changes: ChangeReport? = nil, siteURL: URL? = nil) {
        self.library = library
        var fileNames: [Int: String] = [:]
        for book in library.books { fileNames[book.id] = Slug.fileName(id: book.id, name: book.title) }
        self.fileNames = fileNames
        let booksByID = Dictionary(library.books.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.booksByID = booksByID
        problemsByBook = Dictionary(grouping: library.problems.filter { $0.bookID != nil }, by: { $0.bookID! })
        // Each title is folded once, not at every comparison; a shelf's books keep that order.
        let books = library.books.map { (key: Self.sortKey($0.title), book: $0) }
            .sorted { ($0.key, $0.book.id) < ($1.key, $1.book.id) }.map(\.book)
        self.books = books
        var rank: [Int: Int] = [:]
        rank.reserveCapacity(books.count)
        for (position, book) in books.enumerated() where rank[book.id] == nil { rank[book.id] = position }
        let shelves = library.shelves.map { shelf in
            ShelfEntry(shelf: shelf, fileName: Slug.fileName(id: shelf.id, name: shelf.name),
                       books: shelf.bookIDs.compactMap { id in booksByID[id].map { (rank[id] ?? 0, $0) } }.sorted { $0.0 < $1.0 }.map(\.1))
        }.sorted { (Self.sortKey($0.shelf.name), $0.shelf.id) < (Self.sortKey($1.shelf.name), $1.shelf.id) }
        self.shelves = shelves
        shelfByID = Dictionary(shelves.map { ($0.shelf.id, $0) }, uniquingKeysWith: { first, _ in first })
        var listingShelf: [Int: Int] = [:]
        for shelf in library.shelves {
            for id in shelf.bookIDs where listingShelf[id] == nil { listingShelf[id] = shelf.id }
        }
        self.listingShelf = listingShelf
        unshelved = books.filter { listingShelf[$0.id] == nil }
        let title = library.user.map { "Library of \($0)" } ?? "Library"
        let base = siteURL.map { $0.absoluteString.hasSuffix("/") ? $0.absoluteString : $0.absoluteString + "/" }
        site = SiteView(url: base, title: title, titleMarkdown: Markdown.text(title), user: library.user, server: library.server,
                        generatedAt: Self.displayDate(library.generatedAt),
                        bookCount: library.books.count, shelfCount: library.shelves.count,
                        noteCount: library.books.filter { !$0.note.isEmpty }.count,
                        coverCount: library.books.filter { $0.cover != nil }.count,
                        unshelvedCount: unshelved.count,
                        problemCount: library.problems.count, hasProblems: !library.problems.isEmpty,
                        hasChanges: changes != nil)
        changesView = changes.map { [fileNames] report in
            func item(_ id: Int, _ title: String, detail: String?) -> ChangeItemView {
                let file = fileNames[id]
                return ChangeItemView(title: title, titleMarkdown: Markdown.text(title), href: file.map { "books/\($0).html" },
                                      markdownHref: file.map { "books/\($0).md" }, detail: detail, detailMarkdown: detail.map(Markdown.text))
            }
            return ChangesView(
                firstRun: report.firstRun, hasChanges: !report.isEmpty, noChanges: !report.firstRun && report.isEmpty,
                previousDate: report.previousGeneratedAt.map(Self.displayDate), summary: report.summary,
                added: report.added.map { item($0.id, $0.title, detail: nil) },
                removed: report.removed.map { ChangeItemView(title: $0.title, titleMarkdown: Markdown.text($0.title), href: nil,
                                                             markdownHref: nil, detail: nil, detailMarkdown: nil) },
                moved: report.moved.map { item($0.id, $0.title, detail: "\($0.from.joined(separator: ", ")) → \($0.to.joined(separator: ", "))") },
                edited: report.edited.map { item($0.id, $0.title, detail: $0.fields.joined(separator: ", ")) })
        }
        var views: [Int: BookView] = [:]
        views.reserveCapacity(booksByID.count)
        for (id, book) in booksByID { views[id] = makeBookView(book) }
        bookViews = views
    }

    static func sortKey(_ text: String) -> String {
        // Foundation's folding goes through ICU: only text outside ASCII needs it.
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: Locale(identifier: "en_US_POSIX"))
    }

    /// "2026-11-21T23:57:00Z" → "2026-11-21 23:57 UTC"
    static func displayDate(_ iso: String) -> String {
        guard iso.count >= 16, iso.hasSuffix("Z") else { return iso }
        let chars = Array(iso)
        return String(chars[0..<10]) + " " + String(chars[11..<16]) + " UTC"
    }

    var allBooks: [BookView] { books.map { bookView($0) } }

    func shelfView(_ entry: ShelfEntry) -> ShelfView {
        let count = entry.books.count
        return ShelfView(id: entry.shelf.id, name: entry.shelf.name, nameMarkdown: Markdown.text(entry.shelf.name),
                         nameYAML: YAML.quoted(entry.shelf.name),
                         href: "shelves/\(entry.fileName).html", markdownHref: "shelves/\(entry.fileName).md",
                         count: count, countLabel: count == 1 ? "1 book" : "\(count) books",
                         complete: entry.shelf.complete)
    }

    func bookView(_ book: Book) -> BookView {
        bookViews[book.id] ?? makeBookView(book)
    }

    private func makeBookView(_ book: Book) -> BookView {
        let fileName = fileNames[book.id] ?? String(book.id)
        let shelf = (book.shelfID.flatMap { shelfByID[$0] } ?? listingShelf[book.id].flatMap { shelfByID[$0] }).map(shelfView)
        let title = book.title.isEmpty ? "Untitled (book \(book.id))" : book.title
        let cover = book.cover.map { CoverView(src: $0.path, alt: "Cover of \(title)", altMarkdown: Markdown.text("Cover of \(title)"),
                                                        width: $0.width, height: $0.height) }
        return BookView(id: book.id, title: title, titleMarkdown: Markdown.text(title), titleYAML: YAML.quoted(book.title),
                        author: book.author, authorMarkdown: book.author.map(Markdown.text), authorYAML: YAML.quoted(book.author),
                        isbn: book.isbn, isbnYAML: YAML.quoted(book.isbn),
                        href: "books/\(fileName).html", markdownHref: "books/\(fileName).md",
                        cover: cover, coverPathYAML: YAML.quoted(book.cover.map { "../../" + $0.path }),
                        shelf: shelf, shelfNameYAML: YAML.quoted(shelf?.name ?? book.shelfName),
                        missingShelfName: shelf == nil ? (book.shelfName ?? book.shelfID.map { "shelf \($0)" }) : nil,
                        createdAt: book.createdAt.map { String($0.prefix(10)) },
                        hasNote: !book.note.isEmpty, complete: book.complete,
                        sortTitle: Self.sortKey(title), sortAuthor: Self.sortKey(book.author.map(GoodreadsCSV.lastFirst) ?? ""),
                        sortShelf: Self.sortKey(shelf?.name ?? ""))
    }

    /// The name of the shelf a book sits on, or the deleted shelf it names.
    func shelfName(of book: Book) -> String? {
        (book.shelfID.flatMap { shelfByID[$0] } ?? listingShelf[book.id].flatMap { shelfByID[$0] })?.shelf.name ?? book.shelfName
    }

    func problemViews(_ problems: [Problem]) -> [ProblemView] {
        problems.map { problem in
            ProblemView(message: problem.message, messageMarkdown: Markdown.text(problem.message),
                        book: problem.bookID.flatMap { booksByID[$0] }.map(bookView))
        }
    }

    func indexPage(root: String) -> IndexPage {
        let unshelvedViews = unshelved.map(bookView)
        return IndexPage(root: root, site: site, changes: changesView, shelves: shelves.map(shelfView), unshelved: unshelvedViews,
                         hasUnshelved: !unshelvedViews.isEmpty, problems: problemViews(library.problems))
    }

    func shelfPage(_ entry: ShelfEntry, root: String) -> ShelfPage {
        ShelfPage(root: root, site: site, shelf: shelfView(entry), books: entry.books.map(bookView), isEmpty: entry.books.isEmpty)
    }

    func bookPage(_ book: Book, root: String, noteHTML: String, jsonLD: Bool = true) -> BookPage {
        let view = bookView(book)
        let pageURL = site.url.map { $0 + view.href }
        let imageURL = site.url.flatMap { base in view.cover.map { base + $0.src } }
        return BookPage(root: root, site: site, book: view, noteHTML: noteHTML, noteMarkdown: book.note.markdown,
                        problems: problemViews(problemsByBook[book.id] ?? []),
                        jsonLD: jsonLD ? Self.jsonLD(view, root: root, pageURL: pageURL, imageURL: imageURL) : "", pageURL: pageURL, imageURL: imageURL)
    }

    /// schema.org `Book`, keys sorted. Escaped for a script element: no "<", ">" or "&" can end it early.
    static func jsonLD(_ book: BookView, root: String, pageURL: String?, imageURL: String?) -> String {
        var members: [(String, String)] = [("@context", jsonString("https://schema.org")), ("@type", jsonString("Book")),
                                           ("name", jsonString(book.title))]
        if let author = book.author { members.append(("author", "{\"@type\":\"Person\",\"name\":\(jsonString(author))}")) }
        if let isbn = book.isbn { members.append(("isbn", jsonString(isbn))) }
        if let image = imageURL ?? book.cover.map({ root + $0.src }) { members.append(("image", jsonString(image))) }
        if let pageURL { members.append(("url", jsonString(pageURL))) }
        if let added = book.createdAt { members.append(("dateCreated", jsonString(added))) }
        members.sort { $0.0 < $1.0 }
        return "{" + members.map { jsonString($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// A JSON string literal that is also safe inside `<script>`.
    static func jsonString(_ value: String) -> String {
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
        var pages = ["index.html", "books.html", "stats.html"]
        if changesView != nil { pages.append("changes.html") }
        pages += shelves.map { "shelves/\($0.fileName).html" }
        pages += books.compactMap { fileNames[$0.id].map { "books/\($0).html" } }
        let entries = pages.map { "  <url><loc>\(AtomFeed.escape(base + $0))</loc></url>\n" }.joined()
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n" + entries + "</urlset>\n"
    }
}

/// Text for the Markdown templates.
enum Markdown {
    static func text(_ value: String) -> String {
        MarkdownWriter.escapeLineStarts(MarkdownWriter.escape(value).trimmingSpaces())
    }
}

/// Values for YAML front matter: a double-quoted scalar (JSON's string syntax is valid there), or null.
enum YAML {
    static func quoted(_ value: String?) -> String {
        guard let value else { return "null" }
        var result = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
                || scalar.value == 0x2028 || scalar.value == 0x2029 || scalar.value == 0xFEFF:
                result += String(format: "\\u%04X", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
