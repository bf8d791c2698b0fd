import ArgumentParser
import Export
import Foundation
import Logging
import SampleServer
import Support
import SnapshotStore

struct Demo: AsyncParsableCommand, CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Export the bundled sample library: starts the sample server on a free loopback port and exports it.",
        discussion: """
        The sample library has, on purpose, a book on a deleted shelf and covers that cannot be \
        fetched: the snapshot shows how they are reported (the run still ends with 0).

        \(ExitCodes.helpText(for: .demo))
        """
    )

    @Option(name: .long, help: ArgumentHelp("Where to write the snapshot.", valueName: "dir"))
    var output: String = "Output/demo"

    @OptionGroup var content: ContentArguments

    @OptionGroup var site: SiteArguments

    @OptionGroup var console: ConsoleArguments

    func check() throws {
        try console.check()
        _ = try content.resolve()
        try site.check()
    }

    /// The demo's sample server's port, when it is free.
    static let port = 47_615

    func run() async throws {
        let live = console.makeLiveProgress()
        let logger = console.makeLogger(live: live)
        let place = SnapshotPlace(root: URL(fileURLWithPath: output), keep: nil)
        let identity = try await resolving(logger: logger) { try await site.resolve(logger: logger, place: place) }
        let policy = try content.resolve()
        Interruption.install(logger: logger, live: live)
        live?.start()
        defer { live?.stop() }
        logger.debug("reader-snapshot \(ReaderSnapshot.version)")
        var serverOptions = SampleServer.Options()
        serverOptions.openLibrary = OpenLibraryDouble.Options()
        let server = SampleServer(library: try SampleLibrary.bundled(), options: serverOptions)
        // The same address each time when it is free: the snapshot's state is kept for one server,
        // so a second demo is then a quiet night, as a second export of a real server is.
        let running: RunningSampleServer
        do {
            running = try await server.start(host: "127.0.0.1", port: Self.port)
        } catch {
            running = try await server.start(host: "127.0.0.1", port: 0)
        }
        logger.info("Sample Reader server on \(running.url) (account \(SampleLibrary.demoEmail))")
        logger.info("Its library has, on purpose, books on a deleted shelf and covers that cannot be fetched: the warnings about them are expected.")
        do {
            let settings = try ExportSettings.sample(at: running.url, email: SampleLibrary.demoEmail, password: SampleLibrary.demoPassword,
                                                     output: URL(fileURLWithPath: output), site: identity, content: policy)
            let outcome = try await Exporter(settings: settings, logger: logger, live: live).run()
            await running.stop()
            _ = report(outcome, formats: identity.formats, logger: logger, showPath: false)
            if identity.formats.contains(.html) && !console.quiet {
                print("Snapshot ready: open \(outcome.place.shown.standardizedFileURL.appendingPathComponent("index.html").path)")
            }
        } catch {
            await running.stop()
            throw failureExit(for: error, logger: logger)
        }
    }
}

struct SampleServerCommand: AsyncParsableCommand, CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample-server",
        abstract: "Run the sample Reader server in the foreground (Ctrl-C stops it).",
        discussion: """
        The account is always e-mail \(SampleLibrary.demoEmail), password \(SampleLibrary.demoPassword), \
        unless --library names a file with another.

        \(ExitCodes.helpText(for: .sampleServer))
        """
    )

    @Option(name: .long, help: ArgumentHelp("The address to listen on.", valueName: "host"))
    var host: String = "127.0.0.1"

    @Option(name: .long, help: ArgumentHelp("The port (0 picks a free one).", valueName: "n"))
    var port: Int = 0

    @Option(name: .long, help: ArgumentHelp("A library file in the sample format instead of the bundled library, or 'hostile' for every kind of hostile input.", valueName: "file"))
    var library: String?

    @Option(name: .long, help: ArgumentHelp("Serve a generated library of this many books.", valueName: "n"))
    var books: Int?

    @Option(name: .long, help: ArgumentHelp("The seed of the generated library.", valueName: "s"))
    var seed: UInt64 = 1

    @Option(name: .long, help: ArgumentHelp("How long a login takes, like bcrypt on the real server.", valueName: "ms"))
    var loginDelayMs: Int = 250

    @Option(name: .long, help: ArgumentHelp("How long answers take on average, from the moment the request is read to the response (this server's own work included). Timers wake late: the server makes up for it, and prints the mean it met when it stops.", valueName: "ms"))
    var latencyMs: Int = 0

    @Option(name: .long, help: ArgumentHelp("Requests served at once, each for its latency; the rest wait in line, as behind one small Rails process (default: no limit).", valueName: "n"))
    var capacity: Int?

    @Flag(name: .long, help: "Answer as slowly as the real Reader server: a shelf's page 30 ms plus 3.4 ms a book on it, the list of books 10 ms plus 0.16 ms a book, a book's details 7 ms, a cover 1–3 ms, a 304 as slow as a 200, one request at a time unless --capacity says otherwise. Replaces --latency-ms.")
    var realistic = false

    @Flag(name: .long, help: "Let the library be changed between runs, as its owner would (tests, benchmarks): POST /_sample/books/ID/edit adds a line to the note; with ?what=title renames the book, ?what=move&shelf=ID moves it, ?what=delete deletes it; POST /_sample/books?shelf=ID&title=T adds one.")
    var editable = false

    @Flag(name: .long, help: "Leave shelf_id out of the list of books, as Reader's older documents describe it (a client must then read every shelf's page).")
    var booksWithoutShelfID = false

    @Option(name: .long, help: ArgumentHelp("The share of requests that fail, 0 to 1 (logins excepted).", valueName: "rate"))
    var faultRate: Double = 0

    @Option(name: .long, help: ArgumentHelp("The seed of the fault draws.", valueName: "s"))
    var faultSeed: UInt64 = 1

    @Option(name: .long, help: ArgumentHelp("Which faults, comma-separated: 500, 503, 429, reset, stall, truncated (default: all).", valueName: "list"))
    var faults: String?

    @Option(name: .long, help: ArgumentHelp("How long a stalled answer hangs.", valueName: "ms"))
    var stallMs: Int = 30_000

    @Option(name: .long, help: ArgumentHelp("With --books: how many shelves the books are spread over (default: one for every 250 books, two at least).", valueName: "n"))
    var shelves: Int?

    @Flag(name: .long, help: "Covers of real sizes (photo-like JPEGs up to 1216 × 1824, most of them small), and a quarter of the books with none, as in a real library.")
    var realCovers = false

    @Flag(name: .long, help: "Also answer as Open Library does, under /openlibrary/ (export with --enrich openlibrary --openlibrary-url URL/openlibrary): batched ISBN lookups and covers by id, with its failures. What it knows of an ISBN is made from the ISBN.")
    var openlibrary = false

    @Option(name: .long, help: ArgumentHelp("With --openlibrary: answer 429 (covers: 403) to a request that comes sooner than this after the last.", valueName: "ms"))
    var openlibraryMinIntervalMs: Int?

    @Option(name: .long, help: ArgumentHelp("With --openlibrary: how long each of its answers takes.", valueName: "ms"))
    var openlibraryDelayMs: Int = 0

    func check() throws {
        if library != nil && books != nil { throw ValidationError("Use --library or --books, not both.") }
        if let books, !(0...1_000_000).contains(books) { throw ValidationError("--books must be between 0 and 1000000.") }
        if let shelves {
            guard books != nil else { throw ValidationError("--shelves goes with --books.") }
            guard (1...10_000).contains(shelves) else { throw ValidationError("--shelves must be between 1 and 10000.") }
        }
        guard (0...1).contains(faultRate) else { throw ValidationError("--fault-rate must be between 0 and 1.") }
        if let capacity, capacity < 1 { throw ValidationError("--capacity must be at least 1.") }
        if realistic && latencyMs > 0 { throw ValidationError("Use --realistic or --latency-ms, not both.") }
        guard latencyMs >= 0, stallMs >= 0, loginDelayMs >= 0 else { throw ValidationError("Times must not be negative.") }
        _ = try faultKinds()
        if !openlibrary && (openlibraryMinIntervalMs != nil || openlibraryDelayMs != 0) {
            throw ValidationError("--openlibrary-min-interval-ms and --openlibrary-delay-ms go with --openlibrary.")
        }
        guard openlibraryDelayMs >= 0, (openlibraryMinIntervalMs ?? 0) >= 0 else { throw ValidationError("Times must not be negative.") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
    }

    func faultKinds() throws -> [Fault] {
        guard let faults else { return [] }
        return try faults.split(separator: ",").map { name in
            guard let fault = Fault(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("Unknown fault '\(name)': use 500, 503, 429, reset, stall, truncated.")
            }
            return fault
        }
    }

    func run() async throws {
        let sample: SampleLibrary
        if library == "hostile" {
            sample = try SampleLibrary.hostile()
        } else if let library {
            sample = try SampleLibrary.load(from: URL(fileURLWithPath: library))
        } else if let books {
            sample = try SampleLibrary.synthetic(books: books, seed: seed, shelves: shelves)
        } else {
            sample = try SampleLibrary.bundled()
        }
        let served = realCovers ? sample.withRealCovers(seed: seed) : sample
        var options = SampleServer.Options()
        if openlibrary {
            var double = OpenLibraryDouble.Options()
            double.minimumInterval = openlibraryMinIntervalMs.map { .milliseconds($0) }
            double.delay = .milliseconds(openlibraryDelayMs)
            options.openLibrary = double
        }
        options.loginDelay = .milliseconds(loginDelayMs)
        options.latency = .milliseconds(latencyMs)
        options.latencyOnAverage = true
        options.capacity = capacity ?? (realistic ? 1 : nil)
        options.costs = realistic ? .reader : nil
        options.listsShelfIDs = !booksWithoutShelfID
        options.editable = editable
        options.faults = FaultPlan(rate: faultRate, seed: faultSeed, kinds: try faultKinds(), stall: .milliseconds(stallMs))
        let server = SampleServer(library: served, options: options)
        let email = sample.account.email
        let password = sample.account.password
        let shelves = sample.shelves.count, count = sample.books.count
        let host = self.host
        let app = server.makeApplication(host: host, port: port) { port in
            let url = "http://\(host):\(port)"
            let banner = """
            Sample Reader server: \(url)
            Account: \(email) / password \(password) (\(counted(count, "book", "books")) on \(counted(shelves, "shelf", "shelves")))
            Export it: READER_PASSWORD=\(password) reader-snapshot export --server \(url) --email \(email) --output library\(openlibrary ? " --enrich openlibrary --openlibrary-url \(url)/openlibrary" : "")

            """
            FileHandle.standardOutput.write(Data(banner.utf8))
        }
        try await app.runService()
        let held = server.heldAnswers
        if latencyMs > 0, held.answers > 0 {
            // For the benchmarks: the latency the crawl really met.
            let mean = Double(held.mean.components.attoseconds) / 1e15 + Double(held.mean.components.seconds) * 1000
            FileHandle.standardOutput.write(Data(String(format: "Answers: %d held, %.3f ms on average from request to answer (--latency-ms %d)\n",
                                                        held.answers, mean, latencyMs).utf8))
        }
    }
}
