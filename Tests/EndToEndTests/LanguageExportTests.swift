import Foundation
import SampleServer
@testable import Site
import TestSupport
import Testing

/// The built tool's pages in German, French and Spanish.
@Suite(.serialized)
struct LanguageExportTests {
    static func language(_ tag: String) async throws -> Language {
        try await TemplateSet.bundled(language: tag).language
    }

    static func strings(_ tag: String) throws -> [String: String] {
        let folder = try #require(TemplateSet.bundledDirectory).appendingPathComponent("strings")
        return try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: folder.appendingPathComponent(tag + ".strings")), format: nil) as? [String: String])
    }

    /// The English strings a page in `tag` must not show: each value that the language words
    /// differently, in pieces between its {placeholders}, of two words or six letters at least.
    static func englishPieces(differingIn tag: String) throws -> [String] {
        let english = try strings("en"), own = try strings(tag)
        var pieces = Set<String>()
        for (key, value) in english where !key.hasPrefix("language.") && own[key] != value {
            for piece in value.components(separatedBy: "{").map({ $0.split(separator: "}", maxSplits: 1).last.map(String.init) ?? $0 }) {
                let text = piece.trimmingCharacters(in: CharacterSet.whitespaces.union(.punctuationCharacters))
                if text.contains(" ") || text.count >= 6 { pieces.insert(text) }
            }
        }
        return pieces.sorted()
    }

    /// A page's fixed words: its visible text and its labels, without the server's text (marked
    /// `dir="auto"` or `<bdi>`) and the page's title. The gaps' words (`problems`, in English in
    /// library.json) are the language's too.
    static func fixedText(ofHTML html: String) -> String {
        var text = html
        for pattern in [#"<title>.*?</title>"#, #"<bdi>.*?</bdi>"#, #"<(\w+)[^>]*dir="auto"[^>]*>.*?</\1>"#, #"<script.*?</script>"#,
                        #"<meta [^>]*>"#, #"<link [^>]*>"#, #"<svg.*?</svg>"#] {
            text = text.replacingOccurrences(of: "(?s)" + pattern, with: " ", options: [.regularExpression, .caseInsensitive])
        }
        let labels = SiteInspector.matches(of: #"(?:aria-label|placeholder|title|alt)="([^"]*)""#, in: text).joined(separator: "\n")
        return SiteInspector.visibleText(ofHTML: text) + "\n" + labels
    }

    @Test(arguments: ["de", "fr", "es"])
    func pagesInALanguageShowNoEnglishFixedWord(_ tag: String) async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("snapshot")
        let run = try await EndToEndTests.export(server, to: output, extra: ["--language", tag, "-q"], environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        await server.stop()
        #expect(run.status == 2, "\(run.output)")  // the sample library's gaps, as in English
        let site = SiteInspector(root: output)
        let archive = try #require(site.data("library.json"))
        let library = try #require(try JSONSerialization.jsonObject(with: archive) as? [String: Any])
        let problems = (library["problems"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
        let pages = site.files().filter { $0.hasSuffix(".html") }
        #expect(pages.count > 40)
        let pieces = try Self.englishPieces(differingIn: tag)
        #expect(pieces.contains("Recently added") && pieces.contains("Could not be fetched"))
        #expect(problems.count == 5, "\(problems)")
        for page in pages {
            let html = try #require(site.text(page))
            #expect(html.contains("<html lang=\"\(tag)\">"), "\(page)")
            let text = Self.fixedText(ofHTML: html)
            let left = pieces.filter { text.contains($0) } + problems.filter { text.contains($0) }
            #expect(left.isEmpty, "\(page) still says in English: \(left)")
        }
        let language = try await Self.language(tag)
        // The index's date, its counts, and the feeds' language.
        let index = try #require(site.text("index.html"))
        #expect(index.contains(language.dateTime("2023-11-14T22:13:20Z")) && !index.contains("2023-11-14 22:13 UTC"))
        #expect(index.contains(language.count("books", 30)))
        let feed = try #require(site.text("feed.xml")), catalog = try #require(site.text("opds/index.xml"))
        #expect(feed.contains("xml:lang=\"\(tag)\"") && catalog.contains("xml:lang=\"\(tag)\""))
        // The Markdown in the language too.
        let markdown = try #require(site.text("markdown/index.md"))
        #expect(markdown.contains("## " + language.text("shelves")) && !markdown.contains("## Shelves"))
    }

    /// A count is written one way on every page, as ICU writes it in the pages' language: the
    /// index, the list of books and the stats say "1,062" in English and "1.062" in German, and
    /// the pages' scripts format theirs with the browser's ICU (`Intl.NumberFormat`) too.
    @Test func everyPageWritesACountAsTheLanguageDoes() async throws {
        let server = try await HistoryTests.startServer(books: 1062, seed: 3)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let english = folder.path("en")
        let run = try await EndToEndTests.export(server, to: english, extra: ["-q"])
        await server.stop()
        #expect(run.status == 0, "\(run.output)")
        let german = folder.path("de")
        let render = try await ToolRunner.run(["render", "--from", english.path, "--output", german.path, "--language", "de", "-q"])
        #expect(render.status == 0, "\(render.output)")
        for (output, count, words) in [(english, "1,062", ["1,062 books on ", "All 1,062 books", "1,062 books, by title."]),
                                       (german, "1.062", ["1.062 Bücher", "Alle 1.062 Bücher", "1.062 Bücher, nach Titel."])] {
            let site = SiteInspector(root: output)
            let pages = ["index.html", "books.html", "stats.html"].map { site.text($0) ?? "" }
            let text = pages.joined(separator: "\n")
            for word in words { #expect(text.contains(word), "\(word) in \(output.lastPathComponent)") }
            #expect(pages[2].contains("<dd>\(count)</dd>"), "\(output.lastPathComponent): \(pages[2])")
            // No page writes the count plainly.
            #expect(!text.contains(">1062<") && !text.contains("1062 b") && !text.contains("1062 B"), "\(output.lastPathComponent)")
            for script in ["search.js", "lookup.js", "offline.js"] {
                #expect(site.text("assets/" + script)?.contains("new Intl.NumberFormat(") == true, "\(script)")
            }
        }
    }

    @Test func aLanguageFileWithMissingKeysFallsBackToEnglishAndSaysWhich() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("snapshot")
        let first = try await EndToEndTests.export(server, to: output, extra: ["-q"])
        await server.stop()
        #expect(first.status == 2, "\(first.output)")

        let templates = folder.path("templates")
        let copy = try await ToolRunner.run(["copy-templates", templates.path])
        #expect(copy.status == 0 && FileManager.default.fileExists(atPath: templates.appendingPathComponent("strings/de.strings").path))
        // A word in a section is looked up as the page is made, not written in when loaded.
        let indexTemplate = templates.appendingPathComponent("html/index.mustache")
        try (try String(contentsOf: indexTemplate, encoding: .utf8)).replacingOccurrences(of: "{{$content}}", with: "{{$content}}{{#t.shelves}}<p class=\"mine\">{{.}}</p>{{/t.shelves}}")
            .write(to: indexTemplate, atomically: true, encoding: .utf8)
        // A Dutch file with two words: the rest stays English, and the run names the missing keys.
        try "\"shelves\" = \"Boekenplanken\";\n\"allBooks\" = \"Alle boeken\";\n\"language.order\" = \"collation\";\n"
            .write(to: templates.appendingPathComponent("strings/nl.strings"), atomically: true, encoding: .utf8)
        let dutch = folder.path("dutch")
        let render = try await ToolRunner.run(["render", "--from", output.path, "--output", dutch.path, "--templates", templates.path, "--language", "nl"])
        #expect(render.status == 0, "\(render.output)")
        #expect(render.stderr.contains("The strings for 'nl' lack") && render.stderr.contains("allShelves"), "\(render.stderr)")
        let index = try #require(SiteInspector(root: dutch).text("index.html"))
        #expect(index.contains("<html lang=\"nl\">") && index.contains(">Boekenplanken</h2>") && index.contains(">Recently added</h2>"))
        #expect(index.contains("<p class=\"mine\">Boekenplanken</p>"))

        // A language with no strings file is an error that lists those there are; a malformed tag is bad usage.
        let unknown = try await ToolRunner.run(["render", "--from", output.path, "--output", folder.path("x").path, "--language", "sv"])
        #expect(unknown.status == 78 && unknown.stderr.contains("no strings for the language 'sv'") && unknown.stderr.contains("de, en, es, fr"), "\(unknown.output)")
        let malformed = try await ToolRunner.run(["render", "--from", output.path, "--output", folder.path("y").path, "--language", "../../etc"])
        #expect(malformed.status == 64 && malformed.stderr.contains("--language must be a language tag"), "\(malformed.output)")
        // A broken strings file names its line.
        try "\"shelves\" = \"Boekenplanken\"\n\"allBooks\" = ;\n".write(to: templates.appendingPathComponent("strings/nl.strings"), atomically: true, encoding: .utf8)
        let broken = try await ToolRunner.run(["render", "--from", output.path, "--output", folder.path("z").path, "--templates", templates.path, "--language", "nl"])
        #expect(broken.status == 78 && broken.stderr.contains("strings/nl.strings: not a strings file"), "\(broken.output)")
    }
}
