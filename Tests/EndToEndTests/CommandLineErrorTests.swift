import Foundation
import TestSupport
import Testing
@testable import LibraryArchive

/// What the tool says of a mistake on its command line, as a user meets it: the mistake named,
/// the command's own usage line, and the exit code.
@Suite(.serialized)
struct CommandLineErrorTests {
    static func usage(_ command: String) -> String { "Usage: reader-snapshot \(command)" }

    /// The message and the usage line of a usage error, checked with its exit code.
    static func expectUsageError(_ run: ToolRun, _ message: String, usage command: String,
                                 sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 64, "\(run.output)", sourceLocation: sourceLocation)
        #expect(run.stderr.hasPrefix("error: \(message)"), "\(run.output)", sourceLocation: sourceLocation)
        #expect(run.stderr.contains("\n\(usage(command))"), "\(run.output)", sourceLocation: sourceLocation)
        #expect(run.stderr.contains("See 'reader-snapshot \(command.split(separator: " ")[0]) --help'"), "\(run.output)",
                sourceLocation: sourceLocation)
    }

    @Test func aMisspeltOptionIsToldBeforeTheValueItFailedToGive() async throws {
        let exportUsage = "export [<options>] --output <dir>"
        // Each line would have passed but for the misspelt option, whose value is then missing.
        for (wrong, right, arguments) in [
            ("--sever", "--server", ["--sever", "http://127.0.0.1:9", "--output", "/tmp/x", "--email", "a@b.c"]),
            ("--ouput", "--output", ["--server", "http://127.0.0.1:9", "--ouput", "/tmp/x", "--email", "a@b.c"]),
            ("--emial", "--email", ["--server", "http://127.0.0.1:9", "--output", "/tmp/x", "--emial", "a@b.c"]),
        ] {
            let run = try await ToolRunner.run(["export"] + arguments, environment: ["READER_PASSWORD": "p"])
            Self.expectUsageError(run, "Unknown option '\(wrong)'. Did you mean '\(right)'?", usage: exportUsage)
        }
        let password = try await ToolRunner.run(["export", "--server", "http://127.0.0.1:9", "--output", "/tmp/x",
                                                 "--email", "a@b.c", "--password", "hunter2"])
        Self.expectUsageError(password, "The password is never taken as an option", usage: exportUsage)
        for way in ["READER_PASSWORD", "--password-file FILE", "--password-stdin"] {
            #expect(password.stderr.contains(way), "\(password.output)")
        }
        #expect(!password.output.contains("hunter2"))
        // Without a value too: it is not asked for.
        let bare = try await ToolRunner.run(["export", "--password"])
        Self.expectUsageError(bare, "The password is never taken as an option", usage: exportUsage)
        // A missing --output is still told, once nothing else is wrong.
        let missing = try await ToolRunner.run(["export", "--server", "http://127.0.0.1:9", "--email", "a@b.c"])
        Self.expectUsageError(missing, "Missing expected argument '--output <dir>'", usage: exportUsage)
    }

    /// The second week's mistakes: a command mistyped, a negative number, an empty password file,
    /// a folder that is not there. Each told in the tool's words ("error:"), with what to do.
    @Test func aMistypedCommandANegativeNumberAndAnEmptyPasswordAreToldAsSuch() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let typo = try await ToolRunner.run(["exprot", "--server", "http://127.0.0.1:9"])
        #expect(typo.status == 64, "\(typo.output)")
        #expect(typo.stderr.hasPrefix("error: Unknown command 'exprot'. Did you mean 'export'?"), "\(typo.output)")
        let arguments = ["export", "--server", "http://127.0.0.1:9", "--output", folder.path("out").path, "--email", "a@b.c"]
        let negative = try await ToolRunner.run(arguments + ["--timeout", "-1"], environment: ["READER_PASSWORD": "p"])
        Self.expectUsageError(negative, "--timeout must be more than 0", usage: "export [<options>] --output <dir>")
        let empty = folder.path("password")
        try Data().write(to: empty)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: empty.path)
        let noPassword = try await ToolRunner.run(arguments + ["--password-file", empty.path])
        Self.expectUsageError(noPassword, "The password file \(empty.path) is empty", usage: "export [<options>] --output <dir>")
        let unknown = try await ToolRunner.run(["export", "--sever", "x"])
        #expect(unknown.stderr.hasPrefix("error: Unknown option '--sever'"), "\(unknown.output)")
        #expect(!unknown.output.contains("Error:"), "\(unknown.output)")
        let history = try await ToolRunner.run(["history", "/nonexistent-folder"])
        Self.expectUsageError(history, "/nonexistent-folder: no such folder", usage: "history <dir>")
        #if os(Linux)
        // A folder that takes no new folders is named as such, before the server is asked.
        let proc = try await ToolRunner.run(["export", "--server", "http://127.0.0.1:9", "--output", "/proc/rs", "--email", "a@b.c"],
                                            environment: ["READER_PASSWORD": "p"])
        #expect(proc.status == 73 && proc.stderr.contains("/proc is not writable") && proc.stderr.contains("no folder can be made in it"),
                "\(proc.output)")
        #endif
    }

    @Test func renderTakesTheSnapshotFolderAndSaysWhyAFileCannotBeRead() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let renderUsage = "render --from <dir-or-file> --output <dir> [<options>]"
        let snapshot = folder.path("snapshot")
        try FileManager.default.createDirectory(at: snapshot, withIntermediateDirectories: true)
        try SmallLibrary.hostile().jsonData().write(to: snapshot.appendingPathComponent("library.json"))
        // The snapshot's folder, and a folder of dated snapshots (--keep), whose latest is read.
        let fromFolder = try await ToolRunner.run(["render", "--from", snapshot.path, "--output", folder.path("a").path, "-q"])
        #expect(fromFolder.status == 0, "\(fromFolder.output)")
        #expect(FileManager.default.fileExists(atPath: folder.path("a/index.html").path))
        let dated = folder.path("dated")
        try FileManager.default.createDirectory(at: dated.appendingPathComponent("snapshots"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: snapshot, to: dated.appendingPathComponent("snapshots/2026-01-02"))
        try FileManager.default.createSymbolicLink(atPath: dated.appendingPathComponent("latest").path, withDestinationPath: "snapshots/2026-01-02")
        let fromDated = try await ToolRunner.run(["render", "--from", dated.path, "--output", folder.path("b").path, "-q"])
        #expect(fromDated.status == 0, "\(fromDated.output)")
        #expect(FileManager.default.fileExists(atPath: folder.path("b/index.html").path))
        // The output may not be the folder that holds the snapshot read: it would be replaced.
        let over = try await ToolRunner.run(["render", "--from", dated.path, "--output", dated.path])
        Self.expectUsageError(over, "--output must be another folder than the snapshot --from reads", usage: renderUsage)

        let empty = folder.path("empty")
        try FileManager.default.createDirectory(at: empty.appendingPathComponent("library.json"), withIntermediateDirectories: true)
        let newer = try { () throws -> Data in
            var library = SmallLibrary.hostile()
            library.schemaVersion = Library.currentSchemaVersion + 1
            return try library.jsonData()
        }()
        for (name, contents) in [("page.html", Data("<!DOCTYPE html>".utf8)), ("list.json", Data("[1, 2]".utf8)),
                                 ("nothing.json", Data("  \n".utf8)), ("newer.json", newer)] {
            try contents.write(to: folder.path(name))
        }
        for (from, message) in [
            (folder.path("missing").path, "--from \(folder.path("missing").path): no such file or folder."),
            (folder.url.path, "--from \(folder.url.path): the folder holds no library.json (nor latest/library.json"),
            (empty.path, "--from \(empty.path)/library.json is not a file"),
            (folder.path("page.html").path, "--from \(folder.path("page.html").path) is not JSON, so not a library.json."),
            (folder.path("list.json").path, "--from \(folder.path("list.json").path) is JSON, but a list, not a library.json"),
            (folder.path("nothing.json").path, "--from \(folder.path("nothing.json").path) is empty"),
        ] {
            let run = try await ToolRunner.run(["render", "--from", from, "--output", folder.path("c").path])
            Self.expectUsageError(run, message, usage: renderUsage)
            #expect(!run.output.contains("NSCocoaErrorDomain"), "\(run.output)")
        }
        // A file newer than this tool is found reading it, after the checks of the command line.
        let tooNew = try await ToolRunner.run(["render", "--from", folder.path("newer.json").path, "--output", folder.path("c").path])
        #expect(tooNew.status == 64, "\(tooNew.output)")
        #expect(tooNew.stderr.contains("written by a newer reader-snapshot (schema_version \(Library.currentSchemaVersion + 1); "
                                       + "this one reads \(Library.currentSchemaVersion) and older)"), "\(tooNew.output)")
    }

    /// For root, whom permissions do not stop: a folder of the kernel's, where nothing can be
    /// made; nil when even that lets a folder be made.
    static let kernelFolder: URL? = {
        let folder = URL(fileURLWithPath: "/sys/fs")
        let probe = folder.appendingPathComponent("reader-snapshot-probe")
        guard mkdir(probe.path, 0o700) != 0 else {
            rmdir(probe.path)
            return nil
        }
        return folder
    }()

    static var canMakeAnUnwritableFolder: Bool { geteuid() != 0 || kernelFolder != nil }

    @Test(.enabled(if: canMakeAnUnwritableFolder, "root, and no folder that refuses root"))
    func anUnwritableFolderIsNamedWithWhyItMustBeWritable() async throws {
        let folder = try TemporaryFolder()
        let locked = folder.path("locked")
        defer {
            chmod(locked.path, 0o755)
            folder.remove()
        }
        let parent: URL
        if geteuid() == 0 {
            parent = try #require(Self.kernelFolder)
        } else {
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
            chmod(locked.path, 0o555)
            parent = locked
        }
        let run = try await ToolRunner.run(["export", "--server", "http://127.0.0.1:9", "--email", "a@b.c",
                                            "--output", parent.appendingPathComponent("library").path],
                                           environment: ["READER_PASSWORD": "p"])
        #expect(run.status == 73, "\(run.output)")
        #expect(run.stderr.contains("error: cannot write the snapshot: \(parent.path) is not writable (the new snapshot is built "
                                    + "beside the output, in \(parent.path), and swapped into place; the private state is kept there too): "), "\(run.output)")
        // Told before the server is asked for anything.
        #expect(!run.stderr.contains("Logging in") && !run.stderr.contains("127.0.0.1:9"), "\(run.output)")
        // An output whose folders are still to be made: the folder they are to be made in is named.
        let deeper = try await ToolRunner.run(["demo", "--output", parent.appendingPathComponent("a/b/demo").path, "-q"])
        #expect(deeper.status == 73, "\(deeper.output)")
        #expect(deeper.stderr.contains("error: cannot write the snapshot: \(parent.path) is not writable (the missing folders "
                                       + "down to \(parent.path)/a/b are made in it): "), "\(deeper.output)")
    }

    @Test func eachCommandPrintsItsOwnUsageLine() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cases: [([String], String, String)] = [
            (["export", "--bogus"], "Unknown option '--bogus'", "export [<options>] --output <dir>"),
            (["render"], "Missing expected argument '--from <dir-or-file>'", "render --from <dir-or-file> --output <dir> [<options>]"),
            (["history"], "Missing expected argument '<dir>'", "history <dir> [--book <id>] [--since <YYYY-MM-DD>]"),
            (["history", "--bogus", folder.url.path], "Unknown option '--bogus'", "history <dir>"),
            (["copy-templates"], "Missing expected argument '<dir>'", "copy-templates <dir>"),
            (["copy-templates", folder.url.path], "\(folder.url.path) already exists; choose a new folder.", "copy-templates <dir>"),
            (["demo", "--bogus"], "Unknown option '--bogus'", "demo <options>"),
            (["sample-server", "--bogus"], "Unknown option '--bogus'. Did you mean '--books'?", "sample-server <options>"),
        ]
        for (arguments, message, usage) in cases {
            let run = try await ToolRunner.run(arguments)
            Self.expectUsageError(run, message, usage: usage)
            #expect(!run.stderr.contains("Usage: reader-snapshot <subcommand>"), "\(run.output)")
        }
        // A mistake only run() can see is told with the command's usage line too.
        let passwordFile = folder.path("password")
        try Data("p\n".utf8).write(to: passwordFile)
        chmod(passwordFile.path, 0o644)
        let open = try await ToolRunner.run(["export", "--server", "http://127.0.0.1:9", "--email", "a@b.c",
                                             "--password-file", passwordFile.path, "--output", folder.path("x").path])
        Self.expectUsageError(open, "The password file \(passwordFile.path) can be read by others", usage: "export [<options>] --output <dir>")
    }

    /// The shipped tool holds no test double: the conditions of tests and benchmarks (latency, the
    /// real server's costs, faults, the hostile library) and the benchmarks are in the development
    /// tool alone. Its `sample-server` is the plain one `demo` runs.
    @Test func theShippedToolHoldsNoTestDoubles() async throws {
        let tool = try Data(contentsOf: ToolRunner.executable)
        let development = try Data(contentsOf: ToolRunner.productsDirectory.appendingPathComponent("reader-snapshot-dev"))
        // A module's name is in every symbol of it the binary holds.
        for (binary, name) in [(tool, "reader-snapshot"), (development, "reader-snapshot-dev")] {
            let holds = binary.range(of: Data("SampleServerDoubles".utf8)) != nil
            #expect(holds == (name == "reader-snapshot-dev"), "\(name) holds SampleServerDoubles: \(holds)")
            let hostile = binary.range(of: Data("Hostile <b>shelf</b>".utf8)) != nil
            #expect(hostile == (name == "reader-snapshot-dev"), "\(name) holds the hostile library: \(hostile)")
        }
        let help = try await ToolRunner.run(["sample-server", "--help"])
        #expect(help.status == 0, "\(help.output)")
        #expect(help.stdout.contains("--books") && help.stdout.contains("--openlibrary"), "\(help.stdout)")
        for option in ["--fault-rate", "--realistic", "--latency-ms", "--capacity", "hostile"] {
            #expect(!help.stdout.contains(option), "sample-server --help offers \(option)")
        }
        for command in ["bench-notes", "bench-thumbnails"] {
            let run = try await ToolRunner.run([command])
            #expect(run.status == 64, "\(command): \(run.output)")
        }
    }

    /// The help says where the history is: beside the folder, never in it.
    @Test func theHelpNamesTheHistoryBesideTheFolder() async throws {
        let help = try await ToolRunner.run(["history", "--help"])
        #expect(help.status == 0, "\(help.output)")
        let text = help.stdout.replacingOccurrences(of: "\n", with: " ")
        #expect(text.contains("PARENT/.NAME.history.git for the folder PARENT/NAME"), "\(help.stdout)")
        #expect(text.contains("git --git-dir PARENT/.NAME.history.git --work-tree PARENT/NAME log -p"), "\(help.stdout)")
        #expect(!text.contains("DIR/.git") && !text.contains("DIR/history.git"), "\(help.stdout)")
        #expect(text.contains("66  history --book: no night of the timeline or history has the book"), "\(help.stdout)")
    }

    @Test func eachHelpListsOnlyTheExitCodesItsCommandCanReturn() async throws {
        let expected: [String: [Int]] = [
            "export": [0, 1, 2, 64, 65, 68, 69, 73, 74, 77, 78, 130, 143],
            "publish": [0, 1, 64, 65, 68, 74, 130, 143],
            "render": [0, 1, 64, 73, 78, 130, 143],
            "demo": [0, 1, 64, 73, 78, 130, 143],
            "history": [0, 1, 64, 66],
            "sample-server": [0, 1, 64],
            "copy-templates": [0, 1, 64, 78],
        ]
        for (command, codes) in expected {
            let help = try await ToolRunner.run([command, "--help"])
            #expect(help.status == 0, "\(help.output)")
            // The lines under "Exit codes:", each "  CODE  meaning", up to the blank line.
            let lines = help.stdout.components(separatedBy: "\n")
            let start = try #require(lines.firstIndex(of: "Exit codes:"), "\(command): \(help.stdout)")
            let listed = lines[(start + 1)...].prefix { !$0.isEmpty }
                .compactMap { $0.split(separator: " ").first.flatMap { Int($0) } }
            #expect(listed == codes, "\(command) --help lists \(listed)")
            // A long meaning wraps under itself, not at column 0 in the middle of the list.
            let list = lines[(start + 1)...].prefix { !$0.isEmpty }
            #expect(list.allSatisfy { $0.hasPrefix("  ") }, "\(command): \(list)")
            // The manual page indents the list by 5 and fills to 80: a longer row would wrap at its margin there.
            #expect(list.allSatisfy { $0.count <= 72 }, "\(command): \(list.filter { $0.count > 72 })")
        }
        let top = try await ToolRunner.run(["--help"])
        #expect(top.stdout.contains("Exit codes (each command's --help lists its own):"), "\(top.output)")
    }
}
