import ArgumentParser
import Crawl
import Export
import Foundation
import LibraryArchive
import Notes
import ReaderAPI
import Site
import SnapshotStore
import Support

struct Render: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a snapshot again from its library.json, with no server (to restyle or restore).",
        discussion: "The covers are taken from the covers/ folder beside library.json.\n\n\(ExitCodes.helpText)"
    )

    @Option(name: .long, help: ArgumentHelp("The library.json of an earlier snapshot.", valueName: "file"))
    var from: String

    @Option(name: .long, help: ArgumentHelp("The folder to write the snapshot to.", valueName: "dir"))
    var output: String

    @OptionGroup var snapshot: SnapshotOptions

    func validate() throws {
        guard FileManager.default.fileExists(atPath: from) else {
            throw ValidationError("No such file: \(from)")
        }
        let source = URL(fileURLWithPath: from).deletingLastPathComponent().standardizedFileURL
        if source == URL(fileURLWithPath: output).standardizedFileURL {
            throw ValidationError("--output must be another folder than the one library.json is in.")
        }
    }

    func run() async throws {
        let logger = snapshot.makeLogger()
        let formats = try snapshot.formats()
        let outputURL = URL(fileURLWithPath: output)
        do {
            let catalog = try await Exporter.render(from: URL(fileURLWithPath: from), to: outputURL,
                                              templates: try await snapshot.loadTemplates(), formats: formats,
                                              siteURL: try snapshot.site(), logger: logger)
            logger.info("Rendered \(catalog.count) books from \(from)")
            if formats.contains(.html) { logger.info("Open \(outputURL.appendingPathComponent("index.html").path)") }
        } catch {
            throw failureExit(for: error, logger: logger)
        }
    }
}

struct CopyTemplates: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy-templates",
        abstract: "Copy the bundled templates into a folder, to restyle them and pass it to --templates."
    )

    @Argument(help: ArgumentHelp("Where to put the copy (must not exist yet).", valueName: "dir"))
    var destination: String

    func run() throws {
        guard let source = TemplateSet.bundledDirectory else {
            throw ValidationError("The bundled templates are missing from this build.")
        }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw ValidationError("\(destination) already exists; choose a new folder.")
        }
        let target = URL(fileURLWithPath: destination)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        for folder in ["html", "markdown", "assets"] {
            try FileManager.default.copyItem(at: source.appendingPathComponent(folder), to: target.appendingPathComponent(folder))
        }
        print("Copied the templates to \(destination). Edit them, then: reader-snapshot export … --templates \(destination)")
    }
}
