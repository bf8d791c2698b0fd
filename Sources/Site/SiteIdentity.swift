import Foundation
import LibraryArchive
import PrivateCatalog
import Support

/// What the pages are and how they name themselves, resolved once from the command line: the
/// templates in the pages' language, the formats, where the site will be served, whether link
/// previews get share cards, and the catalog's title. The crawl's share cards, the renderer and
/// the render digest all take it from here, so that a value cannot reach two of them by two routes.
package struct SiteIdentity: Sendable {
    package var templates: TemplateSet
    package var formats: Set<OutputFormat>
    /// Where the site will be served (`--site-url`).
    package var siteURL: URL?
    /// With `siteURL`, a share card for each page's link preview (`--no-share-cards` turns them off).
    package var shareCards: Bool
    /// `--title` as given (nil: none), kept in `library.json` as it is.
    package var givenTitle: String?
    /// `--share-password-file`: the key a catalog for friends only is sealed with.
    package var privateCatalog: CatalogKey?
    /// `--offline-books`: up to this many books, every book page and its cover are kept in the
    /// background after the first visit; above it, the pages are kept as they are visited, unless
    /// the reader asks for them all.
    package var offlineBooks = SiteIdentity.defaultOfflineBooks
    /// 5,000 books were 39 MB kept in Chromium: a size a phone keeps without asking.
    package static let defaultOfflineBooks = 5_000
    /// `--lookup-online`: the Open Library lookup.html asks about an ISBN the library lacks.
    package var lookupOnline: URL?
    /// Its origin, the only one lookup.html's Content-Security-Policy lets it reach.
    var lookupOnlineOrigin: String? {
        guard let lookupOnline, let scheme = lookupOnline.scheme, let host = lookupOnline.host else { return nil }
        return "\(scheme)://\(host)" + (lookupOnline.port.map { ":\($0)" } ?? "")
    }

    package init(templates: TemplateSet, formats: Set<OutputFormat> = Set(OutputFormat.allCases), siteURL: URL? = nil,
                 shareCards: Bool = true, givenTitle: String? = nil) {
        self.templates = templates
        self.formats = formats
        self.siteURL = siteURL
        self.shareCards = shareCards
        self.givenTitle = givenTitle
    }

    /// The catalog's name on its pages and cards: `--title` as it can be shown, or the pages'
    /// language's word for a library ("Library", "Bibliothek").
    package var title: String { Self.title(given: givenTitle, in: templates.language) }

    /// What of this identity makes pages differ, a line each, for the render digest (which adds
    /// the build and the templates' files). A field that changes what is written adds its line
    /// here, beside its declaration. The lines of a run without the newer options are as they were,
    /// so that an upgrade alone renders nothing again but for the build.
    package var renderedWith: [String] {
        var lines = [formats.map(\.rawValue).sorted().joined(separator: ","), siteURL?.absoluteString ?? "", templates.language.tag]
        // Cards only count where they are drawn.
        if siteURL != nil && !shareCards { lines.append("no share cards") }
        // A private catalog sealed under another key (or none) is written again.
        if let privateCatalog { lines.append("private catalog " + privateCatalog.check) }
        if offlineBooks != Self.defaultOfflineBooks { lines.append("offline books \(offlineBooks)") }
        if let lookupOnline { lines.append("lookup online " + lookupOnline.absoluteString) }
        return lines
    }

    /// Whether pages get share cards: only pages in HTML have link previews, and only with a site URL.
    package var drawsShareCards: Bool { siteURL != nil && shareCards && formats.contains(.html) }

    /// The one rule for the catalog's name, for a title given now or read from `library.json`.
    static func title(given: String?, in language: Language) -> String {
        if let given = given.map(UntrustedText.displayable), !given.isEmpty { return given }
        return language.text("defaultTitle")
    }
}
