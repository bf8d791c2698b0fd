import Foundation
import Mustache
import TestSupport
import Testing
@testable import LibraryArchive
@testable import Notes
@testable import Site
import Timeline

/// The names a template can use are kept by hand in three places: the views' properties, each
/// view's `child(named:)` (what swift-mustache asks), and `SiteView.names` and `ShelfView.names`
/// (the values page digests hash). A property `child(named:)` does not answer is invisible to
/// templates; a site or shelf value missing from `names` does not make book and shelf pages again
/// when it changes, and they go stale with no error. These tests hold the three lists together,
/// and hold the default templates to names the views answer.
@Suite struct TemplateNamesTests {
    /// Stored properties that templates see through another name only.
    static let shownThroughOtherNames: Set<String> = [
        "BookView.givenTitle",  // titleYAML: the title as the book gives it, even empty
        "BookView.shelfName",  // shelfNameYAML
        "CoverView.title", "CoverView.language",  // alt: "Cover of TITLE" in the pages' language
        "Previewed<IndexPage>.page",  // the page's own names, answered through it
    ]

    /// A library with every value a view can show: a cover with thumbnails, Open Library's fields,
    /// a book on a deleted shelf with its problem, three years, three pages of the list of books,
    /// and changes of every kind since a snapshot before.
    static func model() -> SiteModel {
        let hash = String(repeating: "ab", count: 16)
        let coverPath = "covers/\(hash).jpg"
        let cover = CoverFile(path: coverPath, format: .jpeg, bytes: 1000, sha256: String(repeating: "ab", count: 32), width: 400, height: 600,
                              thumbnails: ThumbnailBox.all.map { Thumbnail(path: $0.path(forCover: coverPath, png: false), width: $0.width, height: $0.height, bytes: 10) })
        func day(_ year: Int) -> String { "\(year)-03-01T09:00:00.000Z" }
        let shelves = [Shelf(id: 1, name: "Fiction", bookCount: 4, bookIDs: [1, 2, 3, 4]), Shelf(id: 2, name: "Poetry", bookCount: 1, bookIDs: [5])]
        let books = [
            Book(id: 1, title: "Alpha", author: "Ann Author", isbn: "9780141439518", shelfID: 1, createdAt: day(2022), cover: cover,
                 note: Note(receiving: "<div>A <em>note</em>.</div>"),
                 openLibrary: OpenLibraryFields(key: "/books/OL1M", publisher: "Penguin", year: 1813, pages: 300, subjects: ["Fiction", "Love"])),
            Book(id: 2, title: "Beta", author: "Bob Writer", shelfID: 1, createdAt: day(2023)),
            Book(id: 3, title: "Gamma", shelfID: 1, createdAt: day(2024)),
            Book(id: 4, title: "Delta", author: "Ann Author", shelfID: 1, createdAt: day(2024)),
            Book(id: 5, title: "Epsilon", shelfID: 2, createdAt: day(2023)),
            Book(id: 6, title: "Lost", shelfID: 99, shelfName: "Deleted shelf", complete: false),
        ]
        let library = Library(generatedAt: "2024-05-06T07:08:09Z", server: "https://reader.example.com", user: "me@example.com", userID: 1,
                              shelves: shelves, books: books,
                              problems: [Problem(kind: .bookDetails, bookID: 6, message: "The details could not be fetched.")])
        var previous = library
        previous.generatedAt = "2024-05-01T07:08:09Z"
        previous.books = [Book(id: 1, title: "Alpha", author: "Ann Author", shelfID: 2), Book(id: 2, title: "Beta, before", shelfID: 1),
                          Book(id: 7, title: "Gone", shelfID: 1)]
        previous.shelves = [Shelf(id: 1, name: "Fiction", bookCount: 2, bookIDs: [2, 7]), Shelf(id: 2, name: "Poetry", bookCount: 1, bookIDs: [1])]
        let changes = ChangeReport.compare(previous: previous, current: library)
        // Every kind of event, over the two nights: arrivals, a move, a rename, a note, a removal.
        let began = Timeline.tonight(last: nil, report: ChangeReport.compare(previous: nil, current: previous), library: LibraryFile(previous))
        let timeline = Timeline.tonight(last: began, report: changes, library: LibraryFile(library))
        var model = SiteModel(LibraryFile(library), changes: changes, timeline: timeline, siteURL: URL(string: "https://books.example.org/"))
        model.booksPerPage = 2
        return model
    }

    /// Every page of the model, each kind of page once or more.
    static func pages(_ model: SiteModel) -> [any MustacheParent] {
        var pages: [any MustacheParent] = [model.indexPage(root: ""), StatsPage(model, root: ""), model.authorsPage(root: ""),
                                           DoorPage(), DoorPage(script: "")]
        pages += (1...model.booksPageCount).map { model.booksPage($0, root: "") }
        pages += model.shelves.map { model.shelfPage($0, root: "../") }
        pages += model.library.entries.indices.map { model.bookPage(model.bookView($0), noteMarkdown: "A *note*.", root: "../", noteHTML: "<p>A note.</p>") }
        pages += model.authors.authors.map { model.authorPage($0, root: "../") }
        pages += model.years.years.indices.map { model.yearPage($0, root: "../") }
        if let changes = model.changesView { pages.append(ChangesPage(root: "", site: model.site, changes: changes)) }
        if let timeline = model.timelineView {
            pages += model.timelinePages(timeline, root: "")
            pages += (1...timeline.pageCount(perPage: model.booksPerPage)).map { model.timelinePage(timeline, number: $0, markdown: true) }
        }
        // lookup.html as `--lookup-online` makes it.
        pages.append(PlainPage(root: "", site: model.site, online: "https://openlibrary.org/", connectSource: "https://openlibrary.org"))
        // Link previews (with --site-url, as here), as the layout sees them on every kind of page.
        let previews = [model.indexPreview(), model.listPreview("books.html", title: "All books", description: "All books.")]
            + model.shelves.map(model.shelfPreview) + model.authors.authors.map(model.authorPreview)
            + model.years.years.indices.map(model.yearPreview)
            + model.library.entries.indices.map { model.bookPreview(model.bookView($0), place: $0, notePlainText: "A note.") }
        pages += previews.compactMap { preview in preview.map { Previewed(page: model.indexPage(root: ""), preview: $0) } }
        return pages
    }

    /// What a template sees, found by walking the pages as swift-mustache does: each object that
    /// answers `child(named:)`, and the names of the plain values it walks by reflection.
    struct Walk {
        var objects: [any MustacheParent] = []
        var seen = Set<ObjectIdentifier>()
        /// Properties of plain values (the stats page's bars), which swift-mustache reads by reflection.
        var plainNames = Set<String>()

        mutating func visit(_ value: Any) {
            if let values = value as? [Any] {
                for element in values { visit(element) }
                return
            }
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                if let wrapped = mirror.children.first?.value { visit(wrapped) }
                return
            }
            if String(describing: type(of: value)).hasPrefix("Ref<"), let object = mirror.children.first(where: { $0.label == "object" })?.value {
                visit(object)
                return
            }
            guard !(value is Text) else { return }
            guard let parent = value as? any MustacheParent else {
                // And the values they hold (the timeline's months hold their events).
                if mirror.displayStyle == .struct {
                    plainNames.formUnion(mirror.children.compactMap(\.label))
                    for child in mirror.children { visit(child.value) }
                }
                return
            }
            if mirror.displayStyle == .class {
                guard seen.insert(ObjectIdentifier(value as AnyObject)).inserted else { return }
            }
            objects.append(parent)
            for child in mirror.children {
                if let label = child.label, let answer = parent.child(named: label) { visit(answer) }
            }
        }
    }

    static func isNone(_ value: Any) -> Bool {
        let mirror = Mirror(reflecting: value)
        return mirror.displayStyle == .optional && mirror.children.isEmpty
    }

    /// Every name in a tag of the default templates: sections, inverted sections and values, each
    /// part of a dotted name. Partials, blocks, closing tags, comments and pragmas name no value.
    static func templateNames() async throws -> [String: Set<String>] {
        let templates = try await TemplateSet.bundled()
        var names: [String: Set<String>] = [:]
        let files = FileManager.default.enumerator(atPath: templates.directory.path)?.allObjects as? [String] ?? []
        for file in files where file.hasSuffix(".mustache") {
            let text = try String(contentsOf: templates.directory.appendingPathComponent(file), encoding: .utf8)
            for tag in PageInputs.tags(in: text) {
                guard let first = tag.first, !"!/><$%=".contains(first) else { continue }
                let name = tag.drop { "#^&{".contains($0) }.trimmingCharacters(in: .whitespaces)
                // The language's words and tag are answered around every page (LanguageTests checks the words).
                if name == "lang" || name.hasPrefix("t.") { continue }
                for part in name.split(separator: ".") { names[String(part), default: []].insert(file) }
            }
        }
        return names
    }

    @Test func everyPropertyOfAViewIsAnsweredByItsChildNamed() {
        var walk = Walk()
        for page in Self.pages(Self.model()) { walk.visit(page) }
        var checked = Set<String>(), properties = Set<String>()
        for object in walk.objects {
            let typeName = String(describing: type(of: object))
            for child in Mirror(reflecting: object).children {
                guard let label = child.label else { continue }
                let name = "\(typeName).\(label)"
                properties.insert(name)
                guard !Self.shownThroughOtherNames.contains(name), !Self.isNone(child.value) else { continue }
                checked.insert(name)
                #expect(object.child(named: label) != nil, "\(name) is a property that child(named:) does not answer: templates cannot see it")
            }
        }
        #expect(walk.objects.contains { $0 is SiteView } && walk.objects.contains { $0 is PagerView } && walk.objects.contains { $0 is OpenLibraryView })
        // A property that is nil everywhere in the model above was not checked: the model must give it.
        let unchecked = properties.subtracting(checked).subtracting(Self.shownThroughOtherNames)
        #expect(unchecked.isEmpty, "the test's library gives no value to \(unchecked.sorted())")
    }

    /// What page digests hash of the site and a shelf is every value their `child(named:)` answers.
    @Test func siteAndShelfNamesAreEveryNameTheirViewsAnswer() async throws {
        var walk = Walk()
        for page in Self.pages(Self.model()) { walk.visit(page) }
        var candidates = Set(try await Self.templateNames().keys)
        for object in walk.objects { candidates.formUnion(Mirror(reflecting: object).children.compactMap(\.label)) }
        let site = try #require(walk.objects.compactMap { $0 as? SiteView }.first { $0.generatedAt != nil && $0.url != nil })
        let shelf = try #require(walk.objects.compactMap { $0 as? ShelfView }.first)
        for (view, names) in [(site as any MustacheParent, SiteView.names), (shelf, ShelfView.names)] {
            let typeName = String(describing: type(of: view))
            let properties = Set(Mirror(reflecting: view).children.compactMap(\.label))
            #expect(Set(names) == properties, "\(typeName).names and its properties differ: \(Set(names).symmetricDifference(properties).sorted())")
            #expect(names.count == Set(names).count, "\(typeName).names names one twice")
            let answered = candidates.filter { view.child(named: $0) != nil }
            #expect(answered == Set(names), "\(typeName): child(named:) answers \(answered.subtracting(names).sorted()) beyond names, not \(Set(names).subtracting(answered).sorted())")
        }
    }

    @Test func everyNameTheDefaultTemplatesUseIsAnswered() async throws {
        var walk = Walk()
        for page in Self.pages(Self.model()) { walk.visit(page) }
        let used = try await Self.templateNames()
        #expect(used["noteHTML"] != nil && used["site"] != nil && used["yearBars"] != nil, "the templates' names were not read: \(used.keys.sorted())")
        for (name, files) in used.sorted(by: { $0.key < $1.key }) where !walk.plainNames.contains(name) {
            #expect(walk.objects.contains { $0.child(named: name) != nil }, "\(files.sorted()) use '\(name)', which no view answers")
        }
    }
}
