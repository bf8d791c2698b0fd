import ArgumentParser
import Export
import Foundation
import Site
import SnapshotStore
import Support

struct Render: AsyncParsableCommand, CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a snapshot again from its library.json, with no server (to restyle or restore).",
        // Written out: --from and --output are checked by check(), not declared required (see CommandLineChecks).
        usage: "reader-snapshot render --from <dir-or-file> --output <dir> [<options>]",
        discussion: "The covers are taken from the covers/ folder beside library.json.\n\n\(ExitCodes.helpText(for: .render))"
    )

    @Option(name: .long, help: ArgumentHelp("An earlier snapshot: its folder (with --keep, the folder of dated snapshots, whose latest is read), or its library.json.", valueName: "dir-or-file"))
    var from: String?

    @Option(name: .long, help: ArgumentHelp("The folder to write the snapshot to.", valueName: "dir"))
    var output: String?

    @OptionGroup var site: SiteArguments

    @OptionGroup(title: "What a copy for friends leaves out") var privacy: PrivacyArguments

    @OptionGroup var console: ConsoleArguments

    func check() throws {
        try console.check()
        try site.check()
        let from = try CommandLineChecks.required(from, "--from <dir-or-file>", "the snapshot to render again, or its library.json")
        let output = try CommandLineChecks.required(output, "--output <dir>", "the folder to write the snapshot to")
        let source = try Self.archive(from).deletingLastPathComponent().resolvingSymlinksInPath().path + "/"
        // Publishing replaces the output whole: it must not be the snapshot being read, nor hold it
        // (the folder of dated snapshots whose latest is read).
        if source.hasPrefix(URL(fileURLWithPath: output).standardizedFileURL.resolvingSymlinksInPath().path + "/") {
            throw ValidationError("--output must be another folder than the snapshot --from reads, and not one that holds it: the output is replaced.")
        }
    }

    /// The library.json `--from` names: the file, or the one in the snapshot folder it names
    /// (`latest/library.json` in a folder of dated snapshots). What makes it unreadable is said
    /// here in words, before the reader would say it in Foundation's ("error 256").
    static func archive(_ from: String) throws -> URL {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        guard manager.fileExists(atPath: from, isDirectory: &isFolder) else {
            throw ValidationError("--from \(from): no such file or folder.")
        }
        var file = URL(fileURLWithPath: from)
        if isFolder.boolValue {
            let candidates = ["library.json", "latest/library.json"].map { file.appendingPathComponent($0) }
            guard let found = candidates.first(where: { manager.fileExists(atPath: $0.path) }) else {
                throw ValidationError("--from \(from): the folder holds no library.json (nor latest/library.json, as --keep lays it out); give a snapshot's folder or its library.json.")
            }
            file = found
        }
        var info = stat()
        guard stat(file.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw ValidationError("--from \(file.path) is not a file (a folder, a device or a broken link): give a snapshot's folder or its library.json.")
        }
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ValidationError("--from \(file.path) cannot be read: \(String(cString: strerror(errno))).")
        }
        defer { close(descriptor) }
        // The first byte that is not white space says whether it can be JSON at all: what is
        // wrong further in is told by the reader, with the place in the file.
        var head = [UInt8](repeating: 0, count: 512)
        let count = read(descriptor, &head, head.count)
        guard count >= 0 else {
            throw ValidationError("--from \(file.path) cannot be read: \(String(cString: strerror(errno))).")
        }
        switch head[..<count].first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
        case UInt8(ascii: "{"): return file
        case nil: throw ValidationError("--from \(file.path) is empty: not a library.json.")
        case UInt8(ascii: "["): throw ValidationError("--from \(file.path) is JSON, but a list, not a library.json (an object, {…}).")
        default: throw ValidationError("--from \(file.path) is not JSON, so not a library.json.")
        }
    }

    func run() async throws {
        let live = console.makeLiveProgress()
        let logger = console.makeLogger(live: live)
        let formats = try site.formats()
        Interruption.install(logger: logger, live: live)
        live?.start()
        defer { live?.stop() }
        let outputURL = URL(fileURLWithPath: output ?? "")
        let archive = try Self.archive(from ?? "")
        do {
            try WritableFolders.check(output: outputURL)
            let site = self.site
            let library = try await Exporter.render(from: archive, to: outputURL, site: { place, language in
                try await site.resolve(logger: logger, place: place, otherwise: language)
            }, privacy: privacy.resolve(), logger: logger, live: live)
            logger.info("Rendered \(library.count) books from \(archive.path)")
            if formats.contains(.html) { logger.info("Open \(outputURL.appendingPathComponent("index.html").path)") }
        } catch let error as ValidationError {
            // An option that could only be checked once the snapshot was read (a share password): a usage error.
            throw error
        } catch {
            throw failureExit(for: error, logger: logger)
        }
    }
}

struct CopyTemplates: ParsableCommand, CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy-templates",
        abstract: "Copy the bundled templates into a folder, to restyle them and pass it to --templates.",
        // Written out: <dir> is checked by check(), not declared required (see CommandLineChecks).
        usage: "reader-snapshot copy-templates <dir>",
        discussion: ExitCodes.helpText(for: .copyTemplates)
    )

    @Argument(help: ArgumentHelp("Where to put the copy (must not exist yet).", valueName: "dir"))
    var destination: String?

    func check() throws {
        let destination = try CommandLineChecks.required(destination, "<dir>", "where to put the copy")
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw ValidationError("\(destination) already exists; choose a new folder.")
        }
    }

    func run() throws {
        let destination = destination ?? ""
        guard let source = TemplateSet.bundledDirectory else {
            // As export and render say it, with their exit code, which alone tells when standard
            // error cannot take it.
            try? FileHandle.standardError.write(contentsOf: Data("error: \(SnapshotError(.templatesMissing, path: "the bundled templates"))\n".utf8))
            throw ExitCode(ExitCodes.templatesBroken)
        }
        let target = URL(fileURLWithPath: destination)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        for folder in ["html", "markdown", "assets", "strings"] {
            try FileManager.default.copyItem(at: source.appendingPathComponent(folder), to: target.appendingPathComponent(folder))
        }
        print("Copied the templates to \(destination). Edit them, then: reader-snapshot export … --templates \(destination)")
        print("Their words in each language are in \(destination)/strings/; add a language by adding a file there (docs/templates.md).")
    }
}
