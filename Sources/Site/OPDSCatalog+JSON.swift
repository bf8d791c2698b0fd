import Foundation
import LibraryArchive

/// `opds/*.json`: the same catalog as OPDS 2.0 (JSON, `application/opds+json`), feed for feed the
/// twin of the OPDS 1.2 one, with the same names but `.json`: the root, all books (paged, with the
/// shelves as facets), the recently added, the shelves and the authors, and each shelf's and
/// author's books. Each feed and its 1.2 twin link each other as `alternate`.
extension OPDSCatalog {
    static let json = "application/opds+json"

    /// Every OPDS 2.0 feed.
    func jsonFeeds() -> [Feed] {
        var feeds: [Feed] = []
        let root = "opds/index.json"
        var navigation = [
            OPDS2.Link(href: "opds/books.json", type: Self.json, rel: .one("subsection"), title: model.language.text("allBooks"),
                       properties: .init(numberOfItems: model.books.count)),
            OPDS2.Link(href: "opds/new.json", type: Self.json, rel: .one("http://opds-spec.org/sort/new"), title: model.language.text("recentlyAdded"),
                       properties: .init(numberOfItems: model.recent.count)),
            OPDS2.Link(href: "opds/shelves.json", type: Self.json, rel: .one("subsection"), title: model.language.text("shelves"),
                       properties: .init(numberOfItems: model.shelves.count)),
            OPDS2.Link(href: "opds/authors.json", type: Self.json, rel: .one("subsection"), title: model.language.text("authors"),
                       properties: .init(numberOfItems: model.authors.authors.count)),
        ]
        if model.shelves.isEmpty { navigation.remove(at: 2) }
        feeds.append((root, { [self] in
            jsonFeed(path: root, kind: Self.navigation, title: model.site.title, up: nil, content: .navigation(navigation))
        }))

        // On all books, a reader narrows the list to one shelf.
        let byShelf = model.shelves.isEmpty ? [] : [OPDS2.Facet(
            metadata: .init(title: "Shelf"),
            links: model.shelves.map { shelf in
                OPDS2.Link(href: "opds/shelves/\(shelf.fileName).json", type: Self.json, title: shelf.shelf.name,
                           properties: .init(numberOfItems: shelf.books.count))
            })]
        feeds += jsonPaged(base: "opds/books", kind: Self.acquisition, title: model.language.text("allBooks"), up: root, count: model.books.count,
                           facets: byShelf) { [self] range, path in
            .publications(model.books[range].map { publication($0, from: path) })
        }
        feeds.append(("opds/new.json", { [self] in
            jsonFeed(path: "opds/new.json", kind: Self.acquisition, title: model.language.text("recentlyAdded"), up: root,
                     content: .publications(model.recent.map { publication($0, from: "opds/new.json") }))
        }))
        if !model.shelves.isEmpty {
            feeds += jsonPaged(base: "opds/shelves", kind: Self.navigation, title: model.language.text("shelves"), up: root, count: model.shelves.count) { [self] range, _ in
                .navigation(model.shelves[range].map { shelf in
                    OPDS2.Link(href: "opds/shelves/\(shelf.fileName).json", type: Self.json, rel: .one("subsection"), title: shelf.shelf.name,
                               properties: .init(numberOfItems: shelf.books.count))
                })
            }
        }
        feeds += jsonPaged(base: "opds/authors", kind: Self.navigation, title: model.language.text("authors"), up: root, count: model.authors.authors.count) { [self] range, _ in
            .navigation(model.authors.authors[range].map { author in
                OPDS2.Link(href: "opds/authors/\(author.fileName).json", type: Self.json, rel: .one("subsection"), title: author.displayName,
                           properties: .init(numberOfItems: author.books.count))
            })
        }
        for shelf in model.shelves {
            feeds += jsonPaged(base: "opds/shelves/\(shelf.fileName)", kind: Self.acquisition, title: shelf.shelf.name, up: "opds/shelves.json",
                               count: shelf.books.count) { [self] range, path in
                .publications(shelf.books[range].map { publication($0, from: path) })
            }
        }
        for author in model.authors.authors {
            feeds += jsonPaged(base: "opds/authors/\(author.fileName)", separator: "--", kind: Self.acquisition, title: author.displayName,
                               up: "opds/authors.json", count: author.books.count) { [self] range, path in
                .publications(author.books[range].map { publication($0, from: path) })
            }
        }
        return feeds
    }

    /// `base.json`, `base-2.json`, …, named as their 1.2 twins are: each a page, linked first/previous/next/last.
    private func jsonPaged(base: String, separator: String = "-", kind: String, title: String, up: String?, count: Int,
                           facets: [OPDS2.Facet] = [], content: @escaping (Range<Int>, String) -> OPDS2.Content) -> [Feed] {
        let pages = max(1, (count + Self.entriesPerPage - 1) / Self.entriesPerPage)
        func path(_ number: Int) -> String { number == 1 ? base + ".json" : "\(base)\(separator)\(number).json" }
        return (1...pages).map { number in
            let start = (number - 1) * Self.entriesPerPage
            let here = path(number)
            var links: [(rel: String, path: String)] = []
            if pages > 1 {
                links.append(("first", path(1)))
                if number > 1 { links.append(("previous", path(number - 1))) }
                if number < pages { links.append(("next", path(number + 1))) }
                links.append(("last", path(pages)))
            }
            let paging = OPDS2.FeedMetadata(title: pages > 1 ? model.language.text("feedPage", ["title": title, "number": model.language.number(number), "count": model.language.number(pages)]) : title, modified: updated,
                                            numberOfItems: count, itemsPerPage: Self.entriesPerPage, currentPage: number)
            return (here, { [self] in
                jsonFeed(path: here, kind: kind, metadata: paging, up: up, content: content(start..<min(start + Self.entriesPerPage, count), here),
                         paging: links, facets: facets)
            })
        }
    }

    private func jsonFeed(path: String, kind: String, title: String, up: String?, content: OPDS2.Content) -> String {
        jsonFeed(path: path, kind: kind, metadata: .init(title: title, modified: updated), up: up, content: content)
    }

    private func jsonFeed(path: String, kind: String, metadata: OPDS2.FeedMetadata, up: String?, content: OPDS2.Content,
                          paging: [(rel: String, path: String)] = [], facets: [OPDS2.Facet] = []) -> String {
        var links = [
            OPDS2.Link(href: "opds/index.json", type: Self.json, rel: .one("start")),
            OPDS2.Link(href: path, type: Self.json, rel: .one("self")),
            // The same feed as OPDS 1.2, for the apps that read only that.
            OPDS2.Link(href: Self.twin(of: path), type: kind, rel: .one("alternate")),
        ]
        if let up { links.append(OPDS2.Link(href: up, type: Self.json, rel: .one("up"))) }
        links += paging.map { OPDS2.Link(href: $0.path, type: Self.json, rel: .one($0.rel)) }
        if model.formats.contains(.html) { links.append(OPDS2.Link(href: "index.html", type: "text/html", rel: .one("alternate"))) }
        var feed = OPDS2.Feed(metadata: metadata, links: links.map { relative($0, from: path) })
        switch content {
        case .navigation(let items):
            feed.navigation = items.map { relative($0, from: path) }
        case .publications(let items) where items.isEmpty:
            // A feed lists at least one thing: an empty shelf's leads back to the catalog.
            feed.navigation = [relative(OPDS2.Link(href: "opds/index.json", type: Self.json, rel: .one("start"), title: model.language.text("catalogEmptyList")), from: path)]
        case .publications(let items):
            feed.publications = items
        }
        if !facets.isEmpty {
            feed.facets = facets.map { OPDS2.Facet(metadata: $0.metadata, links: $0.links.map { relative($0, from: path) }) }
        }
        return Self.encode(feed)
    }

    /// A book as OPDS 2.0 publishes it. There is no book file to acquire: the book's page is its
    /// link (a preview, which the schema takes where a publication has no acquisition link).
    private func publication(_ place: Int, from path: String) -> OPDS2.Publication {
        let card = model.library.entries[place]
        let view = EntryBook(card, fileName: model.fileNames[place])
        let isbns = ISBN.forms(view.isbn)
        var subjects: [OPDS2.Subject] = []
        if let shelf = model.shelfName(of: place) { subjects.append(OPDS2.Subject(name: shelf, scheme: nil)) }
        subjects += view.openLibrary?.subjects.map { OPDS2.Subject(name: $0, scheme: "https://openlibrary.org/subjects") } ?? []
        let author = view.author?.trimmingSpaces()
        let metadata = OPDS2.PublicationMetadata(
            type: "http://schema.org/Book", title: view.title,
            identifier: (isbns.1 ?? isbns.0).map { "urn:isbn:\($0)" } ?? tagURI("book:\(card.id)"),
            author: author.flatMap { $0.isEmpty ? nil : $0 }, modified: Self.atomDate(card.createdAt) ?? updated,
            publisher: view.openLibrary?.publisher, numberOfPages: view.openLibrary?.pages.flatMap { $0 > 0 ? $0 : nil },
            subject: subjects.isEmpty ? nil : subjects, description: summary(of: place))
        var links: [OPDS2.Link] = []
        if model.formats.contains(.html) {
            links.append(OPDS2.Link(href: view.href, type: "text/html", rel: .many(["alternate", "preview"]), title: model.language.text("booksPage")))
        } else if model.formats.contains(.markdown) {
            links.append(OPDS2.Link(href: "markdown/" + view.markdownHref, type: "text/markdown", rel: .many(["alternate", "preview"]), title: model.language.text("booksPage")))
        } else {
            links.append(OPDS2.Link(href: path, type: Self.json, rel: .many(["self", "preview"]), title: model.language.text("thisList")))
        }
        var images: [OPDS2.Link] = []
        if let cover = card.cover {
            images.append(OPDS2.Link(href: cover.path, type: Self.imageType(cover.path), width: cover.width, height: cover.height))
            for box in [ThumbnailBox.page2x, .list2x] {
                guard let thumbnail = cover.thumbnail(box) else { continue }
                let size = Self.thumbnailSize(of: cover, in: box)
                images.append(OPDS2.Link(href: thumbnail, type: Self.imageType(thumbnail), width: size?.width, height: size?.height))
            }
        }
        return OPDS2.Publication(metadata: metadata, links: links.map { relative($0, from: path) },
                                 images: images.isEmpty ? nil : images.map { relative($0, from: path) })
    }

    /// The size of a cover's thumbnail for `box`, as the thumbnails are made (`rt_thumbnails`): scaled
    /// so that both sides reach the box, never up. Nil when the cover's size is not known.
    static func thumbnailSize(of cover: CoverCard, in box: ThumbnailBox) -> (width: Int, height: Int)? {
        guard let width = cover.width, let height = cover.height, width > 0, height > 0 else { return nil }
        let scale = max(Double(box.width) / Double(width), Double(box.height) / Double(height))
        let scaled = Int((Double(width) * scale).rounded(.up))
        guard scaled < width else { return (width, height) }
        return (scaled, max(1, Int((Double(height) * Double(scaled) / Double(width)).rounded())))
    }

    /// The OPDS 1.2 feed of an OPDS 2.0 one, and the other way round.
    static func twin(of path: String) -> String {
        if path.hasSuffix(".json") { return path.dropLast(".json".count) + ".xml" }
        return path.dropLast(".xml".count) + ".json"
    }

    private func relative(_ link: OPDS2.Link, from path: String) -> OPDS2.Link {
        var link = link
        link.href = href(link.href, from: path)
        return link
    }

    static func encode(_ feed: OPDS2.Feed) -> String {
        var text = ""
        feed.write(to: &text)
        return text + "\n"
    }
}
