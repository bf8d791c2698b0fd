import ArgumentParser
import Foundation

/// The sample server's own options, shared by the shipped tool's `sample-server` and the
/// development tool's (`reader-snapshot-dev sample-server`, which adds the tests' conditions).
public struct SampleServerArguments: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The address to listen on.", valueName: "host"))
    public var host: String = "127.0.0.1"

    @Option(name: .long, help: ArgumentHelp("The port (0 picks a free one).", valueName: "n"))
    public var port: Int = 0

    @Option(name: .long, help: ArgumentHelp("A library file in the sample format instead of the bundled library.", valueName: "file"))
    public var library: String?

    @Option(name: .long, help: ArgumentHelp("Serve a generated library of this many books.", valueName: "n"))
    public var books: Int?

    @Option(name: .long, help: ArgumentHelp("The seed of the generated library.", valueName: "s"))
    public var seed: UInt64 = 1

    @Option(name: .long, help: ArgumentHelp("With --books: how many shelves the books are spread over (default: one for every 250 books, two at least).", valueName: "n"))
    public var shelves: Int?

    @Option(name: .long, help: ArgumentHelp("How long a login takes, like bcrypt on the real server.", valueName: "ms"))
    public var loginDelayMs: Int = 250

    @Flag(name: .long, help: "Let the library be changed between runs, as its owner would (tests, benchmarks): POST /_sample/books/ID/edit adds a line to the note; with ?what=title renames the book, ?what=move&shelf=ID moves it, ?what=delete deletes it; POST /_sample/books?shelf=ID&title=T adds one.")
    public var editable = false

    @Flag(name: .long, help: "Leave shelf_id out of the list of books, as Reader's older documents describe it (a client must then read every shelf's page).")
    public var booksWithoutShelfID = false

    @Flag(name: .long, help: "Covers of real sizes (photo-like JPEGs up to 1216 × 1824, most of them small), and a quarter of the books with none, as in a real library.")
    public var realCovers = false

    @Flag(name: .long, help: "Also answer as Open Library does, under /openlibrary/ (export with --enrich openlibrary --openlibrary-url URL/openlibrary): batched ISBN lookups and covers by id, with its failures. What it knows of an ISBN is made from the ISBN.")
    public var openlibrary = false

    @Option(name: .long, help: ArgumentHelp("With --openlibrary: answer 429 (covers: 403) to a request that comes sooner than this after the last.", valueName: "ms"))
    public var openlibraryMinIntervalMs: Int?

    @Option(name: .long, help: ArgumentHelp("With --openlibrary: how long each of its answers takes.", valueName: "ms"))
    public var openlibraryDelayMs: Int = 0

    public init() {}

    /// The values checked; a mistake is a `ValidationError`, told as a usage error.
    public func check() throws {
        if library != nil && books != nil { throw ValidationError("Use --library or --books, not both.") }
        if let books, !(0...1_000_000).contains(books) { throw ValidationError("--books must be between 0 and 1000000.") }
        if let shelves {
            guard books != nil else { throw ValidationError("--shelves goes with --books.") }
            guard (1...10_000).contains(shelves) else { throw ValidationError("--shelves must be between 1 and 10000.") }
        }
        guard loginDelayMs >= 0 else { throw ValidationError("Times must not be negative.") }
        if !openlibrary && (openlibraryMinIntervalMs != nil || openlibraryDelayMs != 0) {
            throw ValidationError("--openlibrary-min-interval-ms and --openlibrary-delay-ms go with --openlibrary.")
        }
        guard openlibraryDelayMs >= 0, (openlibraryMinIntervalMs ?? 0) >= 0 else { throw ValidationError("Times must not be negative.") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
    }

    /// The library the options name: a file, a generated one, or the bundled one.
    public func sampleLibrary() throws -> SampleLibrary {
        if let library { return try SampleLibrary.load(from: URL(fileURLWithPath: library)) }
        if let books { return try SampleLibrary.synthetic(books: books, seed: seed, shelves: shelves) }
        return try SampleLibrary.bundled()
    }

    /// The server's options as these say, with `conditions` between the requests and the answers.
    public func serverOptions(conditions: (any AnswerConditions)? = nil) -> SampleServer.Options {
        var options = SampleServer.Options()
        if openlibrary {
            var double = OpenLibraryDouble.Options()
            double.minimumInterval = openlibraryMinIntervalMs.map { .milliseconds($0) }
            double.delay = .milliseconds(openlibraryDelayMs)
            options.openLibrary = double
        }
        options.loginDelay = .milliseconds(loginDelayMs)
        options.listsShelfIDs = !booksWithoutShelfID
        options.editable = editable
        options.conditions = conditions
        return options
    }

    /// Serves `sample` in the foreground until the process is told to stop, once it listens
    /// printing where, the account and the command that exports it.
    public func serve(_ sample: SampleLibrary, conditions: (any AnswerConditions)? = nil) async throws {
        let served = realCovers ? sample.withRealCovers(seed: seed) : sample
        let server = SampleServer(library: served, options: serverOptions(conditions: conditions))
        let email = sample.account.email, password = sample.account.password
        let shelves = sample.shelves.count, count = sample.books.count
        let host = self.host, openlibrary = self.openlibrary
        let app = server.makeApplication(host: host, port: port) { port in
            let url = "http://\(host):\(port)"
            let banner = """
            Sample Reader server: \(url)
            Account: \(email) / password \(password) (\(count) \(count == 1 ? "book" : "books") on \(shelves) \(shelves == 1 ? "shelf" : "shelves"))
            Export it: READER_PASSWORD=\(password) reader-snapshot export --server \(url) --email \(email) --output library\(openlibrary ? " --enrich openlibrary --openlibrary-url \(url)/openlibrary" : "")

            """
            FileHandle.standardOutput.write(Data(banner.utf8))
        }
        try await app.runService()
    }
}
