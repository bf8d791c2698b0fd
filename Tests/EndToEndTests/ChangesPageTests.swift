import Foundation
import SampleServer
import TestSupport
import Testing

/// The Changes page: the nights before, not only the last one, and never a word of what tonight's
/// privacy options leave out, whatever the nights before showed.
@Suite struct ChangesPageTests {
    static let formats = ["--format", "html,json", "--no-thumbnails"]

    static func night(_ number: Int) -> [String: String] { ["SOURCE_DATE_EPOCH": String(1_700_000_000 + number * 86_400)] }

    static func json(_ output: URL, _ file: String) throws -> [String: Any] {
        let text = try #require(SiteInspector(root: output).text(file), "\(file) is missing")
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Every file of a snapshot as text, to search for words that must not be there.
    static func allText(_ root: URL) -> String {
        SiteInspector(root: root).contents().values.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
    }

    /// The books of the snapshot's library.json: id, title and shelf.
    static func books(_ output: URL) throws -> [(id: Int, title: String, shelf: Int?)] {
        let books = try #require(try json(output, "library.json")["books"] as? [[String: Any]])
        return books.compactMap { book in (book["id"] as? Int).map { ($0, book["title"] as? String ?? "", book["shelf_id"] as? Int) } }
    }

    @Test func theChangesPageShowsTheNightsBeforeNewestFirst() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        func export(_ number: Int) async throws {
            let run = try await EndToEndTests.export(server, to: output, extra: Self.formats, environment: Self.night(number))
            #expect(run.status == 2, "night \(number): \(run.output)")
        }
        try await export(0)
        let first = try #require(try Self.books(output).first)
        server.server.update { $0.updateBook(id: first.id) { $0.title = "Renamed On The First Night" } }
        try await export(1)
        let shelf = try #require(first.shelf)
        server.server.update { $0.addBook(title: "Added On The Second Night", shelfID: shelf) }
        try await export(2)
        // A night with nothing new keeps the page as it was.
        try await export(3)

        let report = try Self.json(output, "changes.json")
        #expect((report["added"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Added On The Second Night"])
        let earlier = try #require(report["earlier"] as? [[String: Any]], "\(report)")
        #expect(earlier.count == 1, "the first snapshot is not a night of changes: \(earlier)")
        #expect((earlier.first?["edited"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Renamed On The First Night"])
        #expect(earlier.first?["earlier"] == nil, "each night is carried once, not nested")

        let page = try #require(SiteInspector(root: output).text("changes.html"))
        let heading = try #require(page.range(of: "Earlier nights"), "\(page)")
        let added = try #require(page.range(of: "Added On The Second Night"))
        let renamed = try #require(page.range(of: "Renamed On The First Night"))
        #expect(added.lowerBound < heading.lowerBound && heading.lowerBound < renamed.lowerBound)
        // The earlier night is dated, and its book links to its page.
        #expect(page.contains("<h3>2023-11-15 22:13 UTC</h3>"), "\(page)")
        // A renamed book is shown with the title it had.
        #expect(page.contains("href=\"books/") && page[renamed.upperBound...].contains("(title, was “\(first.title)”)"), "\(page)")
        #expect((earlier.first?["edited"] as? [[String: Any]])?.first?["formerTitle"] as? String == first.title, "\(report)")
        await server.stop()
    }

    /// A shelf left out tonight, after a night that shared it: its books are not "removed" on the
    /// Changes page (by title), notes left out are not "edited", and the snapshot is made again.
    @Test func aShelfAndNotesLeftOutTonightAreNotNamedByTheChangesPage() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        #expect(try await EndToEndTests.export(server, to: output, extra: Self.formats, environment: Self.night(0)).status == 2)
        let library = try Self.json(output, "library.json")
        let shelves = try #require(library["shelves"] as? [[String: Any]])
        let secret = try #require(shelves.first { ($0["book_ids"] as? [Int])?.isEmpty == false }, "\(shelves)")
        let name = try #require(secret["name"] as? String)
        let secretIDs = Set(try #require(secret["book_ids"] as? [Int]))
        // Titles that read the same in HTML and in JSON, to be searched for as they are.
        let secretTitles = try Self.books(output).filter { secretIDs.contains($0.id) }.map(\.title)
            .filter { $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == " " } }
        #expect(!secretTitles.isEmpty)
        let other = try #require(try Self.books(output).first { !secretIDs.contains($0.id) })

        let options = Self.formats + ["--exclude-shelf", name, "--no-notes"]
        let tonight = try await EndToEndTests.export(server, to: output, extra: options, environment: Self.night(1))
        #expect(tonight.status == 2, "\(tonight.output)")
        let report = try Self.json(output, "changes.json")
        for kind in ["added", "removed", "moved", "edited"] {
            #expect((report[kind] as? [Any])?.isEmpty == true, "\(kind): \(report)")
        }
        // Looked for as the search index stores words (folded), in every file.
        let leaks = SiteInspector(root: output).holding(secretTitles + EndToEndTests.noteWords)
        #expect(leaks.isEmpty, "still in the snapshot: \(leaks.prefix(10))")

        // The next night, under the same options: only what is shared is reported.
        let secretBook = try #require(secretIDs.min())
        server.server.update {
            $0.updateBook(id: secretBook) { $0.title = "A Secret Title Edited" }
            $0.updateBook(id: other.id) { $0.title = "A Shared Title Edited" }
        }
        #expect(try await EndToEndTests.export(server, to: output, extra: options, environment: Self.night(2)).status == 2)
        let next = try Self.json(output, "changes.json")
        #expect((next["edited"] as? [[String: Any]])?.map { $0["title"] as? String } == ["A Shared Title Edited"], "\(next)")
        #expect(SiteInspector(root: output).holding(["A Secret Title"]).isEmpty)

        // A copy for friends made by `render` from a whole snapshot whose last night edited a book
        // of that shelf: the whole snapshot's report is not shown in it.
        let whole = folder.path("whole")
        #expect(try await EndToEndTests.export(server, to: whole, extra: Self.formats, environment: Self.night(3)).status == 2)
        server.server.update { $0.updateBook(id: secretBook) { $0.title = "Secret Renamed Before The Render" } }
        #expect(try await EndToEndTests.export(server, to: whole, extra: Self.formats, environment: Self.night(4)).status == 2)
        #expect(Self.allText(whole).contains("Secret Renamed Before The Render"))
        let friends = folder.path("friends")
        let render = try await ToolRunner.run(["render", "--from", whole.appendingPathComponent("library.json").path, "--output", friends.path,
                                               "--exclude-shelf", name])
        #expect(render.status == 0, "\(render.output)")
        #expect(SiteInspector(root: friends).text("changes.json") == nil)
        let friendsLeaks = SiteInspector(root: friends).holding(Array(secretTitles.dropFirst()) + ["Secret Renamed Before The Render"])
        #expect(friendsLeaks.isEmpty, "\(friendsLeaks.prefix(10))")
        await server.stop()
    }
}
