import ArgumentParser
import Export
import Foundation
import Logging
import Publish
import ReaderAPI
import RunMetrics
import Site
import Support

struct Export: AsyncParsableCommand, CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a Reader library to a snapshot folder.",
        // Written out: --output is checked by resolve(), not declared required (see CommandLineChecks).
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

    @OptionGroup var arguments: ExportArguments

    @Option(name: .long, help: ArgumentHelp("Then upload the snapshot to this rclone remote and path (see 'reader-snapshot publish --help'), when the export published something new or the last publish there did not finish.", valueName: "remote:path"))
    var publish: String?

    @OptionGroup var publishing: PublishOptions

    /// `--publish` and the options that go with it; the export's own are checked by `resolve()`.
    func check() throws {
        try publishing.check()
        if let publish {
            _ = try PublishOptions.target(publish, option: "--publish")
        } else if publishing.force || publishing.checkHost || publishing.maxDeletes != Publishing.defaultMaxDeletes {
            throw ValidationError("--max-deletes, --force and --check-host go with --publish.")
        }
    }

    @Option(name: .long, help: ArgumentHelp("Write the run's metrics here when it ends, failed runs too, in Prometheus' text format (a temporary file renamed into place), for node_exporter's textfile collector: name it NAME.prom in its folder.", valueName: "file"))
    var metricsFile: String?

    func run() async throws {
        let live = arguments.console.makeLiveProgress()
        let logger = arguments.console.makeLogger(live: live)
        let network = ClientMetrics()
        let metrics = try metricsFile.map { path in
            let file = MetricsFile(URL(fileURLWithPath: path))
            do { try file.checkFolder() } catch { throw ValidationError("\(error)") }
            return MetricsRecorder(file: file, output: arguments.output ?? "", network: network)
        }
        do {
            try await exportAndPublish(logger: logger, live: live, network: network, metrics: metrics)
            metrics?.finish(exitCode: ExitCodes.complete, logger: logger)
        } catch let code as ExitCode {
            metrics?.finish(exitCode: code.rawValue, logger: logger)
            throw code
        } catch {
            // A usage error found while resolving the options: argument-parser ends the run with 64.
            metrics?.finish(exitCode: error is ValidationError ? ExitCodes.badUsage : 1, logger: logger)
            throw error
        }
    }

    private func exportAndPublish(logger: Logger, live: LiveProgress?, network: ClientMetrics, metrics: MetricsRecorder?) async throws {
        var settings = try await resolving(logger: logger) { try await arguments.resolve(logger: logger) }
        if let publish {
            var options = Publishing.Options(place: settings.place, target: try PublishOptions.target(publish, option: "--publish"),
                                             formats: OutputFormat.files)
            options.maxDeletes = publishing.maxDeletes
            options.force = publishing.force
            options.checkHost = publishing.checkHost
            settings.publish = options
        }
        metrics?.resolved(output: settings.place.root.path)
        Interruption.install(logger: logger, live: live) { code in metrics?.finish(exitCode: code, logger: logger) }
        live?.start()
        defer { live?.stop() }
        logger.debug("reader-snapshot \(ReaderSnapshot.version)")
        do {
            let night = try await Exporter(settings: settings, logger: logger, live: live, network: network).run()
            metrics?.wrote(night)
            // A snapshot written with gaps ends with its own exit code; a complete one returns.
            let code = report(night, formats: settings.site.formats, logger: logger)
            if let vault = night.vault, let folder = settings.vault { reportVault(vault, in: folder, logger: logger) }
            if let published = night.published, let target = settings.publish?.target {
                metrics?.published(published)
                reportPublish(published, to: target, dryRun: false, logger: logger)
            }
            // A step after the swap that failed decides the code: a night with gaps whose upload
            // failed must not end as 2, which the units count as success.
            if let failure = night.failedAfterTheSwap { throw failure }
            if !code.isSuccess { throw code }
        } catch let code as ExitCode {
            throw code
        } catch {
            throw failureExit(for: error, logger: logger)
        }
    }
}
