import Foundation
import LibraryArchive
import Notes
import SnapshotStore
import Support
import Timeline

/// Library → files: the HTML site, the Markdown tree and `library.json`, from the templates.
/// Needs nothing but the Library and the cover files it names.
package struct SiteRenderer: Sendable {
    /// What the pages are, as the command line resolved it: the renderer reads every setting of
    /// the site from here, so that a new one needs no copy of its own on the way.
    package var site: SiteIdentity
    package var templates: TemplateSet {
        get { site.templates }
        set { site.templates = newValue }
    }
    package var formats: Set<OutputFormat> {
        get { site.formats }
        set { site.formats = newValue }
    }
    /// Where the site will be served (`--site-url`): for the sitemap, Open Graph and the feed.
    package var siteURL: URL? {
        get { site.siteURL }
        set { site.siteURL = newValue }
    }
    /// Books per page of the list of all books: a big library's list is split, so that no page (and
    /// no page's model) grows with the library. Sorting in the page sorts that page; the search
    /// index holds every book.
    package var booksPerPage = SiteRenderer.defaultBooksPerPage
    package static let defaultBooksPerPage = 5000
    /// Book pages made by one job: few enough that the cores finish together.
    static let booksPerJob = 16
    /// A page of more books than this (a year's, at 100,000 books: 10,000 books, 13 MB while it is
    /// made) is made by one job with the other big pages, one after another: two at once, one per
    /// core, were the render's peak.
    package var bigPageBooks = SiteRenderer.defaultBigPageBooks
    package static let defaultBigPageBooks = 2_000
    /// The last run's book and shelf pages, to be linked where their inputs are as they were.
    package var pages = PageDigests()
    /// With `siteURL`, each page's link preview gets a share card of its own (`cards/`).
    package var shareCards: Bool {
        get { site.shareCards }
        set { site.shareCards = newValue }
    }
    /// The live line on a terminal: the book pages made, then the other pages.
    package var progress: LiveProgress?

    /// What a render did: its book and shelf pages' digests, for the next run, and how many of
    /// those pages were linked from the last snapshot rather than rendered.
    package struct Rendered: Sendable {
        package var digests = PageDigestTable()
        package var linked = 0
        /// How many of the digests are book, shelf, author and year pages.
        package var pages = 0
        /// Share cards drawn before the render (during the crawl) that no page names: work wasted.
        package var cardsTakenOut = 0
        /// Notes parsed by cmark: each at most once, and only where an output shows more than its Markdown.
        package var notesParsed = 0
    }

    package init(site: SiteIdentity) {
        self.site = site
    }

    package init(templates: TemplateSet, formats: Set<OutputFormat> = Set(OutputFormat.allCases), siteURL: URL? = nil) {
        site = SiteIdentity(templates: templates, formats: formats, siteURL: siteURL)
    }

    /// Writes every page into `writer`. The cover files must already be in place (the crawl
    /// writes them; `render --from` copies them). With a change report, `changes.json`,
    /// `changes.html` and a section of `markdown/index.md` say what changed; with a timeline,
    /// `timeline.json` keeps every night's events.
    @discardableResult
    package func render(_ library: Library, changes: ChangeReport? = nil, timeline: Timeline? = nil, into writer: SnapshotWriter) throws -> Rendered {
        try render(LibraryFile(library), changes: changes, timeline: timeline, into: writer)
    }

    /// The same from a library file: each book is read when its pages are made. Three rounds of jobs on
    /// every core: the books (each note read and parsed once, each book's pages) and what needs
    /// only the model; then what shows the notes or the books' pages' inputs; then the big pages.
    @discardableResult
    package func render(_ library: LibraryFile, changes: ChangeReport? = nil, timeline: consuming Timeline? = nil, into writer: SnapshotWriter) throws -> Rendered {
        let cards = RenderedCards(writer: writer)
        let gathered = PageDigests.Gathered()
        var jobs = dataJobs(library, changes: changes, timeline: timeline, into: writer)
        // The pages' model (views, orders, file names) only for the formats that have pages.
        var html: SiteModel?
        var notesParsed = 0
        if formats.contains(where: \.needsModel) {
            var model = SiteModel(library, changes: changes, timeline: timeline, siteURL: siteURL, formats: formats, language: templates.language)
            // The model's view holds it from here, and lets it go once its pages are made.
            timeline = nil
            model.booksPerPage = max(1, booksPerPage)
            model.shareCards = shareCards
            if formats.contains(.html) { html = model }
            notesParsed = try renderPages(model, first: &jobs, cards: cards, gathered: gathered, into: writer)
        } else {
            try Self.run(&jobs)
        }
        let takenOut = cards.removeOthers()
        let digests = gathered.take()
        // Last: what the offline copy keeps is every other file, as written.
        if let html { try WebApp.writeList(html, snapshot: library.frame.generatedAt, keptWhole: site.offlineBooks, into: writer) }
        return Rendered(digests: digests, linked: gathered.linked, pages: gathered.pages, cardsTakenOut: takenOut, notesParsed: notesParsed)
    }

    /// Every file made from the site's model, after the `first` jobs (taken: each is let go once it
    /// has run, the timeline's file with what it writes). Gives the number of notes parsed.
    private func renderPages(_ model: SiteModel, first: inout [Job], cards: RenderedCards, gathered: PageDigests.Gathered,
                             into writer: SnapshotWriter) throws -> Int {
        var jobs = first + authorsIndexJobs(model, into: writer)
        // Held by the caller's list to the render's end, the timeline was 10 MB of its peak at 100,000 books.
        first = []
        let inputs = PageInputs(templates: templates, seed: pages.seed ?? "", site: model.undatedSite)
        if formats.contains(.html) { jobs += htmlJobs(model, cards: cards, gathered: gathered, into: writer) }
        // The timeline's pages (HTML, and the Markdown paged as the HTML is: a year of nights at
        // 100,000 books was one file of 50 MB, held whole in memory while it was made).
        jobs += timelineJobs(model, inputs: inputs, gathered: gathered, into: writer)
        if formats.contains(.markdown) {
            let templates = self.templates
            jobs.append { try writer.write(try templates.render(model.indexPage(root: ""), .markdown, template: "index"), to: "markdown/index.md") }
        }
        // A digest for each book's, shelf's, author's and year's page in each format.
        let pageFormats = formats.filter(\.traits.hasPages).count
        let entries = pageFormats == 0 ? nil : PageDigests.EntryDigests(count: model.library.count)
        gathered.reserve((model.library.count + model.shelves.count + model.authors.authors.count + model.years.years.count) * pageFormats
                         + (formats.contains(.html) ? WebApp.iconSizes.count : 0))
        let making = try NoteTexts.Making(count: model.library.count, needs: NoteTexts.Needs(formats: formats, model: model),
                                          spillingInto: writer)
        jobs += bookJobs(model, notes: making, pages: entries, inputs: inputs, gathered: gathered, cards: cards, into: writer)
        progress?.begin("Rendering book pages", total: entries == nil ? 0 : model.library.count)
        try Self.run(&jobs)
        // Every page, story and feed entry the timeline tells is made: held through the search's
        // index, it was 26 MB of a night's peak at 100,000 books.
        model.timelineView?.letGo()

        // Then what shows the notes: the search, the lookup and the formats' own writers.
        let notes = making.finish()
        if formats.contains(.html) {
            jobs = [{ try SearchIndex.write(model, notes: notes, into: writer) },
                    { try LookupIndex.write(model, notes: notes, authors: site.lookupOnline != nil, into: writer) }]
        }
        for format in formats.sorted() where !format.traits.writesLast { jobs += format.traits.jobs?(model, notes, writer) ?? [] }
        // Beside the search, the shelves', authors' and years' pages, from the digests of their books' entries.
        var bigPages: [Job] = formats.contains(.html) ? [booksListJob(model, into: writer)] : []
        if let entries {
            jobs += shelfJobs(model, inputs: inputs, entries: entries, gathered: gathered, cards: cards, bigPages: &bigPages, into: writer)
            jobs += browseJobs(model, inputs: inputs, entries: entries, gathered: gathered, cards: cards, bigPages: &bigPages, into: writer)
        }
        progress?.begin("Rendering shelves and lists", total: jobs.count)
        let done = jobs.count
        try Self.run(&jobs, progress: progress)

        // Last the big pages, one after another in one job, once the search's index is written
        // (the two were the render's peak at 100,000 books); the formats that write last (the
        // OPDS feeds) on the other core meanwhile, their makers made only now.
        let big = bigPages
        bigPages = []
        jobs = big.isEmpty ? [] : [{ for job in big { try job() } }]
        // The web app's icons last too: drawing them loads libvips, which with its libraries maps
        // 24 MB, and beside the search's index that was the render's peak.
        if formats.contains(.html) { jobs.append { try self.icons(title: model.site.title, gathered: gathered, into: writer) } }
        for format in formats.sorted() where format.traits.writesLast { jobs += format.traits.jobs?(model, notes, writer) ?? [] }
        progress?.set(done: done, total: done + jobs.count)
        try Self.run(&jobs, progress: progress)
        return notes.parsed
    }

    /// Runs `jobs` on every core, each let go as soon as it has run.
    private static func run(_ jobs: inout [Job], progress: LiveProgress? = nil) throws {
        let pending = PendingJobs(jobs, progress: progress)
        jobs = []
        try pending.run()
    }

    /// `changes.json`, `timeline.json` and `library.json`: the snapshot's data, beside its pages.
    private func dataJobs(_ library: LibraryFile, changes: ChangeReport?, timeline: Timeline?, into writer: SnapshotWriter) -> [Job] {
        var jobs: [Job] = []
        // A piece at a time: a year of nights at 100,000 books is a file of about 60 MB.
        if let timeline { jobs.append { try writer.writeStream(to: Timeline.fileName) { emit in try timeline.encode(into: emit) } } }
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
                } catch let error as LibraryLayout.Failure {
                    throw SnapshotError(.notWritable(detail: "library.json: \(error)"), path: writer.root.path)
                }
            }
        }
        return jobs
    }

    /// Writes one or more files. Jobs are independent: the model and the templates are only read.
    typealias Job = () throws -> Void

    /// Jobs run on every core, each let go as soon as it is done, with what it alone holds (the
    /// OPDS feeds' summaries, a book's place), rather than all of them when the last is.
    /// Unchecked: a buffer of jobs that every core takes from without a lock, each index by one
    /// worker alone (`EveryCore`), so that a job's captures are let go as soon as it has run.
    private final class PendingJobs: @unchecked Sendable {
        private let jobs: UnsafeMutableBufferPointer<Job?>
        /// Moved a step a job, where the jobs are of one kind.
        private let progress: LiveProgress?

        init(_ jobs: [Job], progress: LiveProgress? = nil) {
            self.progress = progress
            self.jobs = .allocate(capacity: max(1, jobs.count))
            _ = self.jobs.initialize(from: jobs.lazy.map { Optional($0) })
            if jobs.isEmpty { self.jobs.initializeElement(at: 0, to: nil) }
            count = jobs.count
        }

        let count: Int

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
                progress?.step()
            }
        }
    }

    /// The pages of the list of all books, one after another: megabytes each at 100,000 books
    /// (with their books' views, 13 MB while one is made), and two made at once, one on each core,
    /// were the render's peak. It is the first of the big pages (`bigPageBooks`), made after the
    /// search's index is written.
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
    private func htmlJobs(_ model: SiteModel, cards: RenderedCards, gathered: PageDigests.Gathered, into writer: SnapshotWriter) -> [Job] {
        let templates = self.templates
        let (online, onlineOrigin) = (site.lookupOnline?.absoluteString, site.lookupOnlineOrigin)
        var jobs: [Job] = [
            {
                let preview = model.listPreview("lookup.html", title: model.language.text("lookupTitle"), description: model.language.text("previewLookup"))
                try writer.write(try templates.render(PlainPage(root: "", site: model.site, online: online, connectSource: onlineOrigin), preview: preview, .html, template: "lookup"), to: "lookup.html")
            },
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
        jobs.append { try WebApp.writeManifest(model, into: writer) }
        jobs.append { try writer.write(TakenScript.source(model), to: TakenScript.path) }
        for asset in templates.assets where !Self.doorOnly.contains(asset.path) {
            // The worker's scope starts where its file is: it is written at the top.
            let target = asset.path == WebApp.workerSource ? WebApp.workerSource : "assets/" + asset.path
            jobs.append {
                let data: Data
                do { data = try Data(contentsOf: asset.source) } catch {
                    throw SnapshotError(.templatesMissing, path: asset.source.path)
                }
                try writer.write(data, to: target)
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
