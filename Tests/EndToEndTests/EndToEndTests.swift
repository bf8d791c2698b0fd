import Foundation
import SampleServer
import SampleServerDoubles
import TestSupport
import Testing
import LibraryArchive
import Site

/// The built tool against the sample server on loopback: what a user runs, read back from disk.
@Suite(.serialized)
struct EndToEndTests {
    /// The bundled library, or `library` (`SampleLibrary.hostile()`), answered at once.
    static func startServer(_ library: SampleLibrary? = nil, listsShelfIDs: Bool = true, port: Int = 0) async throws -> RunningSampleServer {
        var options = SampleServer.Options()
        options.loginDelay = .zero
        options.listsShelfIDs = listsShelfIDs
        // Answered at once; a test may add faults, a hang or held answers.
        options.conditions = ServerDoubles()
        return try await SampleServer(library: try library ?? SampleLibrary.bundled(), options: options).start(port: port)
    }

    /// Words of the sample library's notes that nothing else in it holds: under `--no-notes` none
    /// is in any file, the search index's folded terms included.
    static let noteWords = ["Curiouser", "Ungeziefer", "Bezukhov", "Pirrip", "Casaubon", "Morlocks", "Epistolary", "variorum", "Ishmael", "Fagles"]

    static func export(_ server: RunningSampleServer, to output: URL, extra: [String] = [],
                       environment: [String: String] = [:], removing: [String] = []) async throws -> ToolRun {
        try await ToolRunner.run(["export", "--server", server.url, "--email", SampleLibrary.demoEmail,
                            "--output", output.path, "--connect-timeout", ToolRunner.connectTimeout] + extra,
                           environment: ["READER_PASSWORD": SampleLibrary.demoPassword].merging(environment) { _, new in new },
                           removing: removing)
    }

    @Test func exportWritesEveryBookWithItsNotesCoversAndWorkingLinks() async throws {
        let server = try await Self.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("snapshot")
        let run = try await Self.export(server, to: output)
        let apiKey = server.server.apiKey
        let keyLeaks = server.server.keyLeaks
        await server.stop()

        // The sample library has a book on a deleted shelf and covers that fail: written with gaps.
        #expect(run.status == 2, "\(run.output)")
        #expect(run.stderr.contains("Written with gaps"))
        let site = SiteInspector(root: output)
        let files = site.files()

        // The Markdown's front matter dates the book as its page does, for a vault's queries by date.
        let markdown = try #require(site.text("markdown/books/101-pride-and-prejudice.md"))
        #expect(markdown.contains("\nshelf: \"Currently Reading 📖\"\nadded: 2024-01-03\n"), "\(markdown.prefix(300))")

        // The pages name the version `--version` prints, for a bug report to quote.
        let version = try await ToolRunner.run(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!version.isEmpty)
        #expect(site.text("index.html")?.contains("<meta name=\"generator\" content=\"reader-snapshot \(version)\">") == true)

        // Every book /books lists has an HTML page and a Markdown page.
        let archive = try #require(site.data("library.json"))
        let library = try #require(try JSONSerialization.jsonObject(with: archive) as? [String: Any])
        let books = try #require(library["books"] as? [[String: Any]])
        let sample = try SampleLibrary.bundled()
        #expect(Set(books.compactMap { $0["id"] as? Int }) == Set(sample.books.map(\.id)))
        for book in sample.books {
            #expect(files.contains { $0.hasPrefix("books/\(book.id)-") && $0.hasSuffix(".html") }, "no page for book \(book.id)")
            #expect(files.contains { $0.hasPrefix("markdown/books/\(book.id)-") && $0.hasSuffix(".md") }, "no Markdown for book \(book.id)")
        }
        // The books on a deleted shelf are there, marked incomplete.
        for id in [128, 129] {
            let entry = try #require(books.first { $0["id"] as? Int == id })
            #expect(entry["complete"] as? Bool == false)
        }

        // Every note's words and link targets are in the book's HTML page and its Markdown.
        for book in sample.books where !book.comments.isEmpty && ![128, 129].contains(book.id) {
            let htmlFile = try #require(files.first { $0.hasPrefix("books/\(book.id)-") })
            let markdownFile = try #require(files.first { $0.hasPrefix("markdown/books/\(book.id)-") })
            let page = try #require(site.text(htmlFile))
            let pageText = SiteInspector.visibleText(ofHTML: page)
            let markdown = SiteInspector.unescapedMarkdown(try #require(site.text(markdownFile)))
            let noteText = SiteInspector.visibleText(ofHTML: book.comments)
            for word in SiteInspector.words(noteText) {
                #expect(pageText.contains(word), "book \(book.id): '\(word)' missing from \(htmlFile)")
                #expect(markdown.contains(word), "book \(book.id): '\(word)' missing from \(markdownFile)")
            }
            for target in SiteInspector.matches(of: #"href="([^"]*)""#, in: book.comments).map(SiteInspector.decodeEntities) {
                #expect(page.contains("href=\"\(target.replacingOccurrences(of: "&", with: "&amp;"))\""), "book \(book.id): link \(target) missing from HTML")
                #expect(markdown.contains(target), "book \(book.id): link \(target) missing from Markdown")
            }
        }

        // Every cover file is a real image, stored once per distinct content.
        let covers = files.filter { $0.hasPrefix("covers/") }
        #expect(covers.count >= 15)
        // Named by content: no download left half-way (covers are streamed to a file first).
        #expect(covers.allSatisfy { CoverFile.isWellFormed(path: $0) || CoverFile.isWellFormed(thumbnailPath: $0) }, "\(covers)")
        // Each cover has its four thumbnails beside it.
        let originals = covers.filter { CoverFile.isWellFormed(path: $0) }
        #expect(covers.count == originals.count * (1 + ThumbnailBox.all.count), "\(covers)")
        for cover in covers {
            let bytes = [UInt8](try #require(site.data(cover)).prefix(12))
            let isImage = bytes.starts(with: [0xFF, 0xD8, 0xFF]) || bytes.starts(with: [0x89, 0x50, 0x4E, 0x47])
                || bytes.starts(with: Array("GIF8".utf8)) || (bytes.starts(with: Array("RIFF".utf8)) && bytes.count == 12 && Array(bytes[8...]) == Array("WEBP".utf8))
            #expect(isImage, "\(cover) is not an image")
        }
        // The Iliad's two editions share one scan; Sherlock Holmes is a PNG behind a .jpg name.
        let coverOf = { (id: Int) in books.first { $0["id"] as? Int == id }.flatMap { ($0["cover"] as? [String: Any])?["path"] as? String } }
        #expect(coverOf(122) != nil && coverOf(122) == coverOf(123))
        #expect(coverOf(121)?.hasSuffix(".png") == true)
        #expect(coverOf(125) == nil && coverOf(126) == nil && coverOf(127) == nil)

        // Every relative link in the site and in the Markdown points at a file that exists.
        for file in files where file.hasSuffix(".html") || file.hasSuffix(".md") {
            let text = try #require(site.text(file))
            let links = file.hasSuffix(".html") ? SiteInspector.links(inHTML: text) : SiteInspector.links(inMarkdown: text)
            let base = output.appendingPathComponent(file).deletingLastPathComponent()
            for link in links where !link.contains("://") && !link.hasPrefix("#") && !link.hasPrefix("mailto:") {
                let target = base.appendingPathComponent(String(link.split(separator: "#").first ?? "")).standardizedFileURL
                #expect(FileManager.default.fileExists(atPath: target.path), "\(file) links to missing \(link)")
            }
        }

        // No secret in any file written or in what the tool printed; none sent to the storage host.
        for file in files {
            let text = String(decoding: try #require(site.data(file)), as: UTF8.self)
            #expect(!text.contains(apiKey), "\(file) holds the api key")
            #expect(!text.contains(SampleLibrary.demoPassword), "\(file) holds the password")
        }
        #expect(!run.output.contains(apiKey) && !run.output.contains(SampleLibrary.demoPassword))
        #expect(keyLeaks == 0)

        // As a reader sees it: every page in headless Chromium, no console error, no broken link,
        // and the search box finding books by author, a word of a note, an ISBN and a shelf, and
        // showing more than its first twenty results when asked.
        try await HostileInputTests.checkInBrowser(output, searches: [
            ("stoker", "Dracula"), ("ungeziefer", "Die Verwandlung"), ("9780141439600", "A Tale of Two Cities"),
            ("favourites sherlock", "The Adventures of Sherlock Holmes"), ("Brontë wuthering", "Wuthering Heights"),
        ], more: ["the"])
        try await HostileInputTests.validateHTML(output)
    }

    @Test func sameLibraryGivesByteIdenticalSnapshotsAndRenderReproducesThem() async throws {
        let server = try await Self.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let epoch = ["SOURCE_DATE_EPOCH": "1700000000"]
        let first = try await Self.export(server, to: folder.path("first"), extra: ["--concurrency", "1"], environment: epoch)
        let second = try await Self.export(server, to: folder.path("second"), extra: ["--concurrency", "8"], environment: epoch)
        await server.stop()
        #expect(first.status == 2 && second.status == 2)
        let a = SiteInspector(root: folder.path("first")), b = SiteInspector(root: folder.path("second"))
        #expect(a.files() == b.files())
        for file in a.files() {
            #expect(a.data(file) == b.data(file), "\(file) differs between two runs")
        }
        #expect(a.text("index.html")?.contains("2023-11-14 22:13 UTC") == true)

        // render --from gives the same site again, with no server.
        let rendered = try await ToolRunner.run(["render", "--from", folder.path("first/library.json").path,
                                           "--output", folder.path("rendered").path])
        #expect(rendered.status == 0, "\(rendered.output)")
        let c = SiteInspector(root: folder.path("rendered"))
        // Everything but the state of incremental runs, which only an export keeps.
        let published = a.files().filter { !$0.hasPrefix(".reader-snapshot/") }
        #expect(c.files() == published)
        for file in published {
            #expect(a.data(file) == c.data(file), "\(file) differs after render --from")
        }
    }

    @Test func rejectedPasswordStopsWithTheCredentialsCodeAndWritesNothing() async throws {
        let server = try await Self.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let run = try await Self.export(server, to: folder.path("out"), environment: ["READER_PASSWORD": "wrong-password"])
        let wrongKey = String(repeating: "ab", count: 20)
        let keyRun = try await ToolRunner.run(["export", "--server", server.url, "--user-id", "1", "--output", folder.path("out").path],
                                        environment: ["READER_API_KEY": wrongKey])
        await server.stop()
        #expect(run.status == 77, "\(run.output)")
        #expect(run.stderr.contains("rejected"))
        #expect(!run.output.contains("wrong-password"))
        #expect(keyRun.status == 77, "\(keyRun.output)")
        // The server echoes the rejected key back; it is not shown.
        #expect(!keyRun.output.contains(wrongKey))
        #expect(!FileManager.default.fileExists(atPath: folder.path("out").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty, "staging left behind")
    }

    @Test func passwordFromStdinAndFileAndApiKeyFromEnvironment() async throws {
        let server = try await Self.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let stdinRun = try await ToolRunner.run(["export", "--server", server.url, "--email", SampleLibrary.demoEmail,
                                           "--password-stdin", "--connect-timeout", "0.5", "--output", folder.path("a").path, "--format", "json"],
                                          stdin: SampleLibrary.demoPassword + "\n")
        let passwordFile = folder.path("password")
        try Data((SampleLibrary.demoPassword + "\n").utf8).write(to: passwordFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: passwordFile.path)
        let openFile = try await ToolRunner.run(["export", "--server", server.url, "--email", SampleLibrary.demoEmail,
                                           "--password-file", passwordFile.path, "--output", folder.path("b").path])
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: passwordFile.path)
        let fileRun = try await ToolRunner.run(["export", "--server", server.url, "--email", SampleLibrary.demoEmail,
                                          "--password-file", passwordFile.path, "--connect-timeout", "0.5", "--output", folder.path("b").path, "--format", "markdown"])
        let keyRun = try await ToolRunner.run(["export", "--server", server.url, "--connect-timeout", "0.5", "--output", folder.path("c").path, "--format", "html"],
                                        environment: ["READER_API_KEY": server.server.apiKey, "READER_USER_ID": "1"])
        await server.stop()
        #expect(stdinRun.status == 2, "\(stdinRun.output)")
        #expect(FileManager.default.fileExists(atPath: folder.path("a/library.json").path))
        #expect(!FileManager.default.fileExists(atPath: folder.path("a/index.html").path))
        #expect(openFile.status == 64 && openFile.stderr.contains("chmod 600"), "\(openFile.output)")
        #expect(fileRun.status == 2, "\(fileRun.output)")
        #expect(FileManager.default.fileExists(atPath: folder.path("b/markdown/index.md").path))
        #expect(!FileManager.default.fileExists(atPath: folder.path("b/index.html").path))
        #expect(keyRun.status == 2, "\(keyRun.output)")
        #expect(FileManager.default.fileExists(atPath: folder.path("c/index.html").path))
    }

    @Test func badUsageAndUnreachableServerGiveTheirExitCodes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let noServer = try await ToolRunner.run(["export", "--output", folder.path("x").path, "--email", "a@b"])
        #expect(noServer.status == 64 && noServer.stderr.contains("--server"), "\(noServer.output)")
        let badFormat = try await ToolRunner.run(["export", "--server", "http://127.0.0.1:9", "--output", folder.path("x").path, "--format", "pdf"])
        #expect(badFormat.status == 64 && badFormat.stderr.contains("pdf"), "\(badFormat.output)")
        let noPassword = try await ToolRunner.run(["export", "--server", "http://127.0.0.1:9", "--email", "a@b", "--output", folder.path("x").path])
        #expect(noPassword.status == 64 && noPassword.stderr.contains("READER_PASSWORD"), "\(noPassword.output)")
        let plainHTTP = try await ToolRunner.run(["export", "--server", "http://reader.example.com", "--email", "a@b",
                                                  "--output", folder.path("x").path, "--require-https"],
                                                 environment: ["READER_PASSWORD": "p"])
        #expect(plainHTTP.status == 64 && plainHTTP.stderr.contains("--require-https"), "\(plainHTTP.output)")
        let badURL = try await ToolRunner.run(["export", "--server", "ftp://example", "--email", "a@b", "--output", folder.path("x").path],
                                        environment: ["READER_PASSWORD": "p"])
        #expect(badURL.status == 64, "\(badURL.output)")
        let unreachable = try await ToolRunner.run(["export", "--server", "http://127.0.0.1:9", "--connect-timeout", "0.5", "--email", "a@b", "--output", folder.path("x").path],
                                             environment: ["READER_PASSWORD": "secret-pass"])
        #expect(unreachable.status == 69, "\(unreachable.output)")
        #expect(!unreachable.output.contains("secret-pass"))
        #expect(!FileManager.default.fileExists(atPath: folder.path("x").path))
        // A folder that holds something else is never replaced.
        let precious = folder.path("precious")
        try FileManager.default.createDirectory(at: precious, withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: precious.appendingPathComponent("thesis.txt"))
        let refused = try await ToolRunner.run(["export", "--server", "http://127.0.0.1:9", "--email", "a@b", "--output", precious.path],
                                         environment: ["READER_PASSWORD": "p"])
        #expect(refused.status == 73, "\(refused.output)")
        #expect(FileManager.default.fileExists(atPath: precious.appendingPathComponent("thesis.txt").path))
        // A place no folder can be made: the output-not-writable code, before any request.
        let blocker = folder.path("a-file")
        try Data("x".utf8).write(to: blocker)
        let unwritable = try await ToolRunner.run(["export", "--server", "http://127.0.0.1:9", "--email", "a@b",
                                                   "--output", blocker.appendingPathComponent("out").path],
                                                  environment: ["READER_PASSWORD": "p"])
        #expect(unwritable.status == 73, "\(unwritable.output)")
        let help = try await ToolRunner.run(["export", "--help"])
        #expect(help.status == 0 && help.stdout.contains("--password-file") && help.stdout.contains("77"))
    }

    @Test func customTemplatesAreUsedAndABrokenOneIsNamedWithItsLine() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let templates = folder.path("templates")
        let copy = try await ToolRunner.run(["copy-templates", templates.path])
        #expect(copy.status == 0, "\(copy.output)")
        let shelf = templates.appendingPathComponent("html/shelf.mustache")
        let original = try String(contentsOf: shelf, encoding: .utf8)
        try original.replacingOccurrences(of: "<h1 dir=\"auto\">{{shelf.name}}</h1>", with: "<h1 class=\"mine\">Shelf: {{shelf.name}}</h1>")
            .write(to: shelf, atomically: true, encoding: .utf8)

        let server = try await Self.startServer()
        let run = try await Self.export(server, to: folder.path("out"), extra: ["--templates", templates.path])
        #expect(run.status == 2, "\(run.output)")
        let page = try #require(SiteInspector(root: folder.path("out")).text("shelves/2-classics.html"))
        #expect(page.contains("<h1 class=\"mine\">Shelf: Classics</h1>"))

        try (original + "\n{{#books}}\n").write(to: shelf, atomically: true, encoding: .utf8)
        server.server.resetCounters()
        let broken = try await Self.export(server, to: folder.path("out2"), extra: ["--templates", templates.path])
        await server.stop()
        #expect(broken.status == 78, "\(broken.output)")
        #expect(broken.stderr.contains("html/shelf.mustache:"), "\(broken.output)")
        // Parsed while the run logged in: told before anything else was asked for.
        #expect(server.server.counters.apiRequests == 1, "\(server.server.counters)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("out2").path), "\(broken.output)")
    }
}
