import Foundation
import LibraryArchive
import SnapshotStore

/// `timeline.xml`: an Atom feed of the timeline, an entry for each night that changed something
/// (the newest `nights`), so that a friend's feed reader follows what the library's owner reads.
/// The same from run to run when the timeline is: its date is the newest night's.
enum TimelineFeed {
    static let file = "timeline.xml"
    static let nights = 50

    /// The feed, an entry at a time: fifty nights of a thousand events are a file of 20 MB.
    static func write(_ model: SiteModel, _ timeline: TimelineView, into writer: SnapshotWriter) throws {
        try writer.writeStream(to: file) { emit in
            try render(model, timeline) { try emit(Data($0.utf8)) }
        }
    }

    static func render(_ model: SiteModel, _ timeline: TimelineView, into emit: (String) throws -> Void) rethrows {
        let host = SiteModel.feedHost(of: model.frame)
        let base = model.site.url ?? ""
        let escape = AtomFeed.escape
        let newest = timeline.nightCount > 0 ? timeline.nightDate(0) : nil
        let updated = newest.map { $0 + "T00:00:00Z" } ?? "1970-01-01T00:00:00Z"
        try emit("""
        <?xml version="1.0" encoding="utf-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom" xml:lang="\(escape(model.language.tag))">
          <title>\(escape(model.language.text("timeline")) + " · " + escape(model.site.title))</title>
          <id>tag:reader-snapshot,2024:\(escape(host)):timeline</id>
          <updated>\(updated)</updated>
          <author><name>\(escape(model.site.title))</name></author>
          <link rel="alternate" href="\(escape(base + TimelineView.newestPage))"/>
          <generator>reader-snapshot</generator>

        """)
        for index in 0..<timeline.nightCount {
            let night = timeline.night(index)
            // The entry's text as the page's lines, in HTML escaped once more for the feed.
            let items = night.events.map { event in
                let title = event.href.map { "<a href=\"\(escape(base + $0))\">\(escape(event.title))</a>" } ?? escape(event.title)
                return "<li>\(title): \(escape(event.what))</li>"
            }.joined()
            try emit("""
              <entry>
                <title>\(escape(model.language.day(night.date) + ": " + night.summary))</title>
                <id>tag:reader-snapshot,2024:\(escape(host)):timeline:\(night.date)</id>
                <updated>\(night.date)T00:00:00Z</updated>
                <link rel="alternate" href="\(escape(base + TimelineView.newestPage))"/>
                <content type="html">\(escape("<ul>" + items + "</ul>"))</content>
              </entry>

            """)
        }
        try emit("</feed>\n")
    }
}
