import Mustache

/// What the authors' and the years' pages see: more ways into the library than its shelves.

final class AuthorView: Sendable {
    let name: String
    /// False for the books with no author ("Unknown author").
    let isKnown: Bool
    let href: String
    let markdownHref: String
    let count: Int
    let countLabel: String

    init(_ author: AuthorIndex.Author, language: Language) {
        name = author.displayName
        isKnown = author.name != nil
        href = "authors/\(author.fileName).html"
        markdownHref = "authors/\(author.fileName).md"
        count = author.books.count
        countLabel = language.count("books", author.books.count)
    }

    var nameMarkdown: String { Markdown.text(name) }
    var nameYAML: String { YAML.quoted(name) }
}

final class LetterView: Sendable {
    let letter: String
    /// The section's id on the index page.
    let anchor: String
    let authors: [AuthorView]

    init(letter: String, authors: [AuthorView]) {
        self.letter = letter
        anchor = letter == "#" ? "letter-other" : "letter-\(letter)"
        self.authors = authors
    }
}

final class AuthorsPage: Sendable {
    let root: String
    let site: SiteView
    let letters: [LetterView]
    let count: Int
    /// "120 authors of 1062 books, by surname."
    let summary: String

    init(root: String, site: SiteView, letters: [LetterView], count: Int) {
        let language = site.language
        summary = language.text("authorsTotals", ["authors": language.count("authorsCount", count), "books": language.count("books", site.bookCount)])
        self.root = root
        self.site = site
        self.letters = letters
        self.count = count
    }
}

final class AuthorPage: Sendable {
    let root: String
    let site: SiteView
    let author: AuthorView
    let books: [BookView]
    /// The author's OPDS feed, from the site's root, when the snapshot has the catalog.
    let opdsHref: String?

    init(root: String, site: SiteView, author: AuthorView, books: [BookView], opdsHref: String?) {
        self.root = root
        self.site = site
        self.author = author
        self.books = books
        self.opdsHref = opdsHref
    }
}

final class YearLinkView: Sendable {
    let year: String
    let href: String
    let markdownHref: String
    let count: Int

    init(year: String, count: Int) {
        self.year = year
        href = "years/\(year).html"
        markdownHref = "years/\(year).md"
        self.count = count
    }
}

final class YearPage: Sendable {
    let root: String
    let site: SiteView
    let year: String
    let countLabel: String
    /// "2024 in books" when the timeline tells the year, else "Added in 2024".
    let heading: String
    /// "Added in 2024", over the list of the books added when the year is told above it.
    let addedHeading: String
    /// What the timeline tells of the year.
    let inBooks: YearInBooksView?
    /// Newest first.
    let books: [BookView]
    let previous: YearLinkView?
    let next: YearLinkView?

    init(root: String, site: SiteView, year: String, inBooks: YearInBooksView? = nil, books: [BookView], previous: YearLinkView?, next: YearLinkView?) {
        self.root = root
        self.site = site
        self.year = year
        countLabel = site.language.count("books", books.count)
        addedHeading = site.language.text("addedInYear", ["year": year])
        heading = inBooks?.heading ?? addedHeading
        self.inBooks = inBooks
        self.books = books
        self.previous = previous
        self.next = next
    }
}

extension AuthorView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "name": return Text(self.name)
        case "nameMarkdown": return Text(nameMarkdown)
        case "nameYAML": return Text(nameYAML)
        case "isKnown": return isKnown
        case "href": return Text(href)
        case "markdownHref": return Text(markdownHref)
        case "count": return count
        case "countLabel": return Text(countLabel)
        default: return nil
        }
    }
}

extension LetterView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "letter": return Text(letter)
        case "anchor": return Text(anchor)
        case "letterMarkdown": return Text(letter == "#" ? "\\#" : letter)
        case "authors": return authors.map(Ref.init)
        default: return nil
        }
    }
}

extension AuthorsPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "root": return Text(root)
        case "site": return Ref(site)
        case "letters": return letters.map(Ref.init)
        case "count": return count
        case "summary": return Text(summary)
        case "isEmpty": return letters.isEmpty
        default: return nil
        }
    }
}

extension AuthorPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "root": return Text(root)
        case "site": return Ref(site)
        case "author": return Ref(author)
        case "books": return books.map(Ref.init)
        case "opdsHref": return opdsHref.map(Text.init)
        default: return nil
        }
    }
}

extension YearLinkView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "year": return Text(year)
        case "href": return Text(href)
        case "markdownHref": return Text(markdownHref)
        case "count": return count
        default: return nil
        }
    }
}

extension YearPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "root": return Text(root)
        case "site": return Ref(site)
        case "year": return Text(year)
        case "countLabel": return Text(countLabel)
        case "heading": return Text(heading)
        case "addedHeading": return Text(addedHeading)
        case "inBooks": return inBooks.map(Ref.init)
        case "books": return books.map(Ref.init)
        case "previous": return previous.map(Ref.init)
        case "next": return next.map(Ref.init)
        default: return nil
        }
    }
}
