import LibraryArchive
import Mustache
import Notes
import SnapshotStore
import Support

/// What the templates see. Classes, so that swift-mustache's casts of each value it looks a name
/// up in copy a reference, not every string of a page (that copying was most of the render time).
/// Every string is raw text; `{{x}}` escapes it.
/// The Markdown templates get text already escaped for Markdown (`…Markdown`) and YAML (`…YAML`).

/// A string as the templates see it. swift-mustache renders a `MustacheCustomRenderable` (escaped
/// by `{{x}}`, as is by `{{{x}}}`) after two type checks, where a plain String goes through five and
/// `String(describing:)`: most of the time of a page went there. Transforms work as on a String.
struct Text: MustacheCustomRenderable, MustacheTransformable, Sendable {
    let renderText: String

    init(_ text: String) {
        renderText = text
    }

    var isNull: Bool { false }

    func transform(_ name: String) -> Any? {
        renderText.transform(name)
    }
}

/// Text answers no name. In a section (`{{#author}}…{{/author}}`) it stands on swift-mustache's
/// stack, and every name looked up inside was otherwise looked for in it through a Mirror (2% of a
/// render's time), to be found below it all the same.
extension Text: MustacheParent {
    func child(named name: String) -> Any? { nil }
}

/// A page object as the templates see it: a value holding a reference. swift-mustache casts every
/// object it looks a name up in; casting a class instance to a protocol it lacks is slow on Linux
/// (the runtime checks for a boxed value), casting this struct is not, and copying it is one retain.
struct Ref<Object: MustacheParent & AnyObject>: MustacheParent {
    let object: Object

    init(_ object: Object) {
        self.object = object
    }

    func child(named name: String) -> Any? {
        object.child(named: name)
    }
}

/// A page: the only object that answers `{{root}}` (its way back to the site's top, "" or "../"),
/// which its templates therefore have written in (`TemplateSet.rooted`).
protocol RootedPage {
    var root: String { get }
}

extension IndexPage: RootedPage {}
extension BooksPage: RootedPage {}
extension ShelfPage: RootedPage {}
extension BookPage: RootedPage {}
extension ChangesPage: RootedPage {}
extension AuthorsPage: RootedPage {}
extension AuthorPage: RootedPage {}
extension YearPage: RootedPage {}
extension StatsPage: RootedPage {}

final class SiteView: Sendable {
    /// With --site-url, the site's absolute address, ending in "/".
    let url: String?
    let title: String
    let titleMarkdown: String
    let user: String?
    /// Only in snapshots written before the server and account were kept private.
    let server: String?
    /// The snapshot's date, on the pages of the whole library; nil on a book's or a shelf's page,
    /// which then stays the same bytes from one night to the next until what it shows changes.
    let generatedAt: String?
    /// "reader-snapshot 0.1.0": the pages' `<meta name="generator">`.
    let generator = ToolVersion.generator
    let bookCount: Int
    let shelfCount: Int
    let noteCount: Int
    let coverCount: Int
    let unshelvedCount: Int
    let problemCount: Int
    let hasProblems: Bool
    let hasChanges: Bool
    /// The snapshot keeps a timeline (`timeline.html`).
    let hasTimeline: Bool
    /// The snapshot has `feed.xml` and the shelves' feeds; `opds/`.
    let hasFeed: Bool
    let hasOPDS: Bool
    /// The language the pages are written in, and the site's sentences in it.
    let language: Language
    /// "1062 books on 12 shelves · 40 with notes · 30 with covers"
    let totals: String
    let totalsMarkdown: String
    /// "All 1062 books"
    let allBooksLabel: String
    /// "1062 books, by title."
    let booksByTitle: String

    init(url: String? = nil, title: String, titleMarkdown: String, user: String? = nil, server: String? = nil, generatedAt: String?, bookCount: Int, shelfCount: Int, noteCount: Int, coverCount: Int, unshelvedCount: Int, problemCount: Int, hasProblems: Bool, hasChanges: Bool, hasTimeline: Bool = false, hasFeed: Bool = true, hasOPDS: Bool = false, language: Language) {
        self.language = language
        let books = language.count("books", bookCount), shelves = language.count("shelvesCount", shelfCount)
        totals = language.text("indexTotals", ["books": books, "shelves": shelves, "notes": language.number(noteCount), "covers": language.number(coverCount)])
        totalsMarkdown = language.text("indexTotalsMarkdown", ["books": books, "shelves": shelves, "notes": language.number(noteCount)])
        allBooksLabel = language.count("allBooksCount", bookCount)
        booksByTitle = language.count("booksByTitle", bookCount)
        self.url = url
        self.title = title
        self.titleMarkdown = titleMarkdown
        self.user = user
        self.server = server
        self.generatedAt = generatedAt
        self.bookCount = bookCount
        self.shelfCount = shelfCount
        self.noteCount = noteCount
        self.coverCount = coverCount
        self.unshelvedCount = unshelvedCount
        self.problemCount = problemCount
        self.hasProblems = hasProblems
        self.hasChanges = hasChanges
        self.hasTimeline = hasTimeline
        self.hasFeed = hasFeed
        self.hasOPDS = hasOPDS
    }
}

final class ShelfView: Sendable {
    let id: Int
    let name: String
    let nameMarkdown: String
    let nameYAML: String
    let href: String
    let markdownHref: String
    let count: Int
    let countLabel: String
    let complete: Bool

    init(id: Int, name: String, nameMarkdown: String, nameYAML: String, href: String, markdownHref: String, count: Int, countLabel: String, complete: Bool) {
        self.id = id
        self.name = name
        self.nameMarkdown = nameMarkdown
        self.nameYAML = nameYAML
        self.href = href
        self.markdownHref = markdownHref
        self.count = count
        self.countLabel = countLabel
        self.complete = complete
    }
}

final class ProblemView: Sendable {
    let message: String
    let messageMarkdown: String
    let book: BookView?

    init(message: String, messageMarkdown: String, book: BookView? = nil) {
        self.message = message
        self.messageMarkdown = messageMarkdown
        self.book = book
    }
}

final class IndexPage: Sendable {
    let root: String
    let site: SiteView
    let changes: ChangesView?
    let shelves: [ShelfView]
    let unshelved: [BookView]
    let hasUnshelved: Bool
    let problems: [ProblemView]
    /// The most recently added books, newest first.
    let recent: [BookView]

    init(root: String, site: SiteView, changes: ChangesView? = nil, shelves: [ShelfView], unshelved: [BookView], hasUnshelved: Bool, problems: [ProblemView], recent: [BookView] = []) {
        self.root = root
        self.site = site
        self.changes = changes
        self.shelves = shelves
        self.unshelved = unshelved
        self.hasUnshelved = hasUnshelved
        self.problems = problems
        self.recent = recent
    }
}

final class BooksPage: Sendable {
    let root: String
    let site: SiteView
    let books: [BookView]
    /// Links to the other pages of the list, when it has more than one.
    let pager: PagerView?

    init(root: String, site: SiteView, books: [BookView], pager: PagerView? = nil) {
        self.root = root
        self.site = site
        self.books = books
        self.pager = pager
    }
}

final class PageLinkView: Sendable {
    let number: Int
    let href: String
    let current: Bool

    init(number: Int, href: String, current: Bool) {
        self.number = number
        self.href = href
        self.current = current
    }
}

final class PagerView: Sendable {
    let pages: [PageLinkView]
    let previousHref: String?
    let nextHref: String?
    /// This page's number, the number of pages, and the first and last book on this page (from 1).
    let number: Int
    let count: Int
    let first: Int
    let last: Int

    /// "Books 1–5000 on page 1 of 3; …"
    let summary: String

    init(pages: [PageLinkView], previousHref: String?, nextHref: String?, number: Int, count: Int, first: Int, last: Int, language: Language,
         summaryKey: String = "pagerSummary") {
        summary = language.text(summaryKey, ["first": language.number(first), "last": language.number(last),
                                                 "number": language.number(number), "count": language.number(count)])
        self.pages = pages
        self.previousHref = previousHref
        self.nextHref = nextHref
        self.number = number
        self.count = count
        self.first = first
        self.last = last
    }
}

final class ShelfPage: Sendable {
    let root: String
    let site: SiteView
    let shelf: ShelfView
    let books: [BookView]
    let isEmpty: Bool
    /// The shelf's Atom feed, from the site's root, when the snapshot has feeds.
    let feedHref: String?
    /// Every book listed is on this shelf: its cards need not say so again.
    let hidesShelf: Bool

    init(root: String, site: SiteView, shelf: ShelfView, books: [BookView], isEmpty: Bool, feedHref: String? = nil, hidesShelf: Bool = false) {
        self.root = root
        self.site = site
        self.shelf = shelf
        self.books = books
        self.isEmpty = isEmpty
        self.feedHref = feedHref
        self.hidesShelf = hidesShelf
    }
}

final class BookPage: Sendable {
    let root: String
    let site: SiteView
    let book: BookView
    let noteHTML: String
    let noteMarkdown: String
    /// The book's gaps but the one `detailsUnavailable` already says: each is said once.
    let problems: [ProblemView]
    /// For a book whose details the server did not give: that, since when, and that the page
    /// comes from the list of books, in one sentence, the only one the page says of it.
    let detailsUnavailable: String?
    /// Whether the page has a notes section: not for a book whose details (and so its notes)
    /// were not given, which `detailsUnavailable` says.
    let showsNotes: Bool
    /// schema.org Book, as JSON safe inside a script element.
    let jsonLD: String
    /// Absolute, with --site-url: the page's own URL and its cover's, for Open Graph.
    let pageURL: String?
    let imageURL: String?
    /// What the timeline tells of the book, in one line.
    let story: String?

    init(root: String, site: SiteView, book: BookView, noteHTML: String, noteMarkdown: String, problems: [ProblemView],
         detailsUnavailable: String? = nil, jsonLD: String, pageURL: String? = nil, imageURL: String? = nil, story: String? = nil) {
        self.story = story
        self.root = root
        self.site = site
        self.book = book
        self.noteHTML = noteHTML
        self.noteMarkdown = noteMarkdown
        self.problems = problems
        self.detailsUnavailable = detailsUnavailable
        showsNotes = book.hasNote || book.complete
        self.jsonLD = jsonLD
        self.pageURL = pageURL
        self.imageURL = imageURL
    }
}

final class ChangeItemView: Sendable {
    let title: String
    let titleMarkdown: String
    /// A link to the book's page, when the book is still in the library.
    let href: String?
    let markdownHref: String?
    let detail: String?
    let detailMarkdown: String?

    init(title: String, titleMarkdown: String, href: String? = nil, markdownHref: String? = nil, detail: String? = nil, detailMarkdown: String? = nil) {
        self.title = title
        self.titleMarkdown = titleMarkdown
        self.href = href
        self.markdownHref = markdownHref
        self.detail = detail
        self.detailMarkdown = detailMarkdown
    }
}

final class ChangesView: Sendable {
    let firstRun: Bool
    let hasChanges: Bool
    let noChanges: Bool
    /// When the snapshot that found these changes was taken.
    let date: String?
    let previousDate: String?
    let summary: String
    let added: [ChangeItemView]
    let removed: [ChangeItemView]
    let moved: [ChangeItemView]
    let edited: [ChangeItemView]
    /// The nights before that found changes, newest first.
    let earlier: [ChangesView]

    init(firstRun: Bool, hasChanges: Bool, noChanges: Bool, date: String? = nil, previousDate: String? = nil, summary: String,
         added: [ChangeItemView], removed: [ChangeItemView], moved: [ChangeItemView], edited: [ChangeItemView], earlier: [ChangesView] = []) {
        self.firstRun = firstRun
        self.hasChanges = hasChanges
        self.noChanges = noChanges
        self.date = date
        self.earlier = earlier
        self.previousDate = previousDate
        self.summary = summary
        self.added = added
        self.removed = removed
        self.moved = moved
        self.edited = edited
    }
}

/// A page of the whole site with nothing of its own in its model: lookup.html, whose answers come
/// from its script.
final class PlainPage: Sendable {
    let root: String
    let site: SiteView
    /// lookup.html with `--lookup-online`: the Open Library its script asks, and the origin its
    /// Content-Security-Policy lets it reach (none other).
    let online: String?
    let connectSource: String?

    init(root: String, site: SiteView, online: String? = nil, connectSource: String? = nil) {
        self.root = root
        self.site = site
        self.online = online
        self.connectSource = connectSource
    }
}

final class ChangesPage: Sendable {
    let root: String
    let site: SiteView
    let changes: ChangesView

    init(root: String, site: SiteView, changes: ChangesView) {
        self.root = root
        self.site = site
        self.changes = changes
    }
}
