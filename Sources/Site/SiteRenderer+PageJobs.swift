import Foundation
import LibraryArchive
import SnapshotStore
import Support

/// The pages made from digested inputs: each book's, shelf's, author's and year's page, linked
/// from the last snapshot when what it is made from is as it was, rendered otherwise, and its
/// digest gathered for the next run.
extension SiteRenderer {
    /// Links the last snapshot's page at `path` when its inputs are as they were; else renders it.
    func page(_ path: String, digest: PageDigests.Digest, gathered: PageDigests.Gathered, into writer: SnapshotWriter, render: () throws -> String) throws {
        if linkedAsBefore(path, digest: digest, gathered: gathered, into: writer) { return }
        try write(try render(), to: path, digest: digest, gathered: gathered, into: writer)
    }

    /// Writes a page that was not linked, and gathers its digest.
    func write(_ page: String, to path: String, digest: PageDigests.Digest, gathered: PageDigests.Gathered, into writer: SnapshotWriter) throws {
        // Written from the text as it is: a copy of a big page (the list of all books, megabytes
        // at 100,000 books) was the render's peak memory twice over, one for each core.
        try writer.write(page, to: path)
        gathered.add(path, digest, size: page.utf8.count, linked: false)
    }

    /// Whether the last snapshot's file at `path` was made from these inputs and is linked.
    func linkedAsBefore(_ path: String, digest: PageDigests.Digest, gathered: PageDigests.Gathered, page: Bool = true,
                                into writer: SnapshotWriter) -> Bool {
        guard let size = pages.sizeAsBefore(path, digest: digest), writer.linkFromPrevious(path, size: size) else { return false }
        gathered.add(path, digest, size: size, linked: true, page: page)
        return true
    }

    /// The web app's icons, drawn with libvips, are linked from the last snapshot when they were
    /// drawn there with the same letter and the same drawing, by this build or an earlier one: a
    /// night that makes no image, the first after an upgrade too, then never loads libvips, which
    /// with the libraries it is linked with maps 24 MB. Their digests are kept beside the pages'.
    func icons(title: String, gathered: PageDigests.Gathered, into writer: SnapshotWriter) throws {
        let letter = WebApp.iconLetter(title: title)
        for size in WebApp.iconSizes {
            let path = WebApp.iconFile(size)
            let digest = WebApp.iconDigest(letter: letter, size: size)
            if linkedAsBefore(path, digest: digest, gathered: gathered, page: false, into: writer) { continue }
            let png = try WebApp.drawIcon(letter: letter, size: size)
            try writer.write(png, to: path)
            gathered.add(path, digest, size: png.count, linked: false, page: false)
        }
    }

    /// Each author's page and each year's, in HTML and Markdown: like a shelf's, made from its
    /// books' entries, and linked from the last snapshot when they are as they were. The pages of
    /// more than `bigPageBooks` books are added to `bigPages`, the rest returned.
    func browseJobs(_ model: SiteModel, inputs: PageInputs, entries: PageDigests.EntryDigests, gathered: PageDigests.Gathered,
                    cards: RenderedCards, bigPages: inout [Job], into writer: SnapshotWriter) -> [Job] {
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
        var jobs: [Job] = [], big: [Job] = []
        for author in model.authors.authors {
            let job: Job = {
                let digest = inputs.list("author", key: author.displayName + "\u{0}" + author.fileName, books: books(author.books))
                // Made once for both kinds of page, when one is not linked.
                var made: AuthorPage?
                for format in kinds {
                    try page(path(format, "authors/\(author.fileName)"), digest: digest, gathered: gathered, into: writer) {
                        let authorPage = made ?? model.authorPage(author, root: "../")
                        made = authorPage
                        return try templates.render(authorPage, preview: format == .html ? model.authorPreview(author) : nil, format, template: "author")
                    }
                }
                if kinds.contains(.html) { try cards.write(model.authorCard(author)) }
            }
            if author.books.count > bigPageBooks { big.append(job) } else { jobs.append(job) }
        }
        let years = model.years.years
        for index in years.indices {
            let job: Job = {
                // The links to the years before and after are on the page too.
                let around = [index - 1, index + 1].map { years.indices.contains($0) ? years[$0].year : "" }.joined(separator: ",")
                let told = model.yearInBooks(years[index])?.digestKey ?? ""
                let digest = inputs.list("year", key: years[index].year + "\u{0}" + around + "\u{0}" + told, books: books(years[index].books))
                var made: YearPage?
                for format in kinds {
                    try page(path(format, "years/\(years[index].year)"), digest: digest, gathered: gathered, into: writer) {
                        let yearPage = made ?? model.yearPage(index, root: "../")
                        made = yearPage
                        return try templates.render(yearPage, preview: format == .html ? model.yearPreview(index) : nil, format, template: "year")
                    }
                }
                if kinds.contains(.html) { try cards.write(model.yearCard(index)) }
            }
            if years[index].books.count > bigPageBooks { big.append(job) } else { jobs.append(job) }
        }
        bigPages += big
        return jobs
    }

    /// Each shelf's HTML and Markdown pages; those of more than `bigPageBooks` books are added to
    /// `bigPages`, the rest returned.
    func shelfJobs(_ model: SiteModel, inputs: PageInputs, entries: PageDigests.EntryDigests, gathered: PageDigests.Gathered,
                   cards: RenderedCards, bigPages: inout [Job], into writer: SnapshotWriter) -> [Job] {
        let templates = self.templates
        let html = formats.contains(.html), markdown = formats.contains(.markdown)
        var jobs: [Job] = []
        for shelf in model.shelves {
            let job: Job = {
                let digest = inputs.shelf(shelf.view, books: shelf.books.map { (model.fileNames[$0], entries[$0]) })
                // Made once for both kinds of page, when one is not linked.
                var made: ShelfPage?
                func shelfPage() -> ShelfPage {
                    let shelfPage = made ?? model.shelfPage(shelf, root: "../")
                    made = shelfPage
                    return shelfPage
                }
                if html {
                    try page("shelves/\(shelf.fileName).html", digest: digest, gathered: gathered, into: writer) {
                        try templates.render(shelfPage(), preview: model.shelfPreview(shelf), .html, template: "shelf")
                    }
                    try cards.write(model.shelfCard(shelf))
                }
                if markdown {
                    try page("markdown/shelves/\(shelf.fileName).md", digest: digest, gathered: gathered, into: writer) {
                        try templates.render(shelfPage(), .markdown, template: "shelf")
                    }
                }
            }
            if shelf.books.count > bigPageBooks { bigPages.append(job) } else { jobs.append(job) }
        }
        return jobs
    }

    /// Each book's note, read and parsed once (`notes`), and its HTML and Markdown pages: the
    /// pages when `entries` are given.
    func bookJobs(_ model: SiteModel, notes: NoteTexts.Making, pages entries: PageDigests.EntryDigests?, inputs: PageInputs,
                  gathered: PageDigests.Gathered, cards: RenderedCards, into writer: SnapshotWriter) -> [Job] {
        // One job for a few books, each holding only where its books start and what all share: a
        // job that held the model and the rest itself took 640 bytes a book (64 MB at 100,000
        // books), and one job a book 64 bytes (6 MB, beside the search's index being made).
        let shared = BookJobs(renderer: self, model: model, notes: notes, inputs: inputs, entries: entries, gathered: gathered,
                              cards: cards, writer: writer)
        let count = model.books.count
        return stride(from: 0, to: count, by: Self.booksPerJob).map { start in
            {
                let end = min(start + Self.booksPerJob, count)
                var part = NoteTexts.Part()
                for index in start..<end { try shared.make(shared.model.books[index], notes: &part) }
                try shared.notes.keep(part)
                if shared.entries != nil { shared.renderer.progress?.step(by: end - start) }
            }
        }
    }

    /// What every book's note and pages are made with.
    private final class BookJobs: Sendable {
        let renderer: SiteRenderer
        let model: SiteModel
        let notes: NoteTexts.Making
        let inputs: PageInputs
        let entries: PageDigests.EntryDigests?
        let gathered: PageDigests.Gathered
        let cards: RenderedCards
        let writer: SnapshotWriter
        let html: Bool
        let markdown: Bool

        init(renderer: SiteRenderer, model: SiteModel, notes: NoteTexts.Making, inputs: PageInputs, entries: PageDigests.EntryDigests?,
             gathered: PageDigests.Gathered, cards: RenderedCards, writer: SnapshotWriter) {
            self.renderer = renderer
            self.model = model
            self.notes = notes
            self.inputs = inputs
            self.entries = entries
            self.gathered = gathered
            self.cards = cards
            self.writer = writer
            html = entries != nil && renderer.formats.contains(.html)
            markdown = entries != nil && renderer.formats.contains(.markdown)
        }

        /// The book's note into `part`, and its HTML and Markdown pages, from its entry read once.
        func make(_ place: Int, notes part: inout NoteTexts.Part) throws {
            let (model, templates) = (self.model, renderer.templates)
            let fileName = model.fileNames[place]
            let element = try model.library.element(at: place)
            let noteMarkdown = try model.library.noteMarkdown(at: place, element: element)
            guard let entries else {
                _ = notes.make(noteMarkdown, at: place, pageShowsHTML: false, into: &part)
                return
            }
            entries[place] = PageDigests.Digest(of: element)
            // The author's page's name is the book page's too: it can change with other books' authors;
            // and so is the book's story, which a night can add to without a change to the book: its
            // events as the timeline keeps them, told in words only for the pages made.
            let story = model.timelineView?.storyInputs(of: model.library.entries.id(at: place)) ?? ""
            let digest = inputs.book(entry: entries[place], fileName: fileName + "\u{0}" + (model.authors.author(of: place)?.fileName ?? "") + "\u{0}" + story,
                                     shelf: model.shelfView(of: place), problems: model.problems(of: place))
            let htmlPage = "books/\(fileName).html"
            let makesHTMLPage = html && !renderer.linkedAsBefore(htmlPage, digest: digest, gathered: gathered, into: writer)
            let note = notes.make(noteMarkdown, at: place, pageShowsHTML: makesHTMLPage, into: &part)
            // The book as the templates see it, made once for both pages.
            var view: BookView?
            func bookView() -> BookView {
                if let view { return view }
                view = model.bookView(place)
                return view!
            }
            if makesHTMLPage {
                let page = model.bookPage(bookView(), noteMarkdown: noteMarkdown, root: "../", noteHTML: note.html)
                let preview = model.bookPreview(bookView(), place: place, notePlainText: note.plainText)
                try renderer.write(try templates.render(page, preview: preview, .html, template: "book"), to: htmlPage, digest: digest,
                                   gathered: gathered, into: writer)
            }
            if html { try cards.write(model.bookCard(place)) }
            if markdown {
                try renderer.page("markdown/books/\(fileName).md", digest: digest, gathered: gathered, into: writer) {
                    let page = model.bookPage(bookView(), noteMarkdown: noteMarkdown, root: "../", noteHTML: "", jsonLD: false)
                    return try templates.render(page, .markdown, template: "book")
                }
            }
        }
    }
}
