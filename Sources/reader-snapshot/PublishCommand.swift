import ArgumentParser
import Foundation
import Logging
import Publish
import SnapshotStore
import Site
import Support

/// The options `publish` and `export --publish` share.
struct PublishOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The most files one publish deletes on the host; past that, nothing is sent and the run ends with code 65 (a wrong remote path must not empty a site).", valueName: "n"))
    var maxDeletes: Int = Publishing.defaultMaxDeletes

    @Flag(name: .long, help: "Delete on the host however many files the snapshot no longer has, past --max-deletes.")
    var force = false

    @Flag(name: .long, help: "List every file on the host and compare it with the snapshot. Without it, a publish after one that finished and listed the host less than 7 days ago compares with that publish's record (files changed on the host by hand are set right at the next listing).")
    var checkHost = false

    func check() throws {
        guard (0...10_000_000).contains(maxDeletes) else { throw ValidationError("--max-deletes must be between 0 and 10000000.") }
    }

    /// The remote given as `NAME:PATH`, checked.
    static func target(_ text: String, option: String) throws -> RemoteTarget {
        guard let target = RemoteTarget(text) else {
            throw ValidationError("""
                \(option) takes an rclone remote and a path, like mys3:my-bucket/books or dav:public/books \
                (not '\(UntrustedText.displayable(text))'): the remote's name as 'rclone listremotes' shows it, a colon, \
                and the folder on it; or a folder of this machine by its absolute path, like /var/www/books.
                """)
        }
        return target
    }
}

struct PublishCommand: AsyncParsableCommand, CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Upload a snapshot to a static host through rclone: only what changed, in an order that never shows a broken link.",
        usage: "reader-snapshot publish <dir> <remote:path> [<options>]",
        discussion: """
        The remote is one of rclone's (S3 and S3-compatible stores, WebDAV, SFTP, FTP, Backblaze \
        B2, Google Cloud Storage, Azure, …), set up with 'rclone config' or RCLONE_CONFIG_NAME_* \
        variables: reader-snapshot never asks for, keeps or prints the host's credentials. See \
        docs/publishing.md. A folder of this machine (a web server's, a USB stick's) is given by its \
        absolute path, like /var/www/books: it must exist, apart from the snapshot.

        Files are compared by size and MD5 (where the host keeps one) and only those that differ \
        go up: covers, thumbnails and assets first, then book pages, then shelf, author and year \
        pages, then the index, lists, feeds, the search index and library.json; deletions last. \
        Content-Type and Cache-Control are set per file. Only visitor files are published: \
        never the private state, .git or any hidden file. With --keep, latest is published.

        \(ExitCodes.helpText(for: .publish))
        """
    )

    @Argument(help: ArgumentHelp("The snapshot folder (export's --output; with --keep, the folder of dated snapshots).", valueName: "dir"))
    var folder: String

    @Argument(help: ArgumentHelp("The rclone remote and the path on it, like mys3:my-bucket/books, or a folder's absolute path.", valueName: "remote:path"))
    var remote: String

    @OptionGroup var publishing: PublishOptions

    @Flag(name: .long, help: "Print what would be uploaded and deleted, and send nothing.")
    var dryRun = false

    @Option(name: .long, help: ArgumentHelp("The private state export was given with --cache-dir: the record of what was published is kept there.", valueName: "dir"))
    var cacheDir: String?

    @Flag(name: .shortAndLong, help: "Print only warnings and errors.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Print more detail: with --dry-run, every file.")
    var verbose = false

    func check() throws {
        try publishing.check()
        _ = try PublishOptions.target(remote, option: "<remote:path>")
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be used together.") }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw ValidationError("\(folder): no such folder: give the snapshot folder export wrote (its --output).")
        }
    }

    func run() async throws {
        let level: Logger.Level = quiet ? .warning : (verbose ? .debug : .info)
        let logger = Logger(label: "reader-snapshot") { _ in ConsoleLogHandler(level: level, live: nil) }
        Interruption.install(logger: logger, live: nil, saying: "interrupted; nothing was deleted on the host, and the next publish goes on from where this one stopped")
        let place = SnapshotPlace.existing(URL(fileURLWithPath: folder), cacheDirectory: cacheDir.map { URL(fileURLWithPath: $0) })
        var options = Publishing.Options(place: place, target: try PublishOptions.target(remote, option: "<remote:path>"), formats: OutputFormat.files)
        options.maxDeletes = publishing.maxDeletes
        options.force = publishing.force
        options.checkHost = publishing.checkHost
        options.dryRun = dryRun
        do {
            let publishing = Publishing(options: options, logger: logger)
            let outcome = try await publishing.run()
            reportPublish(outcome, to: options.target, dryRun: dryRun, logger: logger)
            // The plan is shown; a publish of it would be refused, and the exit code says so.
            if dryRun, let refusal = publishing.refusal(of: outcome) { throw refusal }
        } catch {
            throw failureExit(for: error, logger: logger)
        }
    }
}

/// The summary of a publish: "Published: N uploaded, M deleted, K unchanged, X MB", or the plan
/// of a dry run.
func reportPublish(_ outcome: Publishing.Outcome, to target: RemoteTarget, dryRun: Bool, logger: Logger) {
    let plan = outcome.plan
    guard dryRun else {
        logger.info("Published: \(outcome.uploaded) uploaded, \(outcome.deleted) deleted, \(outcome.unchanged) unchanged, \(formatBytes(outcome.bytes)) to \(target)")
        return
    }
    for wave in Wave.allCases {
        let files = plan.batches.filter { $0.wave == wave }.flatMap(\.files)
        guard !files.isEmpty else { continue }
        logger.info("Would upload \(counted(files.count, "file", "files")): \(wave.words) (\(formatBytes(files.reduce(0) { $0 + $1.file.size })))")
        for file in files { logger.debug("  upload \(file.file.path)") }
    }
    if !plan.deletions.isEmpty {
        logger.info("Would delete \(counted(plan.deletions.count, "file", "files")), last:")
        let shown = plan.deletions.prefix(logger.logLevel <= .debug ? plan.deletions.count : 10)
        for path in shown { logger.info("  delete \(path)") }
        if shown.count < plan.deletions.count { logger.info("  … and \(plan.deletions.count - shown.count) more (--verbose lists them all)") }
    }
    logger.info("Dry run: \(outcome.uploaded) to upload, \(outcome.deleted) to delete, \(outcome.unchanged) unchanged, \(formatBytes(outcome.bytes)) to \(target); nothing was sent")
}
