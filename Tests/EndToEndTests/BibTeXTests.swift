import Foundation
import LibraryArchive
import SampleServer
import SampleServerDoubles
import Support
import TestSupport
import Testing

/// `library.bib`, read back by bibtexparser (Tests/bibtex/read_bib.py) as a reference manager reads it.
@Suite(.serialized) struct BibTeXTests {
    struct Read: Decodable {
        struct Entry: Decodable { var key: String; var type: String; var fields: [String: String] }
        var failed: [String]
        var entries: [Entry]
    }

    static func read(_ file: URL) async throws -> Read {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("bibtex/read_bib.py")
        let (status, output) = try await ToolRunner.runChecker("/usr/bin/env", ["python3", script.path, file.path])
        try #require(status == 0, "bibtexparser is missing (`make test` installs it), or the script failed:\n\(output)")
        return try JSONDecoder().decode(Read.self, from: Data(output.utf8))
    }

    /// Every book of the hostile library is an entry whose fields read back as the book's: markup,
    /// TeX's special characters, lone braces and an `@` at a line's start end no entry early.
    @Test func everyBookOfTheHostileLibraryReadsBack() async throws {
        let server = try await EndToEndTests.startServer(try SampleLibrary.hostile())
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("out")
        let run = try await EndToEndTests.export(server, to: output, extra: ["--format", "bibtex,json"])
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        #expect(SiteInspector(root: output).files().filter { !$0.hasPrefix(".") && !$0.hasPrefix("covers/") }.sorted()
                == ["changes.json", "library.bib", "library.json", "timeline.json"])

        let library = try Library.read(from: output.appendingPathComponent("library.json"))
        let read = try await Self.read(output.appendingPathComponent("library.bib"))
        #expect(read.failed.isEmpty, "\(read.failed)")
        #expect(read.entries.count == library.books.count)
        #expect(Set(read.entries.map(\.key)).count == read.entries.count, "two entries share a key")
        let byID = Dictionary(uniqueKeysWithValues: read.entries.map { (Int($0.key.split(separator: "-").last ?? "") ?? -1, $0) })
        for book in library.books {
            let entry = try #require(byID[book.id], "book \(book.id) has no entry")
            #expect(entry.type == "book")
            #expect(entry.fields["title"] == UntrustedText.displayable(BookEntry(book).shownTitle), "book \(book.id)")
            #expect(entry.fields["author"] == book.author.map(UntrustedText.displayable), "book \(book.id)")
            let note = Self.asWritten(book.note.markdown)
            #expect(entry.fields["annote"] == (note.isEmpty ? nil : note), "book \(book.id)")
        }
        // The hostile notes hold every character TeX treats specially.
        let notes = read.entries.compactMap { $0.fields["annote"] }.joined()
        for special in ["{", "}", "\\", "%", "&", "#", "_", "<script"] {
            #expect(notes.contains(special) || !library.books.contains { $0.note.markdown.contains(special) }, "\(special) lost")
        }
    }

    /// The year and publisher are Open Library's, where `--enrich openlibrary` found them, and the
    /// shelf is the keywords.
    @Test func enrichedYearAndPublisher() async throws {
        let server = try await OpenLibraryTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("out")
        let run = try await OpenLibraryTests.export(server, to: output, extra: ["--format", "bibtex,json"])
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        let library = try Library.read(from: output.appendingPathComponent("library.json"))
        let read = try await Self.read(output.appendingPathComponent("library.bib"))
        let pride = try #require(read.entries.first { $0.key.hasSuffix("-101") })
        let book = try #require(library.books.first { $0.id == 101 })
        let found = try #require(book.openLibrary)
        #expect(pride.key == "austen-101")
        #expect(pride.fields["year"] == found.year.map(String.init))
        #expect(pride.fields["publisher"] == found.publisher)
        #expect(pride.fields["isbn"] == "9780141439518")
        #expect(pride.fields["keywords"] == library.shelves.first { $0.id == book.shelfID }?.name)
    }

    /// A note as the entry keeps it: its last line break dropped, tabs and returns as spaces,
    /// other control characters left out.
    static func asWritten(_ markdown: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in markdown.trimmingCharacters(in: .newlines).unicodeScalars {
            if scalar == "\t" || scalar == "\r" { out.append(" ") } else if scalar != "\n" && (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)) { continue } else { out.append(scalar) }
        }
        return String(out)
    }
}
