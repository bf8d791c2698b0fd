/// What the templates see. Plain stored properties only: swift-mustache reads values through
/// Mirror, which does not see computed properties. Every string is raw text; `{{x}}` escapes it.
/// The Markdown templates get text already escaped for Markdown (`…Markdown`) and YAML (`…YAML`).

struct SiteView {
    var title: String
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
