import LibraryArchive
import Mustache
import Notes
import SnapshotStore
import Support

// A book, its cover and what Open Library added, as the templates see them (the pages that hold
// them: `PageModels.swift`).

/// A cover as pages show it: the file itself, and its thumbnails for lists and the book page.
final class CoverView: Sendable {
    /// The cover as it came, whole.
    let src: String
    /// "Cover of TITLE", made when a template asks for it: most pages that list a book show no cover text.
    var alt: String { language.text("coverOf", ["title": title]) }
    private let title: String
    private let language: Language
    let width: Int?
    let height: Int?
    /// Its thumbnails, when it has them: a list's 4 × 6 rem box at 1× and 2×, a book page's 12 × 18 rem
    /// at 1× and 2×. Without them, each is the cover itself.
    let list: String
    let list2x: String
    let page: String
    let page2x: String
    let hasThumbnails: Bool
    /// Found in Open Library, not on the server.
    let fromOpenLibrary: Bool
    /// Made when a template asks for it, as the other texts of a book for one kind of page.
    var altMarkdown: String { Markdown.text(alt) }

    init(src: String, title: String, language: Language, width: Int? = nil, height: Int? = nil, thumbnails: [String]? = nil, fromOpenLibrary: Bool = false) {
        self.src = src
        self.title = title
        self.language = language
        self.width = width
        self.height = height
        let sizes = thumbnails ?? []
        hasThumbnails = sizes.count == 4
        list = hasThumbnails ? sizes[0] : src
        list2x = hasThumbnails ? sizes[1] : src
        page = hasThumbnails ? sizes[2] : src
        page2x = hasThumbnails ? sizes[3] : src
        self.fromOpenLibrary = fromOpenLibrary
    }
}

/// What Open Library added to a book (`--enrich openlibrary`), as its pages show it, marked as
/// Open Library's.
final class OpenLibraryView: Sendable {
    let publisher: String?
    let year: Int?
    let pages: Int?
    let subjects: [String]
    /// The edition's page on Open Library (not `href`: a missing one would be the book's, to Mustache).
    let editionURL: String?

    init(_ fields: OpenLibraryFields) {
        publisher = fields.publisher
        year = fields.year
        pages = fields.pages
        subjects = fields.subjects
        editionURL = fields.key.map { "https://openlibrary.org\($0)" }
    }

    var hasSubjects: Bool { !subjects.isEmpty }
    var subjectList: String { subjects.joined(separator: " · ") }
    var subjectListMarkdown: String { Markdown.text(subjectList) }
    var publisherMarkdown: String? { publisher.map(Markdown.text) }
    var publisherYAML: String { YAML.quoted(publisher) }
    var subjectsYAML: String { "[" + subjects.map { YAML.quoted($0) }.joined(separator: ", ") + "]" }
    var editionURLYAML: String { YAML.quoted(editionURL) }
}

/// A book as a page shows it. The texts for Markdown, YAML and sorting are made when a template
/// asks for them: an HTML book page uses none of them, and making them all for every book on
/// every page was a fifth of the render's time.
final class BookView: Sendable {
    let id: Int
    let title: String
    /// The title as the book gives it (the YAML front matter keeps an empty one empty).
    let givenTitle: String
    let author: String?
    /// The author's page, from the site's root (also for a book with no author: "Unknown author").
    let authorHref: String?
    let authorMarkdownHref: String?
    let isbn: String?
    let href: String
    let markdownHref: String
    let cover: CoverView?
    let shelf: ShelfView?
    /// The shelf's name, or the name the book gives for a shelf that no longer exists.
    let shelfName: String?
    /// The book names a shelf that no longer exists.
    let missingShelfName: String?
    let createdAt: String?
    let hasNote: Bool
    let complete: Bool
    let openLibrary: OpenLibraryView?
    /// The pages' language: the day the book was added, and the keys the page's script sorts by.
    let language: Language

    init(id: Int, title: String, givenTitle: String, author: String? = nil, authorFile: String? = nil, isbn: String? = nil, href: String, markdownHref: String,
         cover: CoverView? = nil, shelf: ShelfView? = nil, shelfName: String?, missingShelfName: String? = nil, createdAt: String? = nil,
         hasNote: Bool, complete: Bool, openLibrary: OpenLibraryFields? = nil, language: Language) {
        self.language = language
        self.id = id
        self.title = title
        self.givenTitle = givenTitle
        self.author = author
        authorHref = authorFile.map { "authors/\($0).html" }
        authorMarkdownHref = authorFile.map { "authors/\($0).md" }
        self.isbn = isbn
        self.href = href
        self.markdownHref = markdownHref
        self.cover = cover
        self.shelf = shelf
        self.shelfName = shelfName
        self.missingShelfName = missingShelfName
        self.createdAt = createdAt
        self.hasNote = hasNote
        self.complete = complete
        self.openLibrary = openLibrary.map(OpenLibraryView.init)
    }

    var titleMarkdown: String { Markdown.text(title) }
    var titleYAML: String { YAML.quoted(givenTitle) }
    var authorMarkdown: String? { author.map(Markdown.text) }
    var authorYAML: String { YAML.quoted(author) }
    var isbnYAML: String { YAML.quoted(isbn) }
    var coverPathYAML: String { YAML.quoted(cover.map { "../../" + $0.src }) }
    var shelfNameYAML: String { YAML.quoted(shelfName) }
    /// The day the book was added, as YAML reads a date (`2024-01-03`), for a vault's queries by date.
    var addedYAML: String { createdAt.flatMap(SiteModel.day) ?? "null" }
    /// Keys for sorting in the page: folded case and accents in English (`Language.browserSortKey`).
    var sortTitle: String { language.browserSortKey(title) }
    var sortAuthor: String { language.browserSortKey(author.map(GoodreadsCSV.lastFirst) ?? "") }
    var sortShelf: String { language.browserSortKey(shelf?.name ?? "") }
}
