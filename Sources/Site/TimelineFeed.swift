import LibraryArchive
import SnapshotStore

/// `timeline.xml`: an Atom feed of the timeline, an entry for each night that changed something
/// (the newest `nights`), so that a friend's feed reader follows what the library's owner reads.
/// The same from run to run when the timeline is: its date is the newest night's.
enum TimelineFeed {
    static let file = "timeline.xml"
    static let nights = 50

    static func render(_ model: SiteModel, _ timeline: TimelineView) -> String {
        let host = SiteModel.feedHost(of: model.frame)
        let base = model.site.url ?? ""
        let escape = AtomFeed.escape
        let updated = timeline.nights.first.map { $0.date + "T00:00:00Z" } ?? "1970-01-01T00:00:00Z"
        var xml = """
        <?xml version="1.0" encoding="utf-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom" xml:lang="\(escape(model.language.tag))">
          <title>\(escape(model.language.text("timeline")) + " · " + escape(model.site.title))</title>
          <id>tag:reader-snapshot,2024:\(escape(host)):timeline</id>
          <updated>\(updated)</updated>
          <author><name>\(escape(model.site.title))</name></author>
          <link rel="alternate" href="\(escape(base + TimelineView.pageFile(1)))"/>
          <generator>reader-snapshot</generator>

        """
        for night in timeline.nights {
            // The entry's text as the page's lines, in HTML escaped once more for the feed.
            let items = night.events.map { event in
                let title = event.href.map { "<a href=\"\(escape(base + $0))\">\(escape(event.title))</a>" } ?? escape(event.title)
                return "<li>\(title): \(escape(event.what))</li>"
            }.joined()
            xml += """
              <entry>
                <title>\(escape(model.language.day(night.date) + ": " + night.summary))</title>
                <id>tag:reader-snapshot,2024:\(escape(host)):timeline:\(night.date)</id>
                <updated>\(night.date)T00:00:00Z</updated>
                <link rel="alternate" href="\(escape(base + TimelineView.pageFile(1)))"/>
                <content type="html">\(escape("<ul>" + items + "</ul>"))</content>
              </entry>

            """
        }
        return xml + "</feed>\n"
    }
}
