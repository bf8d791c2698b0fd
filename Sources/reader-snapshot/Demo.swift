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

    @OptionGroup var server: SampleServerArguments

    func check() throws { try server.check() }

    func run() async throws {
        try await server.serve(try server.sampleLibrary())
    }
}
