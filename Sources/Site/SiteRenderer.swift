import Foundation
import LibraryArchive
import Notes
import SnapshotStore
import Support

/// Library → files: the HTML site, the Markdown tree and `library.json`, from the templates.
/// Needs nothing but the Library and the cover files it names.
package struct SiteRenderer: Sendable {
    package var templates: TemplateSet
    package var formats: Set<OutputFormat>
    /// Where the site will be served (`--site-url`): for the sitemap, Open Graph and the feed.
    package var siteURL: URL?
    /// Books per page of the list of all books: a big library's list is split, so that no page (and
    /// no page's model) grows with the library. Sorting in the page sorts that page; the search
    /// index holds every book.
    package var booksPerPage = SiteRenderer.defaultBooksPerPage
    package static let defaultBooksPerPage = 5000
    /// Book pages made by one job: few enough that the cores finish together.
    static let booksPerJob = 16
    /// The last run's book and shelf pages, to be linked where their inputs are as they were.
    package var pages = PageDigests()
    /// With `siteURL`, each page's link preview gets a share card of its own (`cards/`).
    package var shareCards = true

    /// What a render did: its book and shelf pages' digests, for the next run, and how many of
    /// those pages were linked from the last snapshot rather than rendered.
    package struct Rendered: Sendable {
        package var digests = PageDigestTable()
        package var linked = 0
    }

    package init(templates: TemplateSet, formats: Set<OutputFormat> = Set(OutputFormat.allCases), siteURL: URL? = nil) {
        self.templates = templates
        self.formats = formats
        self.siteURL = siteURL
    }

    /// Writes every page into `writer`. The cover files must already be in place (the crawl
    /// writes them; `render --from` copies them). With a change report, `changes.json`,
    /// `changes.html` and a section of `markdown/index.md` say what changed.
    @discardableResult
    package func render(_ library: Library, changes: ChangeReport? = nil, into writer: SnapshotWriter) throws -> Rendered {
        try render(Catalog(library), changes: changes, into: writer)
    }

    /// The same from a catalog: each book is read when its pages are made.
    @discardableResult
    package func render(_ catalog: Catalog, changes: ChangeReport? = nil, into writer: SnapshotWriter) throws -> Rendered {
        var jobs: [Job] = [], shelves: [Job] = []
        var opds: SiteModel?
        var booksList: [Job] = []
        let cards = RenderedCards(writer: writer)
        let gathered = PageDigests.Gathered()
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
                    try writer.writeStream(to: "library.json") { try catalog.writeJSON(to: $0) }
                } catch let error as EncodingError {
                    throw SnapshotError(.notWritable(detail: "library.json: \(error)"), path: writer.root.path)
                } catch let error as LibraryLayout.Failure {
                    throw SnapshotError(.notWritable(detail: "library.json: \(error)"), path: writer.root.path)
                }
            }
        }
        // The pages' model (views, orders, file names) only for the formats that have pages.
        if !formats.isDisjoint(with: [.csv, .feed, .html, .markdown, .opds]) {
            var model = SiteModel(catalog, changes: changes, siteURL: siteURL, formats: formats, language: templates.language)
            model.booksPerPage = max(1, booksPerPage)
            model.shareCards = shareCards
            if formats.contains(.csv) { jobs.append { try writer.writeStream(to: "library.csv") { try GoodreadsCSV.write(model, to: $0) } } }
            if formats.contains(.feed) {
                jobs.append { try writer.write(try AtomFeed.render(model), to: "feed.xml") }
                for shelf in model.shelves {
                    jobs.append { try writer.write(try AtomFeed.render(model, shelf: shelf), to: SiteModel.shelfFeedFile(shelf)) }
                }
            }
            if formats.contains(.opds) { opds = model }
            jobs += authorsIndexJobs(model, into: writer)
            let inputs = PageInputs(templates: templates, seed: pages.seed ?? "", site: model.undatedSite)
            if formats.contains(.html) { jobs += htmlJobs(model, cards: cards, into: writer) }
            if formats.contains(.markdown) {
                let templates = self.templates
                jobs.append { try writer.write(try templates.render(model.indexPage(root: ""), .markdown, template: "index"), to: "markdown/index.md") }
            }
            if !formats.isDisjoint(with: [.html, .markdown]) {
                // A digest for each book's, shelf's, author's and year's page in each format.
                let pageFormats = formats.intersection([.html, .markdown]).count
                gathered.reserve((catalog.count + model.shelves.count + model.authors.authors.count + model.years.years.count) * pageFormats)
                let entries = PageDigests.EntryDigests(count: catalog.count)
                jobs += bookJobs(model, inputs: inputs, entries: entries, gathered: gathered, cards: cards, into: writer)
                // Then the shelves, from the digests of their books' entries, each read once.
                shelves = shelfJobs(model, inputs: inputs, entries: entries, gathered: gathered, cards: cards, into: writer)
                shelves += browseJobs(model, inputs: inputs, entries: entries, gathered: gathered, cards: cards, into: writer)
            }
            if formats.contains(.html) { booksList = [booksListJob(model, into: writer)] }
        }
        let first = PendingJobs(jobs)
        jobs = []
        try first.run()
        if let model = opds {
            // The OPDS catalog once the first jobs are done: its notes' summaries, made on every
            // core, beside the search's index were the render's peak (100,000 books).
            let catalog = try OPDSCatalog(model, spillIn: writer.root)
            shelves = catalog.feeds().map { feed in
                {
                    let text = feed.text()
                    try catalog.summaries.check()
                    try writer.write(text, to: feed.path)
                }
            } + shelves
        }
        let then = PendingJobs(booksList + shelves)
        (booksList, shelves) = ([], [])
        try then.run()
        cards.removeOthers()
        return Rendered(digests: gathered.take(), linked: gathered.linked)
    }

    /// Links the last snapshot's page at `path` when its inputs are as they were; else renders it.
    fileprivate func page(_ path: String, digest: PageDigests.Digest, gathered: PageDigests.Gathered, into writer: SnapshotWriter, render: () throws -> String) throws {
        if let size = pages.sizeAsBefore(path, digest: digest), writer.linkFromPrevious(path, size: size) {
            gathered.add(path, digest, size: size, linked: true)
            return
        }
        // Written from the text as it is: a copy of a big page (the list of all books, megabytes
        // at 100,000 books) was the render's peak memory twice over, one for each core.
        let page = try render()
        try writer.write(page, to: path)
        gathered.add(path, digest, size: page.utf8.count, linked: false)
    }

    /// Writes one or more files. Jobs are independent: the model and the templates are only read.
    typealias Job = () throws -> Void

    /// Jobs run on every core, each let go as soon as it is done, with what it alone holds (the
    /// OPDS feeds' summaries, a book's place), rather than all of them when the last is.
    private final class PendingJobs: @unchecked Sendable {
        private let jobs: UnsafeMutableBufferPointer<Job?>

        init(_ jobs: [Job]) {
            self.jobs = .allocate(capacity: max(1, jobs.count))
            _ = self.jobs.initialize(from: jobs.lazy.map { Optional($0) })
            if jobs.isEmpty { self.jobs.initializeElement(at: 0, to: nil) }
            count = jobs.count
        }

        private let count: Int

        deinit {
            jobs.deinitialize()
            jobs.deallocate()
        }

        /// Each index is taken by one worker alone (EveryCore).
        func run() throws {
            _ = try EveryCore.map(count, worker: {}) { _, index in
                let job = jobs[index]
                jobs[index] = nil
                try job?()
            }
        }
    }

    /// The pages of the list of all books, one after another in one job: megabytes each at
    /// 100,000 books (with their books' views, 13 MB while one is made), and two made at once,
    /// one on each core, were the render's peak. The job comes first among the last jobs, made
    /// after the search's index is written, so that the other core has the rest to do meanwhile.
    private func booksListJob(_ model: SiteModel, into writer: SnapshotWriter) -> Job {
        let templates = self.templates
        return {
            for number in 1...model.booksPageCount {
                let file = SiteModel.booksPageFile(number)
                let preview = model.listPreview(file, title: model.language.text("allBooks"), description: number == 1
                    ? model.language.text("previewAllBooks", ["books": model.language.count("books", model.books.count)])
                    : model.language.text("previewAllBooksPage", ["books": model.language.count("books", model.books.count),
                                                                  "number": model.language.number(number)]))
                try writer.write(try templates.render(model.booksPage(number, root: ""), preview: preview, .html, template: "books"), to: file)
            }
        }
    }

    /// The site's other pages of the whole library, first, so that they do not finish last alone.
    private func htmlJobs(_ model: SiteModel, cards: RenderedCards, into writer: SnapshotWriter) -> [Job] {
        let templates = self.templates
        var jobs: [Job] = [{ try SearchIndex.write(model, into: writer) }]
        jobs += [
            {
                let preview = model.listPreview("stats.html", title: model.language.text("stats"),
                                                description: model.language.text("previewStats", ["books": model.language.count("books", model.books.count)]))
                try writer.write(try templates.render(StatsPage(model, root: ""), preview: preview, .html, template: "stats"), to: "stats.html")
            },
            {
                try writer.write(try templates.render(model.indexPage(root: ""), preview: model.indexPreview(), .html, template: "index"), to: "index.html")
                try cards.write(model.indexCardIfDrawn)
            },
        ]
        if model.site.url != nil { jobs.append { if let sitemap = model.sitemap() { try writer.write(sitemap, to: "sitemap.xml") } } }
        if let changes = model.changesView {
            jobs.append {
                let preview = model.listPreview("changes.html", title: model.language.text("changes"), description: changes.summary)
                try writer.write(try templates.render(ChangesPage(root: "", site: model.site, changes: changes), preview: preview, .html, template: "changes"),
                                 to: "changes.html")
            }
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
        return jobs
    }

    /// The authors' index, in HTML and Markdown: a page of the whole library, made every run.
    private func authorsIndexJobs(_ model: SiteModel, into writer: SnapshotWriter) -> [Job] {
        let templates = self.templates
        return [OutputFormat.html, .markdown].filter(formats.contains).map { format in
            {
                let preview = format == .html
                    ? model.listPreview("authors.html", title: model.language.text("authors"),
                                      description: model.language.text("catalogAuthorsDetail", ["count": model.language.number(model.authors.authors.count)])) : nil
                try writer.write(try templates.render(model.authorsPage(root: ""), preview: preview, format, template: "authors"),
                                 to: format == .html ? "authors.html" : "markdown/authors.md")
            }
        }
    }

    /// Each author's page and each year's, in HTML and Markdown: like a shelf's, made from its
    /// books' entries, and linked from the last snapshot when they are as they were.
    private func browseJobs(_ model: SiteModel, inputs: PageInputs, entries: PageDigests.EntryDigests, gathered: PageDigests.Gathered,
                            cards: RenderedCards, into writer: SnapshotWriter) -> [Job] {
        let templates = self.templates
        let kinds = [OutputFormat.html, .markdown].filter(formats.contains)
        guard !kinds.isEmpty else { return [] }
        func books(_ places: [Int]) -> [(fileName: String, entry: PageDigests.Digest, shelf: String)] {
            // The shelf a card shows ("No shelf" when the book's shelf is gone).
            places.map { (model.fileNames[$0], entries[$0], model.shelfView(of: $0)?.name ?? "\u{0}") }
        }
        func path(_ format: OutputFormat, _ name: String) -> String {
            format == .html ? name + ".html" : "markdown/" + name + ".md"
        }
        var jobs: [Job] = model.authors.authors.map { author in
            {
                let digest = inputs.list("author", key: author.displayName + "\u{0}" + author.fileName, books: books(author.books))
                for format in kinds {
                    try page(path(format, "authors/\(author.fileName)"), digest: digest, gathered: gathered, into: writer) {
                        try templates.render(model.authorPage(author, root: "../"), preview: format == .html ? model.authorPreview(author) : nil,
                                             format, template: "author")
                    }
                }
                if kinds.contains(.html) { try cards.write(model.authorCard(author)) }
            }
        }
        let years = model.years.years
        jobs += years.indices.map { index in
            {
                // The links to the years before and after are on the page too.
                let around = [index - 1, index + 1].map { years.indices.contains($0) ? years[$0].year : "" }.joined(separator: ",")
                let digest = inputs.list("year", key: years[index].year + "\u{0}" + around, books: books(years[index].books))
                for format in kinds {
                    try page(path(format, "years/\(years[index].year)"), digest: digest, gathered: gathered, into: writer) {
                        try templates.render(model.yearPage(index, root: "../"), preview: format == .html ? model.yearPreview(index) : nil,
                                             format, template: "year")
                    }
                }
                if kinds.contains(.html) { try cards.write(model.yearCard(index)) }
            }
        }
        return jobs
    }

    /// Each shelf's HTML and Markdown pages.
    private func shelfJobs(_ model: SiteModel, inputs: PageInputs, entries: PageDigests.EntryDigests, gathered: PageDigests.Gathered,
                           cards: RenderedCards, into writer: SnapshotWriter) -> [Job] {
        let templates = self.templates
        let html = formats.contains(.html), markdown = formats.contains(.markdown)
        return model.shelves.map { shelf in
            {
                let digest = inputs.shelf(shelf.view, books: shelf.books.map { (model.fileNames[$0], entries[$0]) })
                if html {
                    try page("shelves/\(shelf.fileName).html", digest: digest, gathered: gathered, into: writer) {
                        try templates.render(model.shelfPage(shelf, root: "../"), preview: model.shelfPreview(shelf), .html, template: "shelf")
                    }
                    try cards.write(model.shelfCard(shelf))
                }
                if markdown {
                    try page("markdown/shelves/\(shelf.fileName).md", digest: digest, gathered: gathered, into: writer) {
                        try templates.render(model.shelfPage(shelf, root: "../"), .markdown, template: "shelf")
                    }
                }
            }
        }
    }

    /// Each book's HTML and Markdown pages, from its notes read once.
    private func bookJobs(_ model: SiteModel, inputs: PageInputs, entries: PageDigests.EntryDigests, gathered: PageDigests.Gathered,
                          cards: RenderedCards, into writer: SnapshotWriter) -> [Job] {
        // One job for a few books, each holding only where its books start and what all share: a
        // job that held the model and the rest itself took 640 bytes a book (64 MB at 100,000
        // books), and one job a book 64 bytes (6 MB, beside the search's index being made).
        let shared = BookPageJobs(renderer: self, model: model, inputs: inputs, entries: entries, gathered: gathered, cards: cards, writer: writer)
        let count = model.books.count
        return stride(from: 0, to: count, by: Self.booksPerJob).map { start in
            { for index in start..<min(start + Self.booksPerJob, count) { try shared.make(shared.model.books[index]) } }
        }
    }

    /// What every book's pages are made with.
    private final class BookPageJobs: Sendable {
        let renderer: SiteRenderer
        let model: SiteModel
        let inputs: PageInputs
        let entries: PageDigests.EntryDigests
        let gathered: PageDigests.Gathered
        let cards: RenderedCards
        let writer: SnapshotWriter
        let html: Bool
        let markdown: Bool

        init(renderer: SiteRenderer, model: SiteModel, inputs: PageInputs, entries: PageDigests.EntryDigests, gathered: PageDigests.Gathered,
             cards: RenderedCards, writer: SnapshotWriter) {
            self.renderer = renderer
            self.model = model
            self.inputs = inputs
            self.entries = entries
            self.gathered = gathered
            self.cards = cards
            self.writer = writer
            html = renderer.formats.contains(.html)
            markdown = renderer.formats.contains(.markdown)
        }

        /// The book's HTML and Markdown pages, from its notes read once.
        func make(_ place: Int) throws {
            let (model, templates) = (self.model, renderer.templates)
            let fileName = model.fileNames[place]
            let element = try model.catalog.element(at: place)
            entries[place] = PageDigests.Digest(of: element)
            // The author's page's name is the book page's too: it can change with other books' authors.
            let digest = inputs.book(entry: entries[place], fileName: fileName + "\u{0}" + (model.authors.author(of: place)?.fileName ?? ""),
                                     shelf: model.shelfView(of: place), problems: model.problems(of: place))
            var note: String?
            func noteMarkdown() throws -> String {
                if let note { return note }
                note = try model.catalog.noteMarkdown(at: place, element: element)
                return note!
            }
            // The book as the templates see it, made once for both pages.
            var view: BookView?
            func bookView() -> BookView {
                if let view { return view }
                view = model.bookView(place)
                return view!
            }
            if html {
                try renderer.page("books/\(fileName).html", digest: digest, gathered: gathered, into: writer) {
                    let note = try noteMarkdown()
                    let view = bookView()
                    let page = model.bookPage(view, noteMarkdown: note, root: "../",
                                              noteHTML: note.isEmpty ? "" : CMark.html(fromMarkdown: note))
                    return try templates.render(page, preview: model.bookPreview(view, place: place, noteMarkdown: note), .html, template: "book")
                }
                try cards.write(model.bookCard(place))
            }
            if markdown {
                try renderer.page("markdown/books/\(fileName).md", digest: digest, gathered: gathered, into: writer) {
                    let page = model.bookPage(bookView(), noteMarkdown: try noteMarkdown(), root: "../", noteHTML: "", jsonLD: false)
                    return try templates.render(page, .markdown, template: "book")
                }
            }
        }
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
