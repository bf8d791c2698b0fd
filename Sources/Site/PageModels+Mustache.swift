import Mustache

// Children by name, for swift-mustache: much faster than the Mirror it uses otherwise (a
// profile of a 10,000-book render spent most of its time in Mirror's type lookups).
extension SiteView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "url": return self.url.map(Text.init)
        case "title": return Text(self.title)
        case "titleMarkdown": return Text(self.titleMarkdown)
        case "user": return self.user.map(Text.init)
        case "server": return self.server.map(Text.init)
        case "generatedAt": return self.generatedAt.map(Text.init)
        case "generator": return Text(self.generator)
        case "bookCount": return Text(language.number(self.bookCount))
        case "shelfCount": return Text(language.number(self.shelfCount))
        case "noteCount": return Text(language.number(self.noteCount))
        case "coverCount": return Text(language.number(self.coverCount))
        case "unshelvedCount": return Text(language.number(self.unshelvedCount))
        case "problemCount": return Text(language.number(self.problemCount))
        case "totals": return Text(totals)
        case "totalsMarkdown": return Text(totalsMarkdown)
        case "allBooksLabel": return Text(allBooksLabel)
        case "booksByTitle": return Text(booksByTitle)
        case "language": return Text(language.tag)
        case "hasProblems": return self.hasProblems
        case "hasChanges": return self.hasChanges
        case "hasTimeline": return self.hasTimeline
        case "hasFeed": return self.hasFeed
        case "hasOPDS": return self.hasOPDS
        default: return nil
        }
    }
}

extension ShelfView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "id": return self.id
        case "name": return Text(self.name)
        case "nameMarkdown": return Text(self.nameMarkdown)
        case "nameYAML": return Text(self.nameYAML)
        case "href": return Text(self.href)
        case "markdownHref": return Text(self.markdownHref)
        case "count": return self.count
        case "countLabel": return Text(self.countLabel)
        case "complete": return self.complete
        default: return nil
        }
    }
}

extension CoverView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "src": return Text(self.src)
        case "alt": return Text(self.alt)
        case "altMarkdown": return Text(self.altMarkdown)
        case "width": return self.width
        case "height": return self.height
        case "list": return Text(self.list)
        case "list2x": return Text(self.list2x)
        case "page": return Text(self.page)
        case "page2x": return Text(self.page2x)
        case "hasThumbnails": return self.hasThumbnails
        case "fromOpenLibrary": return self.fromOpenLibrary
        default: return nil
        }
    }
}

extension BookView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "id": return self.id
        case "title": return Text(self.title)
        case "titleMarkdown": return Text(self.titleMarkdown)
        case "titleYAML": return Text(self.titleYAML)
        case "author": return self.author.map(Text.init)
        case "authorMarkdown": return self.authorMarkdown.map(Text.init)
        case "authorYAML": return Text(self.authorYAML)
        case "authorHref": return self.authorHref.map(Text.init)
        case "authorMarkdownHref": return self.authorMarkdownHref.map(Text.init)
        case "isbn": return self.isbn.map(Text.init)
        case "isbnYAML": return Text(self.isbnYAML)
        case "href": return Text(self.href)
        case "markdownHref": return Text(self.markdownHref)
        case "cover": return self.cover.map(Ref.init)
        case "coverPathYAML": return Text(self.coverPathYAML)
        case "shelf": return self.shelf.map(Ref.init)
        case "shelfNameYAML": return Text(self.shelfNameYAML)
        case "addedYAML": return Text(self.addedYAML)
        case "missingShelfName": return self.missingShelfName.map(Text.init)
        case "createdAt": return self.createdAt.map(Text.init)
        case "createdAtLabel": return self.createdAt.map { Text(language.day($0)) }
        case "language": return Text(language.tag)
        case "hasNote": return self.hasNote
        case "complete": return self.complete
        case "sortTitle": return Text(self.sortTitle)
        case "sortAuthor": return Text(self.sortAuthor)
        case "sortShelf": return Text(self.sortShelf)
        case "openLibrary": return self.openLibrary.map(Ref.init)
        default: return nil
        }
    }
}

extension OpenLibraryView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "publisher": return self.publisher.map(Text.init)
        case "publisherMarkdown": return self.publisherMarkdown.map(Text.init)
        case "publisherYAML": return Text(self.publisherYAML)
        case "year": return self.year
        case "pages": return self.pages
        case "subjects": return self.subjects.map(Text.init)
        case "hasSubjects": return self.hasSubjects
        case "subjectList": return Text(self.subjectList)
        case "subjectListMarkdown": return Text(self.subjectListMarkdown)
        case "subjectsYAML": return Text(self.subjectsYAML)
        case "editionURL": return self.editionURL.map(Text.init)
        case "editionURLYAML": return Text(self.editionURLYAML)
        default: return nil
        }
    }
}

extension ProblemView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "message": return Text(self.message)
        case "messageMarkdown": return Text(self.messageMarkdown)
        case "book": return self.book.map(Ref.init)
        default: return nil
        }
    }
}

extension IndexPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "root": return Text(self.root)
        case "site": return Ref(self.site)
        case "changes": return self.changes.map(Ref.init)
        case "shelves": return self.shelves.map(Ref.init)
        case "unshelved": return self.unshelved.map(Ref.init)
        case "hasUnshelved": return self.hasUnshelved
        case "problems": return self.problems.map(Ref.init)
        case "recent": return self.recent.map(Ref.init)
        case "hasRecent": return !self.recent.isEmpty
        default: return nil
        }
    }
}

extension BooksPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "root": return Text(self.root)
        case "site": return Ref(self.site)
        case "books": return self.books.map(Ref.init)
        case "pager": return self.pager.map(Ref.init)
        default: return nil
        }
    }
}

extension PageLinkView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "number": return number
        case "href": return Text(href)
        case "current": return current
        default: return nil
        }
    }
}

extension PagerView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "pages": return pages.map(Ref.init)
        case "previousHref": return previousHref.map(Text.init)
        case "nextHref": return nextHref.map(Text.init)
        case "number": return number
        case "count": return count
        case "first": return first
        case "last": return last
        case "summary": return Text(summary)
        default: return nil
        }
    }
}

extension ShelfPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "root": return Text(self.root)
        case "site": return Ref(self.site)
        case "shelf": return Ref(self.shelf)
        case "books": return self.books.map(Ref.init)
        case "isEmpty": return self.isEmpty
        case "feedHref": return self.feedHref.map(Text.init)
        case "hidesShelf": return self.hidesShelf
        default: return nil
        }
    }
}

extension BookPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "root": return Text(self.root)
        case "site": return Ref(self.site)
        case "book": return Ref(self.book)
        case "noteHTML": return Text(self.noteHTML)
        case "noteMarkdown": return Text(self.noteMarkdown)
        case "problems": return self.problems.map(Ref.init)
        case "detailsUnavailable": return self.detailsUnavailable.map(Text.init)
        case "showsNotes": return self.showsNotes
        case "jsonLD": return Text(self.jsonLD)
        case "pageURL": return self.pageURL.map(Text.init)
        case "imageURL": return self.imageURL.map(Text.init)
        case "story": return self.story.map(Text.init)
        case "storyMarkdown": return self.story.map { Text(Markdown.text($0)) }
        default: return nil
        }
    }
}

extension ChangeItemView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "title": return Text(self.title)
        case "titleMarkdown": return Text(self.titleMarkdown)
        case "href": return self.href.map(Text.init)
        case "markdownHref": return self.markdownHref.map(Text.init)
        case "detail": return self.detail.map(Text.init)
        case "detailMarkdown": return self.detailMarkdown.map(Text.init)
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
        case "date": return self.date.map(Text.init)
        case "previousDate": return self.previousDate.map(Text.init)
        case "summary": return Text(self.summary)
        case "earlier": return self.earlier.map(Ref.init)
        case "hasEarlier": return !self.earlier.isEmpty
        case "added": return self.added.map(Ref.init)
        case "removed": return self.removed.map(Ref.init)
        case "moved": return self.moved.map(Ref.init)
        case "edited": return self.edited.map(Ref.init)
        default: return nil
        }
    }
}

extension PlainPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "root": return Text(self.root)
        case "site": return Ref(self.site)
        case "online": return self.online.map(Text.init)
        case "connectSource": return self.connectSource.map(Text.init)
        default: return nil
        }
    }
}

extension ChangesPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "root": return Text(self.root)
        case "site": return Ref(self.site)
        case "changes": return Ref(self.changes)
        default: return nil
        }
    }
}
