import Foundation
import LibraryArchive
import Mustache
import Notes
import ShareCards

/// What a chat app or a social site shows of a page's link (Open Graph and Twitter's card tags).
/// Only with `--site-url`: those tags need absolute addresses. Every text comes from what the page
/// itself shows (titles, authors, shelf names, the catalog's title), never from private data.
final class PreviewView: Sendable {
    /// "book" or "website".
    let type: String
    let title: String
    let description: String
    let url: String
    /// The share card (or, with `--no-share-cards`, a book's cover), absolute, with its size.
    let image: String?
    let imageWidth: Int?
    let imageHeight: Int?
    let imageAlt: String?

    init(type: String = "website", title: String, description: String, url: String, image: String? = nil, imageWidth: Int? = nil,
         imageHeight: Int? = nil, imageAlt: String? = nil) {
        self.type = type
        self.title = title
        self.description = description
        self.url = url
        self.image = image
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.imageAlt = imageAlt
    }
}

extension PreviewView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "type": return Text(type)
        case "title": return Text(title)
        case "description": return Text(description)
        case "url": return Text(url)
        case "image": return image.map(Text.init)
        case "imageWidth": return imageWidth
        case "imageHeight": return imageHeight
        case "imageAlt": return imageAlt.map(Text.init)
        default: return nil
        }
    }
}

/// A page with its preview: `preview` answers the layout's tags, every other name the page's own.
struct Previewed<Page: MustacheParent>: MustacheParent {
    let page: Page
    let preview: PreviewView?

    func child(named name: String) -> Any? {
        name == "preview" ? preview.map(Ref.init) : page.child(named: name)
    }
}

extension TemplateSet {
    func render<Page: MustacheParent>(_ page: Page, preview: PreviewView?, _ format: OutputFormat, template name: String) throws -> String {
        try render(context: Previewed(page: page, preview: preview), format, template: name, root: (page as? any RootedPage)?.root)
    }
}

extension SiteModel {
    /// The preview of the page at `path` (from the site's root), with the card `card` as its image.
    private func preview(_ path: String, type: String = "website", title: String, description: String, card: ShareCard?) -> PreviewView? {
        guard let base = site.url else { return nil }
        guard let card else {
            return PreviewView(type: type, title: title, description: description, url: base + path)
        }
        return PreviewView(type: type, title: title, description: description, url: base + path, image: base + card.path,
                           imageWidth: ShareCard.width, imageHeight: ShareCard.height,
                           imageAlt: card.alt { language.text("cardAltBook", ["title": $0, "author": $1]) })
    }

    /// Whether pages get share cards: with `--site-url` (previews need absolute addresses) and
    /// without `--no-share-cards`.
    var drawsCards: Bool { shareCards && site.url != nil }

    /// The cards each kind of page gets, nil where none is drawn.
    func bookCard(_ place: Int) -> ShareCard? {
        drawsCards ? ShareCard.book(library.entries[place], siteTitle: site.title) : nil
    }

    func shelfCard(_ entry: ShelfEntry) -> ShareCard? {
        drawsCards ? ShareCard.row(name: entry.shelf.name, line: entry.view.countLabel, covers: covers(entry.books), siteTitle: site.title) : nil
    }

    func authorCard(_ author: AuthorIndex.Author) -> ShareCard? {
        drawsCards ? ShareCard.row(name: author.displayName, line: language.count("books", author.books.count), covers: covers(author.books), siteTitle: site.title) : nil
    }

    func yearCard(_ index: Int) -> ShareCard? {
        let year = years.years[index]
        return drawsCards ? ShareCard.row(name: language.text("addedInYear", ["year": year.year]), line: language.count("books", year.books.count), covers: covers(year.books), siteTitle: site.title) : nil
    }

    /// The index's card, which the lists and the stats share: the catalog's name over its newest covers.
    var indexCard: ShareCard {
        ShareCard.row(name: site.title, line: indexLine, covers: covers(recent.isEmpty ? books : recent),
                             siteTitle: site.title)
    }

    var indexCardIfDrawn: ShareCard? { drawsCards ? indexCard : nil }

    /// "1062 books on 12 shelves"
    private var indexLine: String {
        language.text("previewIndex", ["books": language.count("books", site.bookCount), "shelves": language.count("shelvesCount", site.shelfCount)])
    }

    func indexPreview() -> PreviewView? {
        preview("index.html", title: site.title, description: Self.describe(indexLine, titles: recent.isEmpty ? books : recent, in: self),
                       card: indexCardIfDrawn)
    }

    /// The lists of the whole library (all books, authors, stats, changes): the index's card.
    func listPreview(_ path: String, title: String, description: String) -> PreviewView? {
        preview(path, title: "\(title) · \(site.title)", description: description, card: indexCardIfDrawn)
    }

    func shelfPreview(_ entry: ShelfEntry) -> PreviewView? {
        preview("shelves/\(entry.fileName).html", title: entry.shelf.name, description: Self.describe(entry.view.countLabel, titles: entry.books, in: self),
                card: shelfCard(entry))
    }

    func authorPreview(_ author: AuthorIndex.Author) -> PreviewView? {
        preview("authors/\(author.fileName).html", title: author.displayName,
                description: Self.describe(language.count("books", author.books.count), titles: author.books, in: self), card: authorCard(author))
    }

    func yearPreview(_ index: Int) -> PreviewView? {
        let year = years.years[index]
        return preview("years/\(year.year).html", title: language.text("addedInYear", ["year": year.year]),
                       description: Self.describe(language.text("previewYear", ["books": language.count("books", year.books.count), "year": year.year]),
                                                  titles: year.books, in: self),
                       card: yearCard(index))
    }

    /// A book's: its author and shelf, then the first sentence of its note.
    func bookPreview(_ view: BookView, place: Int, notePlainText: String) -> PreviewView? {
        guard let base = site.url else { return nil }
        var facts: [String] = []
        if let author = view.author?.trimmingSpaces(), !author.isEmpty { facts.append(language.text("previewBy", ["author": author])) }
        if let shelf = view.shelfName {
            facts.append(language.text(facts.isEmpty ? "previewOnShelf" : "previewOnShelfAfter", ["shelf": shelf]))
        }
        var description = facts.joined(separator: ", ")
        if !description.isEmpty { description += "." }
        let sentence = Self.firstSentence(String(notePlainText.prefix(600)))
        if !sentence.isEmpty { description += description.isEmpty ? sentence : " " + sentence }
        if description.isEmpty { description = view.title }
        guard let card = bookCard(place) else {
            // Without cards, the cover itself, as it is.
            return PreviewView(type: "book", title: view.title, description: description, url: base + view.href,
                               image: view.cover.map { base + $0.src }, imageWidth: view.cover?.width, imageHeight: view.cover?.height,
                               imageAlt: view.cover?.alt)
        }
        return preview(view.href, type: "book", title: view.title, description: description, card: card)
    }

    /// The covers a row card shows: the first few books' that have one.
    private func covers(_ places: [Int]) -> [String] {
        var found: [String] = []
        for place in places {
            guard let cover = library.entries[place].cover else { continue }
            found.append(cover.thumbnail(.page) ?? cover.path)
            if found.count == ShareCard.rowCovers { break }
        }
        return found
    }

    /// "248 books, among them A, B and C." — a few titles of the list, in its order.
    static func describe(_ label: String, titles places: [Int], in model: SiteModel) -> String {
        let titles = places.prefix(3).map { model.bookView($0).title }
        guard !titles.isEmpty else { return label + "." }
        let language = model.language
        let list = titles.count == 1 ? titles[0] : titles.dropLast().joined(separator: ", ") + " " + language.text("titlesAnd") + " " + titles.last!
        return clipped(language.text(places.count > titles.count ? "previewAmong" : "previewList", ["label": label, "titles": list]))
    }

    /// The first sentence of a text, at most about 200 characters (cut at a word, with "…").
    static func firstSentence(_ text: String) -> String {
        let words = text.split(whereSeparator: \.isWhitespace)
        var result = ""
        for word in words {
            result += result.isEmpty ? String(word) : " " + word
            // A sentence ends at ".", "!" or "?", a closing quote or bracket after it allowed.
            let end = word.reversed().drop { "\"'”’»)]".contains($0) }.first
            if let end, ".!?…".contains(end), result.count > 1 { return clipped(result) }
            if result.count > 200 { break }
        }
        return clipped(result)
    }

    static func clipped(_ text: String, to limit: Int = 200) -> String {
        guard text.count > limit else { return text }
        var cut = String(text.prefix(limit))
        if let space = cut.lastIndex(of: " ") { cut = String(cut[..<space]) }
        return cut + "…"
    }
}
