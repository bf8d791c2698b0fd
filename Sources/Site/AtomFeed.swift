import LibraryArchive
import SnapshotStore
import Support

/// `feed.xml`: an Atom feed of the most recently added books. It is the same from run to run
/// when the library is: its date is the newest book's, not the run's.
enum AtomFeed {
    /// `feed.xml`, the catalog's, and a feed beside each shelf's page (the timeline's is made with
    /// the timeline's pages: `SiteRenderer.timelineJobs`).
    @Sendable static func jobs(_ model: SiteModel, notes: NoteTexts, into writer: SnapshotWriter) -> [SiteRenderer.Job] {
        let jobs: [SiteRenderer.Job] = [{ try writer.write(try render(model, notes: notes), to: "feed.xml") }] + model.shelves.map { shelf in
            { try writer.write(try render(model, shelf: shelf, notes: notes), to: SiteModel.shelfFeedFile(shelf)) }
        }
        return jobs
    }

    /// The books a feed shows, whose notes' HTML the render keeps (`NoteTexts`).
    @Sendable static func books(_ model: SiteModel) -> Set<Int> {
        Set(model.recent).union(model.shelves.flatMap { SiteModel.newestFirst($0.books, in: model.library.entries) })
    }

    static func render(_ model: SiteModel, notes: NoteTexts) throws -> String {
        try render(model, books: model.recent, notes: notes, title: model.language.text("feedTitle", ["site": model.site.title]), id: "feed", page: "index.html", root: "")
    }

    /// A shelf's feed, beside its page (`shelves/NAME.xml`): its books added last.
    static func render(_ model: SiteModel, shelf: SiteModel.ShelfEntry, notes: NoteTexts) throws -> String {
        try render(model, books: SiteModel.newestFirst(shelf.books, in: model.library.entries), notes: notes, title: model.language.text("feedShelfTitle", ["site": model.site.title, "shelf": shelf.shelf.name]), id: "shelf:\(shelf.shelf.id)",
                          page: shelf.view.href, root: "../")
    }

    /// `books` newest first; `page` the site page the feed stands for; `root` from the feed to the site's root.
    private static func render(_ model: SiteModel, books recent: [Int], notes: NoteTexts, title: String, id: String, page: String, root: String) throws -> String {
        let entries = model.library.entries
        // Rails' dates ("2024-01-03T09:30:00.000Z") are RFC 3339 already, as Atom wants them; others are left out.
        let updated = recent.first.flatMap { OPDSCatalog.atomDate(entries[$0].createdAt) } ?? OPDSCatalog.atomDate(model.frame.generatedAt)
            ?? "1970-01-01T00:00:00Z"
        let host = SiteModel.feedHost(of: model.frame)
        let base = model.site.url ?? root
        var xml = """
        <?xml version="1.0" encoding="utf-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom" xml:lang="\(escape(model.language.tag))">
          <title>\(escape(title))</title>
          <id>tag:reader-snapshot,2024:\(escape(host)):\(escape(id))</id>
          <updated>\(escape(updated))</updated>
          <author><name>\(escape(model.site.title))</name></author>
          <link rel="alternate" href="\(escape(base + page))"/>
          <generator>reader-snapshot</generator>

        """
        for place in recent {
            let book = entries[place]
            let view = model.bookView(place)
            let note = try notes.html(of: place)
            xml += """
              <entry>
                <title>\(escape(view.title))</title>
                <id>tag:reader-snapshot,2024:\(escape(host)):book:\(book.id)</id>
                <updated>\(escape(OPDSCatalog.atomDate(book.createdAt) ?? updated))</updated>
                <link rel="alternate" href="\(escape(base + view.href))"/>
            \(view.author.map { "    <author><name>\(escape($0))</name></author>\n" } ?? "")\
                <summary>\(escape([view.author.map { "by \($0)" }, view.shelf.map { "on \($0.name)" }].compactMap { $0 }.joined(separator: ", ")))</summary>
            \(note.map { "    <content type=\"html\">\(escape($0))</content>\n" } ?? "")\
              </entry>

            """
        }
        return xml + "</feed>\n"
    }

    static func escape(_ text: String) -> String {
        // Most text needs no escape (0xEF may begin U+FFFE or U+FFFF).
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x26 && $0 != 0x3C && $0 != 0x3E && $0 != 0x22 && $0 != 0xEF }) { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            // XML 1.0 allows no other control characters, escaped or not.
            case _ where scalar.value < 0x20 && scalar != "\n" && scalar != "\t" && scalar != "\r": continue
            case _ where scalar.value == 0xFFFE || scalar.value == 0xFFFF: continue
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
