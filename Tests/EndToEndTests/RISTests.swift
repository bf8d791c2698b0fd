import Foundation
import LibraryArchive
import SampleServer
import Support
import TestSupport
import Testing

/// `library.ris`, read back by rispy (Tests/ris/read_ris.py) as a reference manager reads it.
@Suite(.serialized) struct RISTests {
    struct Record: Decodable {
        var type_of_reference: String?
        var title: String?
        var authors: [String]?
        var issn: String?
        var year: String?
        var publisher: String?
        var keywords: [String]?
        var urls: [String]?
        var notes: [String]?
    }

    static func read(_ file: URL) async throws -> [Record] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ris/read_ris.py")
        let (status, output) = try await ToolRunner.runChecker("/usr/bin/env", ["python3", script.path, file.path])
        try #require(status == 0, "rispy is missing (`make test` installs it), or the script failed:\n\(output)")
        struct Read: Decodable { var entries: [Record] }
        return try JSONDecoder().decode(Read.self, from: Data(output.utf8)).entries
    }

    /// A value on its one line: line breaks and tabs as spaces, other control characters left out.
    static func oneLine(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\n" || scalar == "\r" || scalar == "\t" { out.append(" ") } else if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { continue } else { out.append(scalar) }
        }
        return String(out).trimmingCharacters(in: .whitespaces)
    }

    /// A note as a reader gives it back: a line each, each without the spaces around it (the
    /// reader strips them), control characters left out.
    static func noteLines(_ markdown: String) -> [String] {
        markdown.trimmingCharacters(in: .newlines).split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var out = String.UnicodeScalarView()
            for scalar in line.unicodeScalars where scalar == "\t" || !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)) { out.append(scalar) }
            return String(out).trimmingCharacters(in: .whitespaces)
        }
    }

    /// Every record of `file` read back as the book of `library` it stands for, in the order of the ids.
    static func expectEveryBook(of library: Library, in records: [Record], _ said: String) {
        #expect(records.count == library.books.count, "\(said): \(records.count) records for \(library.books.count) books")
        let shelves = Dictionary(uniqueKeysWithValues: library.shelves.map { ($0.id, $0.name) })
        for (book, record) in zip(library.books.sorted { $0.id < $1.id }, records) {
            #expect(record.type_of_reference == "BOOK")
            #expect(record.title == oneLine(UntrustedText.displayable(BookEntry(book).shownTitle)), "\(said): book \(book.id)")
            let author = book.author.map(UntrustedText.displayable).map(oneLine)
            #expect(record.authors == (author?.isEmpty == false ? [author!] : nil), "\(said): book \(book.id)")
            let shelf = book.shelfID.flatMap { shelves[$0] }.map(UntrustedText.displayable).map(oneLine)
            #expect(record.keywords == (shelf?.isEmpty == false ? [shelf!] : nil), "\(said): book \(book.id)")
            let note = book.note.markdown.trimmingCharacters(in: .newlines)
            #expect(record.notes == (note.isEmpty ? nil : noteLines(note)), "\(said): book \(book.id)")
        }
    }

    /// `library` exported as RIS and JSON into a folder of `folder`: the run, and where it wrote.
    static func exportRIS(_ library: SampleLibrary, into folder: TemporaryFolder, extra: [String] = []) async throws -> (ToolRun, URL) {
        let server = try await EndToEndTests.startServer(library)
        let output = folder.path("out")
        let run = try await EndToEndTests.export(server, to: output, extra: ["--format", "ris,json"] + extra)
        await server.stop()
        return (run, output)
    }

    /// The hostile library: markup, lines that read as RIS tags ("ER  - ") and control characters
    /// in notes and titles end no record early and add no field.
    @Test func everyBookOfTheHostileLibraryReadsBackWhole() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (run, output) = try await Self.exportRIS(try SampleLibrary.hostile(), into: folder)
        #expect(run.status == 2, "\(run.output)")
        #expect(SiteInspector(root: output).files().filter { !$0.hasPrefix("covers/") }.sorted() == ["changes.json", "library.json", "library.ris", "timeline.json"])
        let library = try Library.read(from: output.appendingPathComponent("library.json"))
        Self.expectEveryBook(of: library, in: try await Self.read(output.appendingPathComponent("library.ris")), "hostile")
    }

    /// A note line that reads as a tag is written a space in: it neither ends its record nor adds
    /// a field, and comes back as written.
    @Test func aNoteLineThatReadsAsATagStaysInItsNote() async throws {
        var library = try SampleLibrary.bundled()
        library.updateBook(id: 101) { $0.comments = "First line.\nER  - \nTY  - JOUR\nTI  - Injected\n    indented\n\nLast." }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (run, output) = try await Self.exportRIS(library, into: folder)
        #expect(run.status == 2, "\(run.output)")
        let written = try #require(SiteInspector(root: output).text("library.ris"))
        // The note's Markdown keeps its lines ("ER - \\", a hard break); those that read as tags are a space in.
        let lines = written.components(separatedBy: "\r\n")
        #expect(lines.contains(" ER - \\") && lines.contains(" TY - JOUR\\") && lines.contains(" TI - Injected\\"), "\(written.prefix(600))")
        #expect(lines.filter { $0.hasPrefix("ER  - ") }.count == 30 && !lines.contains { $0.hasPrefix("TY  - JOUR") })
        let records = try await Self.read(output.appendingPathComponent("library.ris"))
        Self.expectEveryBook(of: try Library.read(from: output.appendingPathComponent("library.json")), in: records, "injected")
        #expect(!records.contains { $0.type_of_reference == "JOUR" || $0.title == "Injected" })
    }

    /// 3,000 books, every record read back whole.
    @Test func aLibraryOf3000BooksReadsBackWhole() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (run, output) = try await Self.exportRIS(try SampleLibrary.synthetic(books: 3_000, seed: 3), into: folder, extra: ["--quiet"])
        #expect(run.status == 2, "\(run.output)")
        let library = try Library.read(from: output.appendingPathComponent("library.json"))
        let records = try await Self.read(output.appendingPathComponent("library.ris"))
        #expect(records.count == 3_000)
        Self.expectEveryBook(of: library, in: records, "3,000 books")
    }

    /// The year and publisher are Open Library's where `--enrich openlibrary` found them, the ISBN
    /// its 13-digit form, the shelf the keyword, and with `--site-url` the book's page is its URL.
    @Test func enrichedYearPublisherAndThePageAddress() async throws {
        let server = try await OpenLibraryTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("out")
        let run = try await OpenLibraryTests.export(server, to: output, extra: ["--format", "html,ris,json", "--site-url", "https://books.example.org/library/"])
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        let library = try Library.read(from: output.appendingPathComponent("library.json"))
        let records = try await Self.read(output.appendingPathComponent("library.ris"))
        let index = try #require(library.books.sorted { $0.id < $1.id }.firstIndex { $0.id == 101 })
        let pride = records[index]
        let found = try #require(library.books.first { $0.id == 101 }?.openLibrary)
        #expect(pride.title == "Pride and Prejudice")
        #expect(pride.year == found.year.map(String.init) && pride.publisher == found.publisher)
        #expect(pride.issn == "9780141439518")
        #expect(pride.urls == ["https://books.example.org/library/books/101-pride-and-prejudice.html"])
        #expect(SiteInspector(root: output).files().contains("books/101-pride-and-prejudice.html"))
    }
}
