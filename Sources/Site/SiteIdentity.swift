import Foundation
import LibraryArchive
import PrivateCatalog
import Support

/// What the pages are and how they name themselves, resolved once from the command line: the
/// templates in the pages' language, and the values in `rendering` (the formats, where the site
/// will be served, whether link previews get share cards, the catalog's title, …), read as if they
/// were the identity's own (`site.formats`). The crawl's share cards, the renderer and the render
/// digest all take it from here, so that a value cannot reach two of them by two routes.
@dynamicMemberLookup
package struct SiteIdentity: Sendable {
    package var templates: TemplateSet
    package var rendering: Rendering

    /// Every value besides the templates that changes what is written. The render digest is made
    /// from its encoding as it is: a new value that changes the pages is a field here, and the
    /// digest follows without a line of its own.
    package struct Rendering: Encodable, Sendable {
        @SortedWhenEncoded package var formats: Set<OutputFormat>
        /// Where the site will be served (`--site-url`).
        package var siteURL: URL?
        /// With `siteURL`, a share card for each page's link preview (`--no-share-cards` turns them off).
        package var shareCards: Bool
        /// `--title` as given (nil: none), kept in `library.json` as it is.
        package var givenTitle: String?
        /// `--share-password-file`: the key a catalog for friends only is sealed with (encoded as
        /// its check alone).
        package var privateCatalog: CatalogKey?
        /// `--offline-books`: up to this many books, every book page and its cover are kept in the
        /// background after the first visit; above it, the pages are kept as they are visited,
        /// unless the reader asks for them all.
        package var offlineBooks = SiteIdentity.defaultOfflineBooks
        /// `--lookup-online`: the Open Library lookup.html asks about an ISBN the library lacks.
        package var lookupOnline: URL?
    }

    package subscript<Value>(dynamicMember path: WritableKeyPath<Rendering, Value>) -> Value {
        get { rendering[keyPath: path] }
        set { rendering[keyPath: path] = newValue }
    }

    /// 5,000 books were 39 MB kept in Chromium: a size a phone keeps without asking.
    package static let defaultOfflineBooks = 5_000
    /// Its origin, the only one lookup.html's Content-Security-Policy lets it reach.
    var lookupOnlineOrigin: String? {
        guard let lookupOnline = rendering.lookupOnline, let scheme = lookupOnline.scheme, let host = lookupOnline.host else { return nil }
        return "\(scheme)://\(host)" + (lookupOnline.port.map { ":\($0)" } ?? "")
    }

    package init(templates: TemplateSet, formats: Set<OutputFormat> = Set(OutputFormat.allCases), siteURL: URL? = nil,
                 shareCards: Bool = true, givenTitle: String? = nil) {
        self.templates = templates
        rendering = Rendering(formats: formats, siteURL: siteURL, shareCards: shareCards, givenTitle: givenTitle)
    }

    /// The catalog's name on its pages and cards: `--title` as it can be shown, or the pages'
    /// language's word for a library ("Library", "Bibliothek").
    package var title: String { Self.title(given: rendering.givenTitle, in: templates.language) }

    /// What of this identity makes pages differ, for the render digest (which adds the build and
    /// the templates' files): `rendering` as JSON, its keys sorted, and the pages' language.
    package var renderedWith: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain values into JSON does not fail; should it ever, no digest matches it.
        let values = (try? encoder.encode(rendering)) ?? Data(UUID().uuidString.utf8)
        return values + Data(" \(templates.language.tag)".utf8)
    }

    /// Whether pages get share cards: only pages in HTML have link previews, and only with a site URL.
    package var drawsShareCards: Bool { rendering.siteURL != nil && rendering.shareCards && rendering.formats.contains(.html) }

    /// The one rule for the catalog's name, for a title given now or read from `library.json`.
    static func title(given: String?, in language: Language) -> String {
        if let given = given.map(UntrustedText.displayable), !given.isEmpty { return given }
        return language.text("defaultTitle")
    }
}

/// A set encoded as a sorted list: a set's own order differs from run to run, and a digest made
/// from its encoding must not.
@propertyWrapper
package struct SortedWhenEncoded<Element: Hashable & Comparable & Encodable & Sendable>: Encodable, Sendable {
    package var wrappedValue: Set<Element>

    package init(wrappedValue: Set<Element>) {
        self.wrappedValue = wrappedValue
    }

    package func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue.sorted())
    }
}
