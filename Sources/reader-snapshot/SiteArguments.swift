import ArgumentParser
import Crawl
import Export
import Foundation
import Logging
import PrivateCatalog
import Site
import SnapshotStore
import Support

/// The options of every command that writes pages (`export`, `demo`, `render`): what to write,
/// with which templates, in which language, under which name and address.
package struct SiteArguments: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A folder of templates to use instead of the bundled ones (see copy-templates).", valueName: "dir"))
    var templates: String?

    @Option(name: .long, help: ArgumentHelp("What to write, comma-separated: \(OutputFormat.helpWords).", valueName: "list"))
    var format: String = OutputFormat.allCases.map(\.rawValue).joined(separator: ",")

    @Option(name: .long, help: ArgumentHelp("Where the site will be served, like https://example.org/books/: adds sitemap.xml, link previews (Open Graph tags and a share card for each page) and absolute links in the feeds and the OPDS catalog.", valueName: "url"))
    var siteURL: String?

    @Flag(name: .long, help: "With --site-url, no share cards: a book's link preview shows its cover, other pages' none.")
    var noShareCards = false

    @Option(name: .long, help: ArgumentHelp("The catalog's name, on its pages, in its Markdown, feeds and OPDS catalog (default: Library). Nothing else names it: not the login, not the server.", valueName: "text"))
    var title: String?

    @Option(name: .long, help: ArgumentHelp("The pages' language, as a BCP 47 tag: en (the default; render keeps the snapshot's), de, fr, es, or any other with a strings file beside the templates (see copy-templates). Sets their words, plurals, dates, numbers and order; the tool's own messages stay English.", valueName: "tag"))
    var language: String?

    @Option(name: .long, help: ArgumentHelp("Also write a catalog for friends only, sealed with the password in this file (its first line; readable by you alone; at least 8 characters): the host stores only ciphertext, and a visitor's browser asks for the password once. publish then sends it instead of the snapshot; it leaves out \(PrivateCatalogWriter.leftOutWords(OutputFormat.files)). Needs https (or localhost) to be opened.", valueName: "file"))
    var sharePasswordFile: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Up to this many books, a browser that opens the catalog over http(s) keeps every book page and cover for offline use after the first visit; above it, pages are kept as they are opened, and the footer offers to keep them all. 0 keeps them only as opened: for friends on a metered phone plan.", valueName: "count"))
    var offlineBooks = SiteIdentity.defaultOfflineBooks

    @Option(name: .long, help: ArgumentHelp("On lookup.html, ask this Open Library (https://openlibrary.org) about an ISBN the library lacks, from the visitor's browser, to name its author and show the library's books by the same author. What leaves the browser: that ISBN, to that host, without the catalog's address. Off by default: the lookup then answers from the catalog alone.", valueName: "url"))
    var lookupOnline: String?

    package init() {}

    /// The pages' identity: the options checked, the templates loaded in the pages' language
    /// (`--language`, else `otherwise`, else English). A strings file that lacks keys still renders
    /// (those words in English); the logger says which. With `--share-password-file`, the private
    /// catalog's key, made with the salt kept in the place's private state. Every command that
    /// writes pages knows where, so an option that needs the place is resolved here, and no caller
    /// changes for it.
    /// - Parameter checkingTemplatesLater: the caller waits for the templates' parse itself
    ///   (`TemplateSet.check()`), doing something else meanwhile.
    package func resolve(logger: Logger, place: SnapshotPlace, otherwise: String? = nil, checkingTemplatesLater: Bool = false) async throws -> SiteIdentity {
        try check()
        let key = try await privateCatalogKey(privateState: place.stateFolder)
        let formats = try formats()
        let siteURL = try site()
        let language = language ?? otherwise.flatMap { TemplateSet.isLanguageTag($0) ? $0 : nil } ?? "en"
        let set = if let templates {
            try await TemplateSet.load(from: URL(fileURLWithPath: templates), language: language, waitingForTheParse: !checkingTemplatesLater)
        } else {
            try await TemplateSet.bundled(language: language, waitingForTheParse: !checkingTemplatesLater)
        }
        let missing = set.language.missingKeys
        if !missing.isEmpty {
            let shown = missing.prefix(10).joined(separator: ", ") + (missing.count > 10 ? " and \(missing.count - 10) more" : "")
            logger.warning("The strings for '\(set.language.tag)' lack \(missing.count) of English's keys, shown in English: \(shown)")
        }
        var identity = SiteIdentity(templates: set, formats: formats, siteURL: siteURL, shareCards: !noShareCards, givenTitle: title)
        identity.privateCatalog = key
        identity.offlineBooks = offlineBooks
        identity.lookupOnline = try lookupOnlineURL()
        return identity
    }

    /// The private catalog's key: the password read (a usage error when it cannot be taken), then
    /// stretched on a thread of its own (PBKDF2's 600,000 rounds take a few tenths of a second).
    func privateCatalogKey(privateState: URL) async throws -> CatalogKey? {
        guard let sharePasswordFile else { return nil }
        guard try formats().contains(.html) else {
            throw ValidationError("--share-password-file seals the HTML catalog: --format must include html.")
        }
        do {
            let password = try SharePassword.read(from: sharePasswordFile)
            return try await EveryCore.onThreadOfItsOwn("key") { try CatalogKey.make(password: password, stateFolder: privateState) }
        } catch let error as SharePasswordError {
            throw ValidationError(error.description)
        }
    }

    /// The options checked, before anything is loaded: a usage error is told before any other.
    package func check() throws {
        _ = try formats()
        _ = try site()
        _ = try lookupOnlineURL()
        guard (0...10_000_000).contains(offlineBooks) else { throw ValidationError("--offline-books must be 0–10000000.") }
        if let language, !TemplateSet.isLanguageTag(language) {
            throw ValidationError("--language must be a language tag like en, de, fr, es or pt-BR, not '\(language)'.")
        }
    }

    /// `--lookup-online`, checked and ending in "/", the way the page adds its API's path. No user
    /// or password in it: the page would show them to every visitor.
    func lookupOnlineURL() throws -> URL? {
        guard let lookupOnline else { return nil }
        guard let url = Self.webAddress(lookupOnline), url.user == nil, url.password == nil
        else { throw ValidationError("--lookup-online must be an absolute http(s) URL without a query, like https://openlibrary.org") }
        return url.absoluteString.hasSuffix("/") ? url : URL(string: url.absoluteString + "/")
    }

    func site() throws -> URL? {
        guard let siteURL else { return nil }
        guard let url = Self.webAddress(siteURL)
        else { throw ValidationError("--site-url must be an absolute http(s) URL without a query, like https://example.org/books/") }
        return url
    }

    /// An absolute http(s) address with a host, and no query or fragment; nil for anything else.
    static func webAddress(_ text: String) -> URL? {
        guard let address = WebAddress(text), !address.hasQuery, !address.hasFragment else { return nil }
        return address.url
    }

    package func formats() throws -> Set<OutputFormat> {
        var result = Set<OutputFormat>()
        for part in format.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !part.isEmpty {
            guard let value = OutputFormat(rawValue: part) else {
                throw ValidationError("Unknown format '\(part)' in --format: use \(listed(OutputFormat.allCases.map(\.rawValue), last: "and/or")).")
            }
            result.insert(value)
        }
        guard !result.isEmpty else { throw ValidationError("--format needs at least one of \(listed(OutputFormat.allCases.map(\.rawValue), last: "or")).") }
        return result
    }
}

/// What a snapshot leaves out or keeps short (`export`, `demo`).
package struct ContentArguments: ParsableArguments {
    @OptionGroup var privacy: PrivacyArguments

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Notes longer than this are shown cut, with a notice (library.json keeps them whole).", valueName: "KB"))
    var maxNoteKb: Int = ContentPolicy.defaultNoteLimit / 1024

    @Flag(name: .long, help: "Make no thumbnails: pages load every cover at full size.")
    var noThumbnails = false

    package init() {}

    package func resolve() throws -> ContentPolicy {
        guard (1...1_048_576).contains(maxNoteKb) else { throw ValidationError("--max-note-kb must be 1–1048576.") }
        return ContentPolicy(privacy: privacy.resolve(), noteLimit: maxNoteKb << 10, thumbnails: !noThumbnails)
    }
}

/// What a shared snapshot leaves out (`export`, `demo`, and `render` of a snapshot already written).
package struct PrivacyArguments: ParsableArguments {
    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("Leave this shelf (name or id) and its books out of every file written; repeatable. A name that matches no shelf is refused.", valueName: "name-or-id"))
    var excludeShelf: [String] = []

    @Flag(name: .long, help: "Leave the notes out of every file written.")
    var noNotes = false

    @Flag(name: .long, help: "Leave the covers out (none is fetched).")
    var noCovers = false

    package init() {}

    package func resolve() -> Privacy {
        Privacy(excludedShelves: excludeShelf, notes: !noNotes, covers: !noCovers)
    }
}

/// How much a command says: `--quiet`, `--verbose`, and the live line on a terminal.
package struct ConsoleArguments: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print only warnings and errors.")
    package var quiet = false

    @Flag(name: .shortAndLong, help: "Print more detail.")
    var verbose = false

    package init() {}

    package func check() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be used together.") }
    }

    /// The live progress line, on a terminal and unless --quiet.
    package func makeLiveProgress() -> LiveProgress? {
        !quiet && LiveProgress.isAvailable ? LiveProgress() : nil
    }

    package func makeLogger(live: LiveProgress? = nil) -> Logger {
        let level: Logger.Level = quiet ? .warning : (verbose ? .debug : .info)
        return Logger(label: "reader-snapshot") { _ in ConsoleLogHandler(level: level, live: live) }
    }
}
