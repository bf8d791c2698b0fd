import Mustache

/// What the templates see. Plain stored properties only: swift-mustache reads values through
/// Mirror, which does not see computed properties. Every string is raw text; `{{x}}` escapes it.
/// The Markdown templates get text already escaped for Markdown (`…Markdown`) and YAML (`…YAML`).

struct SiteView {
    /// With --site-url, the site's absolute address, ending in "/".
    var url: String?
    var title: String
    var titleMarkdown: String
    var user: String?
    var server: String
    var generatedAt: String
    var bookCount: Int
    var shelfCount: Int
    var noteCount: Int
    var coverCount: Int
    var unshelvedCount: Int
    var problemCount: Int
    var hasProblems: Bool
    var hasChanges: Bool
}

struct ShelfView {
    var id: Int
    var name: String
    var nameMarkdown: String
    var nameYAML: String
    var href: String
    var markdownHref: String
    var count: Int
    var countLabel: String
    var complete: Bool
}

struct CoverView {
    var src: String
    var alt: String
    var altMarkdown: String
    var width: Int?
    var height: Int?
}

struct BookView {
    var id: Int
    var title: String
    var titleMarkdown: String
    var titleYAML: String
    var author: String?
    var authorMarkdown: String?
    var authorYAML: String
    var isbn: String?
    var isbnYAML: String
    var href: String
    var markdownHref: String
    var cover: CoverView?
    var coverPathYAML: String
    var shelf: ShelfView?
    var shelfNameYAML: String
    /// The book names a shelf that no longer exists.
    var missingShelfName: String?
    var createdAt: String?
    var hasNote: Bool
    var complete: Bool
    /// Keys for sorting in the page: folded case and accents.
    var sortTitle: String
    var sortAuthor: String
    var sortShelf: String
}

struct ProblemView {
    var message: String
    var messageMarkdown: String
    var book: BookView?
}

struct IndexPage {
    var root: String
    var site: SiteView
    var changes: ChangesView?
    var shelves: [ShelfView]
    var unshelved: [BookView]
    var hasUnshelved: Bool
    var problems: [ProblemView]
}

struct BooksPage {
    var root: String
    var site: SiteView
    var books: [BookView]
}

struct ShelfPage {
    var root: String
    var site: SiteView
    var shelf: ShelfView
    var books: [BookView]
    var isEmpty: Bool
}

struct BookPage {
    var root: String
    var site: SiteView
    var book: BookView
    var noteHTML: String
    var noteMarkdown: String
    var problems: [ProblemView]
    /// schema.org Book, as JSON safe inside a script element.
    var jsonLD: String
    /// Absolute, with --site-url: the page's own URL and its cover's, for Open Graph.
    var pageURL: String?
    var imageURL: String?
}

struct ChangeItemView {
    var title: String
    var titleMarkdown: String
    /// A link to the book's page, when the book is still in the library.
    var href: String?
    var markdownHref: String?
    var detail: String?
    var detailMarkdown: String?
}

struct ChangesView {
    var firstRun: Bool
    var hasChanges: Bool
    var noChanges: Bool
    var previousDate: String?
    var summary: String
    var added: [ChangeItemView]
    var removed: [ChangeItemView]
    var moved: [ChangeItemView]
    var edited: [ChangeItemView]
}

struct ChangesPage {
    var root: String
    var site: SiteView
    var changes: ChangesView
}

// Children by name, for swift-mustache: much faster than the Mirror it uses otherwise (a
// profile of a 10,000-book render spent most of its time in Mirror's type lookups).
extension SiteView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "url": return self.url
        case "title": return self.title
        case "titleMarkdown": return self.titleMarkdown
        case "user": return self.user
        case "server": return self.server
        case "generatedAt": return self.generatedAt
        case "bookCount": return self.bookCount
        case "shelfCount": return self.shelfCount
        case "noteCount": return self.noteCount
        case "coverCount": return self.coverCount
        case "unshelvedCount": return self.unshelvedCount
        case "problemCount": return self.problemCount
        case "hasProblems": return self.hasProblems
        case "hasChanges": return self.hasChanges
        default: return nil
        }
    }
}

extension ShelfView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "id": return self.id
        case "name": return self.name
        case "nameMarkdown": return self.nameMarkdown
        case "nameYAML": return self.nameYAML
        case "href": return self.href
        case "markdownHref": return self.markdownHref
        case "count": return self.count
        case "countLabel": return self.countLabel
        case "complete": return self.complete
        default: return nil
        }
    }
}

extension CoverView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "src": return self.src
        case "alt": return self.alt
        case "altMarkdown": return self.altMarkdown
        case "width": return self.width
        case "height": return self.height
        default: return nil
        }
    }
}

extension BookView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "id": return self.id
        case "title": return self.title
        case "titleMarkdown": return self.titleMarkdown
        case "titleYAML": return self.titleYAML
        case "author": return self.author
        case "authorMarkdown": return self.authorMarkdown
        case "authorYAML": return self.authorYAML
        case "isbn": return self.isbn
        case "isbnYAML": return self.isbnYAML
        case "href": return self.href
        case "markdownHref": return self.markdownHref
        case "cover": return self.cover
        case "coverPathYAML": return self.coverPathYAML
        case "shelf": return self.shelf
        case "shelfNameYAML": return self.shelfNameYAML
        case "missingShelfName": return self.missingShelfName
        case "createdAt": return self.createdAt
        case "hasNote": return self.hasNote
        case "complete": return self.complete
        case "sortTitle": return self.sortTitle
        case "sortAuthor": return self.sortAuthor
        case "sortShelf": return self.sortShelf
        default: return nil
        }
    }
}

extension ProblemView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "message": return self.message
        case "messageMarkdown": return self.messageMarkdown
        case "book": return self.book
        default: return nil
        }
    }
}

extension IndexPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "root": return self.root
        case "site": return self.site
        case "changes": return self.changes
        case "shelves": return self.shelves
        case "unshelved": return self.unshelved
        case "hasUnshelved": return self.hasUnshelved
        case "problems": return self.problems
        default: return nil
        }
    }
}

extension BooksPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "root": return self.root
        case "site": return self.site
        case "books": return self.books
        default: return nil
        }
    }
}

extension ShelfPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "root": return self.root
        case "site": return self.site
        case "shelf": return self.shelf
        case "books": return self.books
        case "isEmpty": return self.isEmpty
        default: return nil
        }
    }
}

extension BookPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "root": return self.root
        case "site": return self.site
        case "book": return self.book
        case "noteHTML": return self.noteHTML
        case "noteMarkdown": return self.noteMarkdown
        case "problems": return self.problems
        case "jsonLD": return self.jsonLD
        case "pageURL": return self.pageURL
        case "imageURL": return self.imageURL
        default: return nil
        }
    }
}

extension ChangeItemView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "title": return self.title
        case "titleMarkdown": return self.titleMarkdown
        case "href": return self.href
        case "markdownHref": return self.markdownHref
        case "detail": return self.detail
        case "detailMarkdown": return self.detailMarkdown
        default: return nil
        }
    }
}

extension ChangesView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "firstRun": return self.firstRun
        case "hasChanges": return self.hasChanges
        case "noChanges": return self.noChanges
        case "previousDate": return self.previousDate
        case "summary": return self.summary
        case "added": return self.added
        case "removed": return self.removed
        case "moved": return self.moved
        case "edited": return self.edited
        default: return nil
        }
    }
}

extension ChangesPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "root": return self.root
        case "site": return self.site
        case "changes": return self.changes
        default: return nil
        }
    }
}
