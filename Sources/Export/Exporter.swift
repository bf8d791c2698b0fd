import AsyncHTTPClient
import Crawl
import Foundation
import LibraryArchive
import Notes
import Logging
import ReaderAPI
import Site
import SnapshotStore
import Support

/// One export: crawl → library → render → publish.
package struct Exporter: Sendable {
    package struct Options: Sendable {
        package var server: ServerAddress
        package var credentials: ReaderCredentials
        package var output: URL
        package var templates: TemplateSet
        package var formats: Set<OutputFormat>
        package var concurrency: Int
        /// Find the level in flight up to `concurrency` (the default), or keep it there.
        package var concurrencyMode: AdaptiveConcurrency.Mode = .adaptive
        /// Take books whose `updated_at` has not moved from the last snapshot, and leave an
        /// unchanged snapshot as it is (`--full` turns both off).
        package var reuseUnchanged = true
        package var timeout: Duration
        package var connectTimeout: Duration = .seconds(5)
        package var retry = RetryPolicy()
        /// Where the state is kept instead of the snapshot's hidden folder.
        package var cacheDirectory: URL?
        /// Keep this many dated snapshots under the output (`--keep`).
        package var keep: Int?
        package var limits = ResponseLimits()
        /// Notes longer than this are shown cut, with a notice; `library.json` keeps them whole.
        package var noteLimit = Note.defaultLimit
        package var privacy = Privacy()
        /// Where the site will be served (`--site-url`).
        package var siteURL: URL?
        package var generatedAt: String

        package init(server: ServerAddress, credentials: ReaderCredentials, output: URL, templates: TemplateSet,
                    formats: Set<OutputFormat> = Set(OutputFormat.allCases), concurrency: Int = 8,
                    timeout: Duration = .seconds(30), generatedAt: String = Exporter.timestamp()) {
            self.server = server
            self.credentials = credentials
            self.output = output
            self.templates = templates
            self.formats = formats
            self.concurrency = concurrency
            self.timeout = timeout
            self.generatedAt = generatedAt
        }
    }

    /// What a run did, for the summary line and the exit code.
    package struct Outcome: Sendable {
        /// The library written: its frame, a card per book.
        package var catalog: Catalog
        package var changes: ChangeReport
        package var network: ClientMetrics.Snapshot
        /// True when the library was the same as in the previous snapshot: no file was rewritten.
        package var unchanged: Bool
        /// True when, on top of that, the pages were not even rendered: the snapshot was left as it was.
        package var untouched = false
        package var duration: Duration
    }

    package var options: Options
    package var logger: Logger
    package var live: LiveProgress?

    package init(options: Options, logger: Logger, live: LiveProgress? = nil) {
        self.options = options
        self.logger = logger
        self.live = live
    }

    package func run() async throws -> Outcome {
        let started = ContinuousClock.now
        MemoryUsage.keepBigBlocksApart()
        var options = self.options
        var dated: DatedSnapshots?
        if let keep = options.keep {
            let layout = DatedSnapshots(root: options.output, keep: keep)
            try layout.prepare()
            dated = layout
            if options.cacheDirectory == nil { options.cacheDirectory = layout.stateFolder }
        }
        let target = dated?.folder(for: options.generatedAt) ?? options.output
        let publisher = try Publisher(output: target, previous: dated?.newest)
        let http = ReaderClient.makeHTTPClient(concurrency: options.concurrency, connectTimeout: options.connectTimeout)
        do {
            var outcome = try await crawlAndRender(http: http, publisher: publisher, options: options, dated: dated != nil)
            try await http.shutdown()
            if outcome.result.untouched {
                // Nothing changed and the pages are made the same way: the snapshot stays as it is.
                publisher.discard()
            } else {
                try publisher.publish()
                try dated?.finish(publishing: target)
                if let cacheDirectory = options.cacheDirectory {
                    try outcome.state.write(to: cacheDirectory, library: outcome.result.catalog)
                }
            }
            outcome.result.duration = ContinuousClock.now - started
            return outcome.result
        } catch {
            try? await http.shutdown()
            publisher.discard()
            throw error
        }
    }

    private func crawlAndRender(http: HTTPClient, publisher: Publisher, options: Options, dated: Bool) async throws -> (result: Outcome, state: SnapshotState) {
        let stateFolder = options.cacheDirectory ?? publisher.previous?.appendingPathComponent(SnapshotState.folderName)
        var previousState = stateFolder.map { SnapshotState.read(from: $0, readingCovers: false) } ?? SnapshotState()
        // The last snapshot's library and covers are read beside the login, each on a thread of its
        // own (on Swift's threads, one per core, the login's answer waited behind them): one after
        // the other, they took a fifth of a 10,000-book run with nothing changed.
        let readers = (library: WorkerThread(name: "reader-snapshot library"), covers: WorkerThread(name: "reader-snapshot covers"))
        defer { readers.library.stop(); readers.covers.stop() }
        async let readingLibrary = readers.library.run { () -> Result<Catalog?, Error> in
            Result { try stateFolder.flatMap(SnapshotState.readLibrary) }
        }
        let coversFile = previousState.unreadCovers
        async let readingCovers = readers.covers.run { coversFile.flatMap(CoverRecords.init(reading:)) }
        let cache = try ResponseCache(previous: previousState.responses, spillIn: publisher.staging)
        let client = ReaderClient(server: options.server, http: http, timeout: options.timeout, limits: options.limits,
                                  redactor: Redactor(secrets: options.credentials.secrets), retry: options.retry, cache: cache,
                                  logger: logger)
        logger.info("Logging in to \(options.server)")
        try await client.authenticate(options.credentials)
        let previousLibrary: Catalog?
        switch try await readingLibrary {
        case .success(let library): previousLibrary = library
        case .failure(let error):
            // Nothing is lost: the run asks for every book, and the change report starts afresh.
            logger.warning("The last snapshot's library could not be read (\(error)): every book is asked for again, and no changes are reported.")
            previousLibrary = nil
        }
        previousState.covers = try await readingCovers
        MemoryUsage.release()
        let metrics = client.metrics
        live?.watch {
            let network = metrics.snapshot
            return LiveProgress.Network(bytesReceived: network.bytesReceived, requests: network.requests, retries: network.retries)
        }
        var crawler = Crawler(client: client, concurrency: options.concurrency, logger: logger, live: live)
        crawler.concurrencyMode = options.concurrencyMode
        crawler.privacy = options.privacy
        crawler.noteLimit = options.noteLimit
        if options.reuseUnchanged, previousState.noteLimit == options.noteLimit {
            crawler.previous = previousLibrary
            crawler.previousIsThisBuild = !RenderDigest.thisBuild.isEmpty && previousState.writtenBy == RenderDigest.thisBuild
        }
        let writer = publisher.writer
        let crawl = try await crawler.crawl(generatedAt: options.generatedAt, writer: writer, previousCovers: previousState.covers)
        let library = crawl.catalog
        if let memory = MemoryUsage.summary() { logger.debug("After the crawl: \(memory)") }

        // Nothing changed: the snapshot keeps its date and its change report, so every file is
        // the same and stays as it was.
        let unchanged = try previousLibrary.map { try library.sameContent(as: $0) } ?? false
        var kept: ChangeReport?
        if unchanged, let previousLibrary {
            library.frame.generatedAt = previousLibrary.frame.generatedAt
            kept = publisher.previous.flatMap { try? Data(contentsOf: $0.appendingPathComponent("changes.json")) }
                .flatMap { try? JSONDecoder().decode(ChangeReport.self, from: $0) }
        }
        let changes = try kept ?? ChangeReport.compare(previous: previousLibrary, current: library)
        // The API's answers hold what privacy options leave out: then they are not kept.
        var state = SnapshotState(responses: options.privacy.isActive ? [:] : cache.entries, covers: crawl.covers)
        state.noteLimit = options.privacy.isActive ? nil : options.noteLimit
        state.renderedWith = RenderDigest.digest(templates: options.templates, formats: options.formats, siteURL: options.siteURL)
        state.writtenBy = RenderDigest.thisBuild
        var outcome = Outcome(catalog: library, changes: changes, network: client.metrics.snapshot, unchanged: unchanged, duration: .zero)

        if unchanged, options.reuseUnchanged, let previous = publisher.previous, previousState.renderedWith == state.renderedWith,
           RenderDigest.isIntact(previous, formats: options.formats) {
            if !dated {
                outcome.untouched = true
                return (outcome, state)
            }
            // A new dated folder: yesterday's files, linked.
            logger.info("Nothing changed: linking the previous snapshot's files")
            try writer.linkTree(from: previous)
        } else {
            logger.info("Rendering \(options.formats.sorted().map(\.rawValue).joined(separator: ", "))")
            live?.begin("Rendering", total: 0)
            try SiteRenderer(templates: options.templates, formats: options.formats, siteURL: options.siteURL)
                .render(library, changes: changes, into: writer)
        }
        MemoryUsage.release()
        if let memory = MemoryUsage.summary() { logger.debug("After rendering: \(memory)") }
        if options.cacheDirectory == nil {
            let published = options.formats.contains(.json) ? publisher.staging.appendingPathComponent("library.json") : nil
            try state.write(to: publisher.staging.appendingPathComponent(SnapshotState.folderName), library: library, published: published)
        }
        outcome.network = client.metrics.snapshot
        return (outcome, state)
    }

    /// Renders a snapshot again from its `library.json`, with the covers beside it. The books are
    /// read from the file as their pages are made.
    package static func render(from archive: URL, to output: URL, templates: TemplateSet,
                              formats: Set<OutputFormat>, siteURL: URL? = nil, logger: Logger) throws -> Catalog {
        MemoryUsage.keepBigBlocksApart()
        let catalog: Catalog
        do {
            catalog = try Catalog.read(from: archive)
        } catch let error as SnapshotError {
            throw error
        } catch let error as DecodingError {
            let (path, detail) = ReaderClient.describe(error)
            throw SnapshotError(.unreadableArchive(detail: "\(path.isEmpty ? "" : path + ": ")\(detail)"), path: archive.path)
        } catch {
            throw SnapshotError(.unreadableArchive(detail: error.localizedDescription), path: archive.path)
        }
        MemoryUsage.release()
        let source = archive.deletingLastPathComponent()
        // An archive is input like any other: a cover path must be one this tool writes.
        var refused = 0
        for index in catalog.cards.indices {
            if let cover = catalog.cards[index].cover, !CoverFile.isWellFormed(path: cover.path) {
                catalog.removeCover(at: index)
                refused += 1
            }
        }
        if refused > 0 { logger.warning("\(refused) cover paths in library.json are not of the form covers/<hash>.<ext>; those covers are left out") }
        let changes = (try? Data(contentsOf: source.appendingPathComponent("changes.json")))
            .flatMap { try? JSONDecoder().decode(ChangeReport.self, from: $0) }
        let publisher = try Publisher(output: output)
        do {
            let writer = publisher.writer
            var missing = 0
            for path in Set(catalog.cards.compactMap { $0.cover?.path }).sorted() {
                let file = source.appendingPathComponent(path)
                if FileManager.default.fileExists(atPath: file.path) {
                    try writer.link(file, to: path)
                } else {
                    missing += 1
                }
            }
            if missing > 0 { logger.warning("\(missing) cover files named in library.json are not beside it") }
            try SiteRenderer(templates: templates, formats: formats, siteURL: siteURL).render(catalog, changes: changes, into: writer)
            try publisher.publish()
        } catch {
            publisher.discard()
            throw error
        }
        return catalog
    }

    /// Now, or SOURCE_DATE_EPOCH when it is set, as ISO 8601 in UTC: "2023-11-14T22:13:20Z". Made
    /// from the C library's calendar fields: Foundation's date formatter loads ICU's data, which
    /// then stays in a run's memory (6 MB of it).
    package static func timestamp(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let seconds: Int
        if let epoch = environment["SOURCE_DATE_EPOCH"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
            seconds = epoch
        } else {
            seconds = Int(Date().timeIntervalSince1970.rounded(.down))
        }
        var time = time_t(seconds)
        var fields = tm()
        guard gmtime_r(&time, &fields) != nil, (0...9999).contains(fields.tm_year + 1900) else {
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = TimeZone(identifier: "UTC")
            return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
        func digits(_ value: Int32, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return digits(fields.tm_year + 1900, 4) + "-" + digits(fields.tm_mon + 1, 2) + "-" + digits(fields.tm_mday, 2)
            + "T" + digits(fields.tm_hour, 2) + ":" + digits(fields.tm_min, 2) + ":" + digits(fields.tm_sec, 2) + "Z"
    }
}
