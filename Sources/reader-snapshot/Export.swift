import ArgumentParser
import Crawl
import Enrich
import Export
import Foundation
import History
import LibraryArchive
import Logging
import Notes
import Publish
import ReaderAPI
import Site
import SnapshotStore
import Support
import Vault

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export a Reader library to a snapshot folder.",
        // Written out: --output is checked by validate(), not declared required (see CommandLineChecks).
        usage: "reader-snapshot export [<options>] --output <dir>",
        discussion: """
        Credentials: --email with the password from READER_PASSWORD, --password-file or \
        --password-stdin; or an api key (READER_API_KEY, or --api-key) with --user-id. The password \
        is never taken as a plain option: it would show in the process list.

        Environment: READER_SERVER, READER_EMAIL, READER_PASSWORD, READER_API_KEY, READER_USER_ID, \
        SOURCE_DATE_EPOCH (the snapshot's date, for reproducible output).

        \(ExitCodes.helpText(for: .export))
        """
    )

    @Option(name: .long, help: ArgumentHelp("The Reader server, like https://reader.example.com (or READER_SERVER).", valueName: "url"))
    var server: String?

    @Option(name: .long, help: ArgumentHelp("The folder to write the snapshot to; an earlier snapshot there is replaced when the new one is complete.", valueName: "dir"))
    var output: String?

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

    @Option(name: .long, help: ArgumentHelp("The user id that goes with the api key (or READER_USER_ID).", valueName: "id"))
    var userID: Int?

    @Option(name: .long, help: ArgumentHelp("The most requests in flight at once. The crawl starts with one and finds the level the server answers fastest at, up to this.", valueName: "n"))
    var concurrency: Int = Crawler.defaultConcurrency

    @Flag(name: .long, help: "Keep exactly --concurrency requests in flight instead of finding the level.")
    var fixedConcurrency = false

    @Flag(name: .long, help: "Ask for every book's details, even those /books says have not changed since the last snapshot, and what failed in the last runs (tried again the next run, a day later, then weekly), and render every page again.")
    var full = false

    @Option(name: .long, help: ArgumentHelp("Seconds one request may take before it is retried.", valueName: "seconds"))
    var timeout: Double = 30

    @Option(name: .long, help: ArgumentHelp("Retries of a request that failed in a way that may pass (timeouts, resets, 429, 502-504, a crash page), with growing waits.", valueName: "n"))
    var retries: Int = 4

    @Option(name: .long, help: ArgumentHelp("Keep the last N snapshots as DIR/snapshots/<date>/, with DIR/latest pointing at the newest; unchanged files are hard links, not copies.", valueName: "n"))
    var keep: Int?

    @Option(name: .long, help: ArgumentHelp("Keep the state of incremental runs (ETags, covers) here instead of in the snapshot's hidden .reader-snapshot folder.", valueName: "dir"))
    var cacheDir: String?

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for a connection (a gone cover host costs this a few times).", valueName: "seconds"))
    var connectTimeout: Double = 5

    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("Leave this shelf (name or id) and its books out of every file written; repeatable.", valueName: "name-or-id"))
    var excludeShelf: [String] = []

    @Flag(name: .long, help: "Leave the notes out of every file written.")
    var noNotes = false

    @Flag(name: .long, help: "Leave the covers out (none is fetched).")
    var noCovers = false

    @Flag(name: .long, help: "Refuse to send credentials over plain http (loopback excepted).")
    var requireHTTPS = false

    @Option(name: .long, help: ArgumentHelp("The largest JSON answer accepted.", valueName: "MB"))
    var maxResponseMb: Int = 64

    @Option(name: .long, help: ArgumentHelp("The largest cover accepted.", valueName: "MB"))
    var maxCoverMb: Int = 20

    @Option(name: .long, help: ArgumentHelp("Notes longer than this are shown cut, with a notice (library.json keeps them whole).", valueName: "KB"))
    var maxNoteKb: Int = Note.defaultLimit / 1024

    @Flag(name: .long, help: "Keep the snapshot's text (Markdown, library.json, the CSV, each cover once) in git: a commit for each run that changed something, dated by the snapshot, in DIR/.git (DIR/history.git with --keep). 'reader-snapshot history DIR' tells it night by night. Needs git.")
    var history = false

    @Option(name: .long, help: ArgumentHelp("The author of the history's commits (default: reader-snapshot <reader-snapshot@localhost>).", valueName: "name <email>"))
    var historyAuthor: String?

    @Option(name: .long, help: ArgumentHelp("Keep the Markdown in DIR/Reader/ too, a folder of yours (a notes vault); nothing else there is touched. Your edits are kept: the server's new version of a note you edited goes beside it as NAME.reader.md.", valueName: "dir"))
    var markdownInto: String?

    @Flag(name: .long, help: "With --markdown-into: write again the files you deleted from DIR/Reader/.")
    var restore = false

    @Flag(name: .long, help: "Make no thumbnails: pages load every cover at full size.")
    var noThumbnails = false

    @Option(name: .long, help: ArgumentHelp("Fill in what the server does not have from another source, for books with an ISBN: 'openlibrary' (off by default). What leaves this machine: the books' ISBNs, sent to openlibrary.org (or --openlibrary-url), and requests for the covers it names; nothing else. Adds the cover where the server has none, the publisher, the year published, the number of pages and the subjects, each marked as Open Library's; never replaces what the server gave. At most one request a second; answers are kept for 30 days (7 for an ISBN it does not know).", valueName: "source"))
    var enrich: String?

    @Option(name: .long, help: ArgumentHelp("With --enrich openlibrary: an e-mail address Open Library can reach you at, sent in the User-Agent as it asks of regular users (needed for openlibrary.org itself).", valueName: "email"))
    var contact: String?

    @Option(name: .long, help: ArgumentHelp("With --enrich openlibrary: where its Books API is (a mirror, or the sample server's double; default https://openlibrary.org).", valueName: "url"))
    var openlibraryURL: String?

    @Option(name: .long, help: ArgumentHelp("With --enrich openlibrary: where its covers are (default https://covers.openlibrary.org; with --openlibrary-url alone, URL/covers).", valueName: "url"))
    var openlibraryCoversURL: String?

    @Option(name: .long, help: .hidden)
    var openlibraryIntervalMs: Int?

    @Option(name: .long, help: ArgumentHelp("Then upload the snapshot to this rclone remote and path (see 'reader-snapshot publish --help'), when the export published something new or the last publish there did not finish.", valueName: "remote:path"))
    var publish: String?

    @OptionGroup var publishing: PublishOptions

    @OptionGroup var snapshot: SnapshotOptions

    func validate() throws {
        // Told first, in the first parse too (see CommandLineChecks): whatever else is wrong, the
        // password has been typed where it shows.
        if password != nil {
            throw ValidationError("""
                The password is never taken as an option (it would show in the process list): set \
                READER_PASSWORD, or use --password-file FILE or --password-stdin.
                """)
        }
        guard CommandLineChecks.enabled else { return }
        let output = try CommandLineChecks.required(output, "--output <dir>", "the folder to write the snapshot to")
        guard (1...4096).contains(maxResponseMb), (1...1024).contains(maxCoverMb), (1...1_048_576).contains(maxNoteKb) else {
            throw ValidationError("--max-response-mb must be 1–4096, --max-cover-mb 1–1024, --max-note-kb 1–1048576.")
        }
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 64.") }
        guard connectTimeout > 0 && connectTimeout <= 600 else { throw ValidationError("--connect-timeout must be more than 0 and at most 600 seconds.") }
        guard timeout > 0 && timeout <= 3600 else { throw ValidationError("--timeout must be more than 0 and at most 3600 seconds.") }
        if let keep, !(1...10_000).contains(keep) { throw ValidationError("--keep must be between 1 and 10000.") }
        guard (0...20).contains(retries) else { throw ValidationError("--retries must be between 0 and 20.") }
        if history && !Self.onPath("git") {
            throw ValidationError("--history needs git, which is not on the PATH: install it (apt-get install git, brew install git).")
        }
        if let historyAuthor {
            guard history else { throw ValidationError("--history-author goes with --history.") }
            guard HistoryRepository.Author(parsing: historyAuthor) != nil else {
                throw ValidationError("--history-author must read like \"Your Name <you@example.com>\".")
            }
        }
        if restore && markdownInto == nil { throw ValidationError("--restore goes with --markdown-into.") }
        if let publish {
            _ = try PublishOptions.target(publish, option: "--publish")
        } else if publishing.force || publishing.maxDeletes != Publishing.defaultMaxDeletes {
            throw ValidationError("--max-deletes and --force go with --publish.")
        }
        _ = try openLibraryOptions()
        if let markdownInto {
            let vault = URL(fileURLWithPath: markdownInto).standardizedFileURL.resolvingSymlinksInPath().path + "/"
            let out = URL(fileURLWithPath: output).standardizedFileURL.resolvingSymlinksInPath().path + "/"
            if vault.hasPrefix(out) || out.hasPrefix(vault + Vault.folderName + "/") {
                throw ValidationError("--markdown-into must be outside the output folder (each run replaces the output), and the output outside its Reader/ folder.")
            }
        }
        guard let serverText = server ?? environment("READER_SERVER") else {
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
        if passwordFile != nil && passwordStdin {
            throw ValidationError("Use one of --password-file and --password-stdin, not both.")
        }
        // Which credentials will be used is decided here, so that a missing one is a usage error;
        // the secrets themselves are read in run().
        if apiKey ?? environment("READER_API_KEY") != nil {
            guard userID ?? environment("READER_USER_ID").flatMap({ Int($0) }) != nil else {
                throw ValidationError("An api key needs --user-id (or READER_USER_ID).")
            }
        } else {
            guard email ?? environment("READER_EMAIL") != nil else {
                throw ValidationError("Give --email with a password (READER_PASSWORD, --password-file or --password-stdin), or an api key (READER_API_KEY) with --user-id.")
            }
            guard passwordFile != nil || passwordStdin || environment("READER_PASSWORD") != nil else {
                throw ValidationError("No password: set READER_PASSWORD, or use --password-file FILE or --password-stdin.")
            }
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
            guard let url = URL(string: text.hasSuffix("/") ? String(text.dropLast()) : text), let scheme = url.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", url.host?.isEmpty == false, url.user == nil, url.query == nil else {
                throw ValidationError("\(option) must be an http or https URL, like https://openlibrary.org.")
            }
            return url
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

    /// Whether an executable of that name is on the PATH, found without starting anything.
    static func onPath(_ name: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
    }

    func environment(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }

    func credentials(logger: Logger) throws -> ReaderCredentials {
        let key = apiKey ?? environment("READER_API_KEY")
        let user = userID ?? environment("READER_USER_ID").flatMap { Int($0) }
        let mail = email ?? environment("READER_EMAIL")
        if let key {
            guard let user else {
                throw ValidationError("An api key needs --user-id (or READER_USER_ID).")
            }
            if apiKey != nil {
                logger.warning("--api-key shows in the process list; prefer READER_API_KEY.")
            }
            return .apiKey(userID: user, apiKey: key)
        }
        guard let mail else {
            throw ValidationError("Give --email with a password (READER_PASSWORD, --password-file or --password-stdin), or an api key (READER_API_KEY) with --user-id.")
        }
        if let passwordFile {
            return .password(email: mail, password: try readPasswordFile(passwordFile))
        }
        if passwordStdin {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            return .password(email: mail, password: Self.firstLine(String(decoding: data, as: UTF8.self)))
        }
        if let password = ProcessInfo.processInfo.environment["READER_PASSWORD"], !password.isEmpty {
            return .password(email: mail, password: password)
        }
        throw ValidationError("No password: set READER_PASSWORD, or use --password-file FILE or --password-stdin.")
    }

    func readPasswordFile(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("Cannot read the password file \(path).")
        }
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
           let permissions = attributes[.posixPermissions] as? Int, permissions & 0o077 != 0 {
            throw ValidationError("The password file \(path) can be read by others; run: chmod 600 \(path)")
        }
        return Self.firstLine(String(decoding: data, as: UTF8.self))
    }

    /// A password file or pipe usually ends with a newline that is not part of the password.
    static func firstLine(_ text: String) -> String {
        String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
    }

    func run() async throws {
        let live = snapshot.makeLiveProgress()
        let logger = snapshot.makeLogger(live: live)
        Interruption.install(logger: logger, live: live)
        live?.start()
        defer { live?.stop() }
        let credentials = try credentials(logger: logger)
        var formats = try snapshot.formats()
        if markdownInto != nil { formats.insert(.markdown) }
        let outputURL = URL(fileURLWithPath: output ?? "")
        do {
            // Before the server is asked for anything: a folder the run cannot write in, named with why.
            try WritableFolders.check(output: outputURL, keep: keep != nil, state: cacheDir.map { URL(fileURLWithPath: $0) },
                                      markdown: markdownInto.map { Vault(into: URL(fileURLWithPath: $0)).root })
            let address = try ServerAddress(server ?? environment("READER_SERVER") ?? "")
            if address.scheme == "http" && !address.isLoopback {
                logger.warning("\(address) is plain http: the password and api key would cross the network unencrypted (--require-https refuses this).")
            }
            var options = Exporter.Options(server: address, credentials: credentials, output: outputURL,
                                           templates: try await snapshot.loadTemplates(), formats: formats,
                                           concurrency: concurrency, timeout: .milliseconds(Int(timeout * 1000)))
            options.connectTimeout = .milliseconds(Int(connectTimeout * 1000))
            options.retry = RetryPolicy(retries: retries)
            options.cacheDirectory = cacheDir.map { URL(fileURLWithPath: $0) }
            options.keep = keep
            options.concurrencyMode = fixedConcurrency ? .fixed : .adaptive
            options.reuseUnchanged = !full
            options.siteURL = try snapshot.site()
            options.shareCards = !snapshot.noShareCards
            options.title = snapshot.title
            options.privacy = Privacy(excludedShelves: excludeShelf, notes: !noNotes, covers: !noCovers)
            options.limits.jsonBytes = maxResponseMb << 20
            options.limits.coverBytes = maxCoverMb << 20
            options.noteLimit = maxNoteKb << 10
            if history {
                options.historyAuthor = historyAuthor.flatMap(HistoryRepository.Author.init(parsing:)) ?? .tool
            }
            options.vault = markdownInto.map { Vault(into: URL(fileURLWithPath: $0), restore: restore) }
            options.thumbnails = !noThumbnails
            options.openLibrary = try openLibraryOptions()
            if options.openLibrary != nil, !options.privacy.covers {
                logger.info("--no-covers: Open Library is asked for the books' fields, not for covers")
            }
            let outcome = try await Exporter(options: options, logger: logger, live: live).run()
            // A snapshot published with gaps ends with its own exit code; a complete one returns.
            let code = report(outcome, output: keep == nil ? outputURL : outputURL.appendingPathComponent("latest"), formats: formats, logger: logger)
            if let vault = outcome.vault, let folder = options.vault { reportVault(vault, in: folder, logger: logger) }
            if let publish {
                try await publishSnapshot(outcome, at: outputURL, to: try PublishOptions.target(publish, option: "--publish"), logger: logger)
            }
            if !code.isSuccess { throw code }
        } catch let code as ExitCode {
            throw code
        } catch {
            throw failureExit(for: error, logger: logger)
        }
    }
}

extension Export {
    /// `--publish`: the snapshot goes up when the export published something new, or when the
    /// last publish to that remote was cut short; a night that changed nothing sends nothing.
    func publishSnapshot(_ outcome: Exporter.Outcome, at output: URL, to target: RemoteTarget, logger: Logger) async throws {
        let state = cacheDir.map { URL(fileURLWithPath: $0) }
        if outcome.unchanged && Publishing.lastPublishFinished(folder: output, target: target, stateFolder: state) {
            logger.info("Publish: nothing new since the last publish to \(target)")
            return
        }
        var options = Publishing.Options(folder: output, target: target)
        options.maxDeletes = publishing.maxDeletes
        options.force = publishing.force
        options.stateFolder = state
        let published = try await Publishing(options: options, logger: logger).run()
        reportPublish(published, to: target, dryRun: false, logger: logger)
    }
}
