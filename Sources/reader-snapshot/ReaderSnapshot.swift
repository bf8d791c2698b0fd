import ArgumentParser
import Crawl
import Export
import Foundation
import LibraryArchive
import Logging
import Notes
import ReaderAPI
import Site
import SnapshotStore
import Support

struct ReaderSnapshot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reader-snapshot",
        abstract: "Keep a snapshot of your Reader library: an HTML site, Markdown notes and a JSON archive.",
        discussion: """
        Logs in to a Reader server, walks every shelf and book, downloads the covers, and writes a \
        browsable HTML site, a Markdown tree of your notes and library.json.

        Try it without a server: reader-snapshot demo

        \(ExitCodes.helpText())
        """,
        version: "0.1.0",
        subcommands: [Export.self, Render.self, PublishCommand.self, HistoryCommand.self, Demo.self, SampleServerCommand.self, CopyTemplates.self, NotesBench.self, ThumbnailsBench.self]
    )
}

/// Options every command that writes a snapshot shares.
struct SnapshotOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A folder of templates to use instead of the bundled ones (see copy-templates).", valueName: "dir"))
    var templates: String?

    @Option(name: .long, help: ArgumentHelp("What to write, comma-separated: html, markdown, json, csv (Goodreads' layout), feed (Atom), opds (a catalog for e-reader apps).", valueName: "list"))
    var format: String = "html,markdown,json,csv,feed,opds"

    @Option(name: .long, help: ArgumentHelp("Where the site will be served, like https://example.org/books/: adds sitemap.xml, link previews (Open Graph tags and a share card for each page) and absolute links in the feeds and the OPDS catalog.", valueName: "url"))
    var siteURL: String?

    @Flag(name: .long, help: "With --site-url, no share cards: a book's link preview shows its cover, other pages' none.")
    var noShareCards = false

    @Option(name: .long, help: ArgumentHelp("The catalog's name, on its pages, in its Markdown, feeds and OPDS catalog (default: Library). Nothing else names it: not the login, not the server.", valueName: "text"))
    var title: String?

    @Option(name: .long, help: ArgumentHelp("The pages' language, as a BCP 47 tag: en (the default), de, fr, es, or any other with a strings file beside the templates (see copy-templates). Sets their words, plurals, dates, numbers and order; the tool's own messages stay English.", valueName: "tag"))
    var language: String = "en"

    @Flag(name: .shortAndLong, help: "Print only warnings and errors.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Print more detail.")
    var verbose = false

    func validate() throws {
        guard CommandLineChecks.enabled else { return }
        _ = try formats()
        _ = try site()
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be used together.") }
        if !TemplateSet.isLanguageTag(language) {
            throw ValidationError("--language must be a language tag like en, de, fr, es or pt-BR, not '\(language)'.")
        }
    }

    func site() throws -> URL? {
        guard let siteURL else { return nil }
        guard let url = URL(string: siteURL), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host != nil, url.query == nil, url.fragment == nil
        else { throw ValidationError("--site-url must be an absolute http(s) URL without a query, like https://example.org/books/") }
        return url
    }

    func formats() throws -> Set<OutputFormat> {
        var result = Set<OutputFormat>()
        for part in format.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !part.isEmpty {
            guard let value = OutputFormat(rawValue: part) else {
                throw ValidationError("Unknown format '\(part)' in --format: use html, markdown, json, csv, feed and/or opds.")
            }
            result.insert(value)
        }
        guard !result.isEmpty else { throw ValidationError("--format needs at least one of html, markdown, json, csv, feed, opds.") }
        return result
    }

    /// The live progress line, on a terminal and unless --quiet.
    func makeLiveProgress() -> LiveProgress? {
        !quiet && LiveProgress.isAvailable ? LiveProgress() : nil
    }

    func makeLogger(live: LiveProgress? = nil) -> Logger {
        let level: Logger.Level = quiet ? .warning : (verbose ? .debug : .info)
        return Logger(label: "reader-snapshot") { _ in ConsoleLogHandler(level: level, live: live) }
    }

    func loadTemplates() async throws -> TemplateSet {
        let set = if let templates {
            try await TemplateSet.load(from: URL(fileURLWithPath: templates), language: language)
        } else {
            try await TemplateSet.bundled(language: language)
        }
        // A strings file that lacks keys still renders (those words in English); the run says which.
        let missing = set.language.missingKeys
        if !missing.isEmpty {
            let shown = missing.prefix(10).joined(separator: ", ") + (missing.count > 10 ? " and \(missing.count - 10) more" : "")
            makeLogger().warning("The strings for '\(set.language.tag)' lack \(missing.count) of English's keys, shown in English: \(shown)")
        }
        return set
    }
}

/// The summary of a run, and its exit code.
func report(_ outcome: Exporter.Outcome, output: URL, formats: Set<OutputFormat>, logger: Logger, showPath: Bool = true) -> ExitCode {
    let cards = outcome.catalog.cards
    let library = outcome.catalog.frame
    let network = outcome.network
    let notes = cards.lazy.filter(\.hasNote).count
    // Books whose details failed tonight, whether kept as the last snapshot had them or not.
    let incomplete = library.problems.filter { $0.kind == .bookDetails }.count
    let seconds = Double(outcome.duration.components.seconds) + Double(outcome.duration.components.attoseconds) / 1e18
    logger.info(outcome.unchanged
        ? "No changes: \(cards.count) books on \(library.shelves.count) shelves in \(output.path), as they were"
        : "Wrote \(cards.count) books on \(library.shelves.count) shelves (\(notes) with notes) to \(output.path)")
    logger.info("""
        Covers: \(network.coversDownloaded) fetched, \(network.coversReused) unchanged, \(network.coversFailed) failed\(thumbnailed(network)). \
        Requests: \(network.requests) (\(network.notModified) not modified, \(network.retries) retries), \
        \(formatBytes(network.bytesReceived)) received in \(String(format: "%.1f", seconds)) s. \
        Changes: \(outcome.unchanged || (outcome.changes.isEmpty && !outcome.changes.firstRun) ? "none since the last run" : outcome.changes.summary)\(vaultConflicts(outcome)).
        """)
    if showPath && formats.contains(.html) {
        logger.info("Open \(output.appendingPathComponent("index.html").path)")
    }
    if let reason = network.thumbnailsUnavailable {
        logger.warning("No thumbnails were made: \(reason). Pages show those covers at full size until a run makes them; install libvips, or export with --no-thumbnails.")
    }
    if library.problems.isEmpty { return .success }
    let coverProblems = library.problems.filter { $0.kind == .cover }.count
    let gaps = "Published with gaps: \(incomplete) books without details, \(coverProblems) covers not fetched (listed in the snapshot)."
    // Gaps that were there last night too are not news: --quiet prints nothing for them.
    if outcome.newGaps > 0 { logger.warning("\(gaps)") } else { logger.info("\(gaps)") }
    return ExitCode(ExitCodes.publishedWithGaps)
}

/// How many covers were thumbnailed this run, when any were (the others' thumbnails were linked).
private func thumbnailed(_ network: ClientMetrics.Snapshot) -> String {
    network.thumbnailsMade == 0 ? "" : ", \(network.thumbnailsMade) thumbnailed"
}

/// The change report's word on the vault: the notes edited there that changed on the server too.
private func vaultConflicts(_ outcome: Exporter.Outcome) -> String {
    guard let count = outcome.vault?.conflicts.count, count > 0 else { return "" }
    return "; \(count) \(count == 1 ? "file" : "files") in conflict with your edits in the Markdown folder (yours kept, the server's beside them)"
}

func formatBytes(_ bytes: Int) -> String {
    switch bytes {
    case ..<1024: return "\(bytes) B"
    case ..<(1024 * 1024): return String(format: "%.1f KB", Double(bytes) / 1024)
    default: return String(format: "%.1f MB", Double(bytes) / 1024 / 1024)
    }
}
