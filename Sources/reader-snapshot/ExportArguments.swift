import ArgumentParser
import Crawl
import Export
import Enrich
import Foundation
import History
import Logging
import ReaderAPI
import Site
import SnapshotStore
import Support
import Vault

/// The options of `export`, checked and resolved in one place (`resolve`) into the values the
/// export's steps take. Nothing is checked in `validate()` but the one mistake that must be told
/// before any other: argument-parser runs `validate()` before it looks for unknown options, and a
/// check there would hide its "Did you mean '--server'?" behind a message about the value that the
/// misspelt option failed to give. For the same reason no option is declared required.
package struct ExportArguments: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The Reader server, like https://reader.example.com (or READER_SERVER).", valueName: "url"))
    var server: String?

    @Option(name: .long, help: ArgumentHelp("The folder to write the snapshot to; an earlier snapshot there is replaced when the new one is complete.", valueName: "dir"))
    package var output: String?

    @Option(name: .long, help: ArgumentHelp("Your account's e-mail (or READER_EMAIL).", valueName: "email"))
    var email: String?

    @Option(name: .long, help: ArgumentHelp("Read the password from this file (readable by you alone).", valueName: "file"))
    var passwordFile: String?

    /// Never used: there so that `--password` is told what to do instead, not "Unknown option".
    /// A flag's default lets `--password` without a value be told the same.
    @Option(name: .long, defaultAsFlag: "", parsing: .next, help: .hidden)
    var password: String?

    @Flag(name: .long, help: "Read the password from standard input.")
    var passwordStdin = false

    @Option(name: .long, help: ArgumentHelp("An api key instead of a password (prefer READER_API_KEY: options show in the process list).", valueName: "key"))
    var apiKey: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The user id that goes with the api key (or READER_USER_ID).", valueName: "id"))
    var userID: Int?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The most requests in flight at once. The crawl starts with one and finds the level the server answers fastest at, up to this.", valueName: "n"))
    var concurrency: Int = Crawler.defaultConcurrency

    @Flag(name: .long, help: "Keep exactly --concurrency requests in flight instead of finding the level.")
    var fixedConcurrency = false

    @Flag(name: .long, help: "Ask for every book's details, even those /books says have not changed since the last snapshot, and what failed in the last runs (tried again the next run, a day later, then weekly), and render every page again.")
    var full = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Seconds one request may take before it is retried.", valueName: "seconds"))
    var timeout: Double = 30

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Retries of a request that failed in a way that may pass (timeouts, resets, 429, 502-504, a crash page), with growing waits.", valueName: "n"))
    var retries: Int = 4

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Keep the last N snapshots as DIR/snapshots/<date>/, with DIR/latest pointing at the newest; unchanged files are hard links, not copies.", valueName: "n"))
    var keep: Int?

    @Option(name: .long, help: ArgumentHelp("Keep the state of incremental runs (ETags, covers) here instead of beside the output, in PARENT/.DIR.reader-snapshot.", valueName: "dir"))
    var cacheDir: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Seconds to wait for a connection (a gone cover host costs this a few times).", valueName: "seconds"))
    var connectTimeout: Double = 5

    @OptionGroup package var content: ContentArguments

    @Flag(name: .long, help: "Refuse to send credentials over plain http (loopback excepted).")
    var requireHTTPS = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The largest JSON answer accepted.", valueName: "MB"))
    var maxResponseMb: Int = 64

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The largest cover accepted.", valueName: "MB"))
    var maxCoverMb: Int = 20

    @Flag(name: .long, help: "Keep the snapshot's text (Markdown, library.json, the CSV, each cover once) in git: a commit for each run that changed something, dated by the snapshot, beside it in PARENT/.DIR.history.git (never in what is shared: it holds every note ever kept). 'reader-snapshot history DIR' tells it night by night. Needs git.")
    var history = false

    @Option(name: .long, help: ArgumentHelp("The author of the history's commits (default: reader-snapshot <reader-snapshot@localhost>).", valueName: "name <email>"))
    var historyAuthor: String?

    @Option(name: .long, help: ArgumentHelp("Keep the Markdown in DIR/Reader/ too, a folder of yours (a notes vault); nothing else there is touched. Your edits are kept: the server's new version of a note you edited goes beside it as NAME.reader.md.", valueName: "dir"))
    var markdownInto: String?

    @Flag(name: .long, help: "With --markdown-into: write again the files you deleted from DIR/Reader/.")
    var restore = false

    @Option(name: .long, help: ArgumentHelp("Fill in what the server does not have from another source, for books with an ISBN: 'openlibrary' (off by default). What leaves this machine: the books' ISBNs, sent to openlibrary.org (or --openlibrary-url), and requests for the covers it names; nothing else. Adds the cover where the server has none, the publisher, the year published, the number of pages and the subjects, each marked as Open Library's; never replaces what the server gave. At most one request a second; answers are kept for 30 days (7 for an ISBN it does not know).", valueName: "source"))
    var enrich: String?

    @Option(name: .long, help: ArgumentHelp("With --enrich openlibrary: an e-mail address Open Library can reach you at, sent in the User-Agent as it asks of regular users (needed for openlibrary.org itself).", valueName: "email"))
    var contact: String?

    @Option(name: .long, help: ArgumentHelp("With --enrich openlibrary: where its Books API is (a mirror, or the sample server's double; default https://openlibrary.org).", valueName: "url"))
    var openlibraryURL: String?

    @Option(name: .long, help: ArgumentHelp("With --enrich openlibrary: where its covers are (default https://covers.openlibrary.org; with --openlibrary-url alone, URL/covers).", valueName: "url"))
    var openlibraryCoversURL: String?

    @Option(name: .long, parsing: .unconditional, help: .hidden)
    var openlibraryIntervalMs: Int?

    @OptionGroup package var site: SiteArguments

    @OptionGroup package var console: ConsoleArguments

    package init() {}

    /// The password typed as an option is told first, whatever else is wrong: it has been typed
    /// where it shows.
    package func validate() throws {
        if password != nil {
            throw ValidationError("""
                The password is never taken as an option (it would show in the process list): set \
                READER_PASSWORD, or use --password-file FILE or --password-stdin.
                """)
        }
    }

    /// Every option checked, the environment read once, the password read, the templates loaded
    /// (their parse is checked once the export has logged in):
    /// the values the export takes. A mistake is a `ValidationError`, told as a usage error;
    /// templates that cannot be loaded are a `SnapshotError`, with its own exit code.
    package func resolve(environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger) async throws -> ExportSettings {
        func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let output else { throw ValidationError("Missing expected argument '--output <dir>': the folder to write the snapshot to.") }
        try site.check()
        let network = try resolveNetwork()
        let content = try self.content.resolve()
        try console.check()
        let author = try resolveHistoryAuthor()
        let vault = try resolveVault(output: output)
        let openLibrary = try openLibraryOptions()
        guard let serverText = server ?? variable("READER_SERVER") else {
            throw ValidationError("Give the Reader server with --server URL or READER_SERVER.")
        }
        let address: ServerAddress
        do { address = try ServerAddress(serverText) } catch let error as ReaderAPIError {
            // Not echoed: a URL given by mistake with a password or key in it must not be printed.
            throw ValidationError("--server / READER_SERVER: \(error.reasonText)")
        }
        if requireHTTPS && address.scheme == "http" && !address.isLoopback {
            throw ValidationError("\(address) is plain http and --require-https is set: the credentials would cross the network unencrypted.")
        }
        let credentials = try resolveCredentials(variable, logger: logger)
        let place = SnapshotPlace(root: URL(fileURLWithPath: output), keep: keep, cacheDirectory: cacheDir.map { URL(fileURLWithPath: $0) })
        // The templates are parsed while the export logs in (`Exporter.logIn`).
        var site = try await self.site.resolve(logger: logger, place: place, checkingTemplatesLater: true)
        if markdownInto != nil { site.formats.insert(.markdown) }
        var contentPolicy = content
        contentPolicy.reuseUnchanged = !full
        var settings = ExportSettings(server: address, credentials: credentials, place: place,
                                      site: site, content: contentPolicy, network: network, date: .now(environment: environment))
        settings.historyAuthor = author
        settings.vault = vault
        settings.openLibrary = openLibrary
        if address.scheme == "http" && !address.isLoopback {
            logger.warning("\(address) is plain http: the password and api key would cross the network unencrypted (--require-https refuses this).")
        }
        if openLibrary != nil, !contentPolicy.privacy.covers {
            logger.info("--no-covers: Open Library is asked for the books' fields, not for covers")
        }
        return settings
    }

    private func resolveNetwork() throws -> NetworkSettings {
        guard (1...4096).contains(maxResponseMb), (1...1024).contains(maxCoverMb) else {
            throw ValidationError("--max-response-mb must be 1–4096, --max-cover-mb 1–1024.")
        }
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 64.") }
        guard connectTimeout > 0 && connectTimeout <= 600 else { throw ValidationError("--connect-timeout must be more than 0 and at most 600 seconds.") }
        guard timeout > 0 && timeout <= 3600 else { throw ValidationError("--timeout must be more than 0 and at most 3600 seconds.") }
        if let keep, !(1...10_000).contains(keep) { throw ValidationError("--keep must be between 1 and 10000.") }
        guard (0...20).contains(retries) else { throw ValidationError("--retries must be between 0 and 20.") }
        var network = NetworkSettings()
        network.concurrency = concurrency
        network.concurrencyMode = fixedConcurrency ? .fixed : .adaptive
        network.timeout = .milliseconds(Int(timeout * 1000))
        network.connectTimeout = .milliseconds(Int(connectTimeout * 1000))
        network.retry = RetryPolicy(retries: retries)
        network.limits.jsonBytes = maxResponseMb << 20
        network.limits.coverBytes = maxCoverMb << 20
        return network
    }

    private func resolveHistoryAuthor() throws -> HistoryRepository.Author? {
        if history && Executable.find("git") == nil {
            throw ValidationError("--history needs git, which is not on the PATH: install it (apt-get install git, brew install git).")
        }
        guard let historyAuthor else { return history ? .tool : nil }
        guard history else { throw ValidationError("--history-author goes with --history.") }
        guard let author = HistoryRepository.Author(parsing: historyAuthor) else {
            throw ValidationError("--history-author must read like \"Your Name <you@example.com>\".")
        }
        return author
    }

    private func resolveVault(output: String) throws -> Vault? {
        guard let markdownInto else {
            if restore { throw ValidationError("--restore goes with --markdown-into.") }
            return nil
        }
        let vault = URL(fileURLWithPath: markdownInto).standardizedFileURL.resolvingSymlinksInPath().path + "/"
        let out = URL(fileURLWithPath: output).standardizedFileURL.resolvingSymlinksInPath().path + "/"
        if vault.hasPrefix(out) || out.hasPrefix(vault + Vault.folderName + "/") {
            throw ValidationError("--markdown-into must be outside the output folder (each run replaces the output), and the output outside its Reader/ folder.")
        }
        return Vault(into: URL(fileURLWithPath: markdownInto), restore: restore)
    }

    /// Which credentials, and the secret read: from the environment, a file readable by its owner
    /// alone, or standard input; never from an option.
    private func resolveCredentials(_ variable: (String) -> String?, logger: Logger) throws -> ReaderCredentials {
        if passwordFile != nil && passwordStdin {
            throw ValidationError("Use one of --password-file and --password-stdin, not both.")
        }
        if let key = apiKey ?? variable("READER_API_KEY") {
            guard let user = userID ?? variable("READER_USER_ID").flatMap({ Int($0) }) else {
                throw ValidationError("An api key needs --user-id (or READER_USER_ID).")
            }
            if apiKey != nil { logger.warning("--api-key shows in the process list; prefer READER_API_KEY.") }
            return .apiKey(userID: user, apiKey: key)
        }
        guard let mail = email ?? variable("READER_EMAIL") else {
            throw ValidationError("Give --email with a password (READER_PASSWORD, --password-file or --password-stdin), or an api key (READER_API_KEY) with --user-id.")
        }
        if let passwordFile {
            return .password(email: mail, password: try Self.readPasswordFile(passwordFile))
        }
        if passwordStdin {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            let password = SecretFile.firstLine(String(decoding: data, as: UTF8.self))
            guard !password.isEmpty else { throw ValidationError("--password-stdin read an empty password: its first line is the password.") }
            return .password(email: mail, password: password)
        }
        if let password = variable("READER_PASSWORD") {
            return .password(email: mail, password: password)
        }
        throw ValidationError("No password: set READER_PASSWORD, or use --password-file FILE or --password-stdin.")
    }

    static func readPasswordFile(_ path: String) throws -> String {
        do {
            return try SecretFile.firstLine(of: path, named: "password file")
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// `--enrich openlibrary` and the options that go with it, checked; nil without `--enrich`.
    func openLibraryOptions() throws -> OpenLibraryOptions? {
        guard let enrich else {
            if contact != nil || openlibraryURL != nil || openlibraryCoversURL != nil || openlibraryIntervalMs != nil {
                throw ValidationError("--contact, --openlibrary-url and --openlibrary-covers-url go with --enrich openlibrary.")
            }
            return nil
        }
        guard enrich.lowercased() == "openlibrary" else {
            throw ValidationError("--enrich takes 'openlibrary' (the only source so far), not '\(UntrustedText.displayable(enrich))'.")
        }
        var options = OpenLibraryOptions()
        if let contact {
            let parts = contact.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), contact.count <= 200,
                  contact.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && !"()<>;\\\"".unicodeScalars.contains($0) }) else {
                throw ValidationError("--contact must be an e-mail address, like you@example.com.")
            }
            options.contact = contact
        }
        func address(_ text: String, _ option: String) throws -> URL {
            guard let address = WebAddress(text.hasSuffix("/") ? String(text.dropLast()) : text), !address.hasCredentials, !address.hasQuery else {
                throw ValidationError("\(option) must be an http or https URL, like https://openlibrary.org.")
            }
            return address.url
        }
        if let openlibraryURL {
            options.api = try address(openlibraryURL, "--openlibrary-url")
            options.covers = options.api.appendingPathComponent("covers")
        }
        if let openlibraryCoversURL { options.covers = try address(openlibraryCoversURL, "--openlibrary-covers-url") }
        // Open Library asks regular users to say who they are; a mirror or the sample server's double need not.
        if options.contact == nil, options.api.host?.lowercased().hasSuffix("openlibrary.org") == true {
            throw ValidationError("--enrich openlibrary needs --contact EMAIL: Open Library asks to know whom to write to about a client's requests (the address goes in the User-Agent, nowhere else).")
        }
        if let openlibraryIntervalMs {
            guard (0...60_000).contains(openlibraryIntervalMs) else { throw ValidationError("--openlibrary-interval-ms must be 0–60000.") }
            options.interval = .milliseconds(openlibraryIntervalMs)
        }
        options.timeout = .milliseconds(Int(timeout * 1000))
        return options
    }
}
