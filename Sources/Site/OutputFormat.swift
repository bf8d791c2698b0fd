import LibraryArchive
import SnapshotStore
import Support

/// What a snapshot holds, a format at a time (`--format`): the browsable site, the Markdown tree,
/// the `library.json` archive, `library.csv` (Goodreads' layout), `feed.xml` (Atom; a feed for each
/// shelf too), `opds/` (an OPDS catalog for e-reader apps), `library.bib` (BibTeX) and `library.ris`
/// (RIS).
///
/// Everything the tool knows of a format is here, in `traits`: `--format`'s help and errors, which
/// file says a snapshot was written whole, how publishing (media types, upload waves), the catalog
/// for friends and the history treat its files, what it shows of the notes, whether it has pages,
/// and, for a format written from the site's model, its writer. A new format is a case, its
/// traits, and its writer's file.
package enum OutputFormat: String, CaseIterable, Codable, Sendable, Comparable {
    case html, markdown, json, csv, feed, opds, bibtex, ris

    package static func < (lhs: OutputFormat, rhs: OutputFormat) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    package struct Traits: Sendable {
        /// How `--help` names it: its word, and what it is for where the word does not say.
        package var help: String
        /// A file every snapshot written in this format holds: without it, the snapshot is not whole.
        package var mainFile: String
        /// Its files, as publishing, the catalog for friends and the history see them.
        package var files: FormatFiles
        /// What it shows of each book's note: the render keeps just that (`NoteTexts`).
        var notes = NoteTexts.Use()
        /// A page for each book, shelf, author and year (the renderer writes them, page by page).
        var hasPages = false
        /// The writer of a format that has no pages (the site's model and the notes' texts to files);
        /// nil for the formats the renderer writes page by page or from the library file.
        var jobs: (@Sendable (SiteModel, NoteTexts, SnapshotWriter) -> [SiteRenderer.Job])?
        /// Its jobs run last, beside the biggest pages, one core for them: at 100,000 books the
        /// OPDS catalog's thousands of feeds, made only then, kept the render's peak down.
        var writesLast = false
    }

    package var traits: Traits {
        switch self {
        case .html:
            // Sealed whole by a catalog for friends: the door opens its pages in the browser.
            return Traits(help: "html", mainFile: "index.html",
                          files: FormatFiles(words: "the pages", sealed: true, holds: { $0.hasSuffix(".html") || $0.hasPrefix("assets/") }, wave: Self.pageWave),
                          notes: NoteTexts.Use(plainText: true), hasPages: true)
        case .markdown:
            return Traits(help: "markdown", mainFile: "markdown/index.md",
                          files: FormatFiles(words: "the Markdown", sealed: false, kept: ["!/markdown/"], holds: { $0.hasPrefix("markdown/") }, wave: Self.markdownWave),
                          hasPages: true)
        case .json:
            return Traits(help: "json", mainFile: "library.json",
                          files: FormatFiles(words: "library.json", sealed: false, kept: ["!/library.json"], holds: { $0 == "library.json" }))
        case .csv:
            return Traits(help: "csv (Goodreads' layout)", mainFile: "library.csv",
                          files: FormatFiles(words: "the CSV", sealed: false, kept: ["!/library.csv"], holds: { $0 == "library.csv" }),
                          notes: NoteTexts.Use(markdown: true), jobs: { model, notes, writer in [{ try writer.writeStream(to: "library.csv") { try GoodreadsCSV.write(model, notes: notes, to: $0) } }] })
        case .feed:
            return Traits(help: "feed (Atom)", mainFile: "feed.xml",
                          files: FormatFiles(words: "the feeds", sealed: false, holds: Self.isFeed, mediaType: { _ in "application/atom+xml; charset=utf-8" }),
                          notes: NoteTexts.Use(htmlOf: AtomFeed.books), jobs: AtomFeed.jobs)
        case .opds:
            return Traits(help: "opds (a catalog for e-reader apps)", mainFile: "opds/index.xml",
                          files: FormatFiles(words: "the OPDS catalog", sealed: false, holds: { $0.hasPrefix("opds/") }, mediaType: OPDSCatalog.mediaType,
                                             wave: { $0.split(separator: "/").count == 2 ? .entryPoints : .collectionPages }),
                          notes: NoteTexts.Use(plainText: true), jobs: OPDSCatalog.jobs, writesLast: true)
        case .bibtex:
            return Traits(help: "bibtex (for Zotero, JabRef and LaTeX)", mainFile: BibTeX.file, files: BibTeX.files,
                          notes: NoteTexts.Use(markdown: true), jobs: BibTeX.jobs)
        case .ris:
            return Traits(help: "ris (for Zotero, EndNote and Mendeley)", mainFile: RIS.file, files: RIS.files,
                          notes: NoteTexts.Use(markdown: true), jobs: RIS.jobs)
        }
    }

    /// Every format's files, for the steps that move them.
    package static var files: [FormatFiles] { allCases.map(\.traits.files) }
    package var files: FormatFiles { traits.files }

    /// A page's wave: a book's before the pages that list it; the search's index, which names every
    /// book's page, with the index page; the site's assets before any page.
    @Sendable static func pageWave(_ path: String) -> Wave? {
        if path.hasPrefix("books/") { return .bookPages }
        if path.hasPrefix("assets/search/") { return .entryPoints }
        return path.hasPrefix("assets/") ? .files : nil
    }

    /// The Markdown's: its index last, its books' pages first.
    @Sendable static func markdownWave(_ path: String) -> Wave? {
        let parts = path.split(separator: "/")
        if parts.count == 2 { return .entryPoints }
        return parts.count > 2 && parts[1] == "books" ? .bookPages : .collectionPages
    }

    /// The catalog's feed, each shelf's, beside the shelf's page (`SiteModel.shelfFeedFile`), and the timeline's.
    @Sendable static func isFeed(_ path: String) -> Bool {
        path == "feed.xml" || path == TimelineFeed.file || (path.hasPrefix("shelves/") && path.hasSuffix(".xml"))
    }

    /// Whether the site's model is made for this format: all but `library.json`, which is the
    /// library file's own bytes.
    var needsModel: Bool { self != .json }

    /// `--format`'s words: "html, markdown, json, csv (Goodreads' layout), …".
    package static var helpWords: String { allCases.map(\.traits.help).joined(separator: ", ") }
}
