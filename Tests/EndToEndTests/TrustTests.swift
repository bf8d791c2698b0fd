import Foundation
import SampleServer
import TestSupport
import Testing

/// What a user trusts the tool with every day: a shared catalog that names neither the login nor
/// the server, nights that change nothing and say nothing, and notes never lost to a server's bad night.
@Suite(.serialized)
struct TrustTests {
    /// Every file under `root`, hidden ones included, as text where it is text (`.git` aside).
    static func filesHolding(_ needles: [String], under root: URL) -> [String] {
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil, options: [])?
            .compactMap { $0 as? URL } ?? []
        var found: [String] = []
        for file in files where !file.path.contains("/.git/") {
            guard let data = try? Data(contentsOf: file) else { continue }
            let text = String(decoding: data, as: UTF8.self)
            for needle in needles where text.contains(needle) {
                found.append("\(file.path.dropFirst(root.path.count)): \(needle)")
            }
        }
        return found
    }

    /// What may not appear in a shared catalog for this server: the login, its address, API paths, storage URLs.
    static func privateNeedles(_ server: RunningSampleServer) -> [String] {
        let address = server.url.replacingOccurrences(of: "http://", with: "")
        return [SampleLibrary.demoEmail, address, "/api/v1", "active_storage", "rails/"]
    }

    /// Modification times and inodes of every file: a night that rewrites nothing leaves them all.
    static func fingerprint(_ root: URL) throws -> [String: String] {
        var prints: [String: String] = [:]
        for file in SiteInspector(root: root).files() {
            let attributes = try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(file).path)
            prints[file] = "\(attributes[.systemFileNumber] ?? 0) \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        }
        return prints
    }

    static func night(_ number: Int) -> [String: String] {
        ["SOURCE_DATE_EPOCH": String(1_700_000_000 + number * 86_400)]
    }

    @Test func aSharedCatalogNamesNeitherTheLoginNorTheServer() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("catalog")
        let run = try await EndToEndTests.export(server, to: output, extra: ["--title", "Our shelf of books"], environment: Self.night(0))
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        // The gaps are there, said in words; the technical detail went to the run's output.
        #expect(run.stderr.contains("HTTP 500"), "\(run.output)")
        let leaks = Self.filesHolding(Self.privateNeedles(server), under: output)
        #expect(leaks.isEmpty, "\(leaks.prefix(20))")
        let site = SiteInspector(root: output)
        #expect(site.text("index.html")?.contains("<title>Our shelf of books</title>") == true)
        #expect(site.text("index.html")?.contains("The cover could not be fetched since 2023-11-14.") == true)
        #expect(site.text("feed.xml")?.contains("<title>Our shelf of books: recently added</title>") == true)
        #expect(site.text("opds/index.xml")?.contains("Our shelf of books") == true)
        #expect(site.text("markdown/index.md")?.contains("Our shelf of books") == true)
        // The private state is kept beside the catalog, readable by its owner alone.
        let state = folder.path(".catalog.reader-snapshot")
        #expect(FileManager.default.fileExists(atPath: state.appendingPathComponent("state.json").path))
        let mode = try FileManager.default.attributesOfItem(atPath: state.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
        // And it is what names the server: the next night still knows its books.
        #expect(Self.filesHolding([server.url], under: state).isEmpty == false)
    }

    @Test func aStateKeptInsideByAnEarlierVersionIsMovedBesideAndStillServes() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("catalog")
        #expect(try await EndToEndTests.export(server, to: output, environment: Self.night(0)).status == 2)
        // As an earlier version left it: the state inside the snapshot.
        let inside = output.appendingPathComponent(".reader-snapshot")
        try FileManager.default.moveItem(at: stateFolder(of: output), to: inside)
        server.server.resetCounters()
        let run = try await EndToEndTests.export(server, to: output, environment: Self.night(1))
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        // The state still served (no book asked for but those that failed), and it lives beside now.
        #expect(server.server.counters.detailRequests == 2, "\(server.server.counters)")
        #expect(FileManager.default.fileExists(atPath: stateFolder(of: output).appendingPathComponent("state.json").path))
        // Nothing of it is left inside: the new snapshot is known as one by its mark beside it.
        #expect(!FileManager.default.fileExists(atPath: inside.path))
    }

    @Test func withoutATitleTheCatalogHasANeutralName() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("catalog")
        let run = try await EndToEndTests.export(server, to: output, environment: Self.night(0))
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        #expect(SiteInspector(root: output).text("index.html")?.contains("<title>Library</title>") == true)
    }

    @Test func nightsWithNothingChangedRewriteNoFileAndSayNothing() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("nightly")
        let first = try await EndToEndTests.export(server, to: output, extra: ["--quiet"], environment: Self.night(0))
        #expect(first.status == 2, "\(first.output)")
        // The first night's gaps are news.
        #expect(first.stderr.contains("warning: Book 128: details could not be read"), "\(first.output)")
        let before = try Self.fingerprint(output)
        let library = SiteInspector(root: output).data("library.json")
        // Nights 2, 3, 9 and 20: the failures are asked for again, then wait a day, then a week;
        // the snapshot says the same of them every night.
        for night in [1, 2, 8, 19] {
            let run = try await EndToEndTests.export(server, to: output, extra: ["--quiet"], environment: Self.night(night))
            #expect(run.status == 2, "night \(night): \(run.output)")
            #expect(run.stdout.isEmpty && run.stderr.isEmpty, "night \(night) said: \(run.output)")
            #expect(try Self.fingerprint(output) == before, "night \(night) rewrote files")
        }
        #expect(SiteInspector(root: output).data("library.json") == library)
        // A healed gap is news, and so is the change it brings.
        server.server.update { library in
            if let index = library.books.firstIndex(where: { $0.id == 128 }) {
                library.books[index].shelfID = 1
                library.books[index].updatedAt = "2023-12-04T10:00:00.000Z"
            }
        }
        let healed = try await EndToEndTests.export(server, to: output, extra: ["--quiet"], environment: Self.night(20))
        await server.stop()
        #expect(healed.stderr.contains("Book 128: details fetched again (missing since 2023-11-14)"), "\(healed.output)")
    }

    @Test func aCoverItsHostCannotGiveTonightIsKeptAsItWas() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("nightly")
        // A cover kept on the disk service itself, asked for again each night (conditionally).
        let book = try #require(server.server.library.books.first { if case .disk = $0.cover { return true } else { return false } })
        guard case .disk(let file) = book.cover else { return }
        let address = server.url + SampleServer.diskCoverPath(file)
        server.server.update { library in
            if let index = library.books.firstIndex(where: { $0.id == book.id }) { library.books[index].cover = .external(address) }
        }
        #expect(try await EndToEndTests.export(server, to: output, environment: Self.night(0)).status == 2)
        let page = try #require(SiteInspector(root: output).files().first { $0.hasPrefix("books/\(book.id)-") && $0.hasSuffix(".html") })
        let before = try #require(SiteInspector(root: output).text(page))
        #expect(before.contains("covers/"))
        server.server.setFailingCovers([file])
        server.server.resetCounters()
        let run = try await EndToEndTests.export(server, to: output, extra: ["--retries", "0", "--quiet"], environment: Self.night(1))
        server.server.setFailingCovers([])
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        #expect(run.output.isEmpty, "a cover kept is no news: \(run.output)")
        // It was asked for, failed, and the snapshot is as it was: the same page, no new gap.
        #expect(server.server.counters.requests > 3, "\(server.server.counters)")
        #expect(SiteInspector(root: output).text(page) == before)
        #expect(SiteInspector(root: output).text("library.json")?.contains("\"book_id\" : \(book.id),") == false)
    }

    @Test func aBookWhoseDetailsFailTonightKeepsItsNoteAndItsCover() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("nightly")
        let book = try #require(server.server.library.books.first { !$0.comments.isEmpty && $0.cover != nil && $0.id < 125 })
        #expect(try await EndToEndTests.export(server, to: output, environment: Self.night(0)).status == 2)
        let site = SiteInspector(root: output)
        let markdownFile = try #require(site.files().first { $0.hasPrefix("markdown/books/\(book.id)-") })
        let pageFile = try #require(site.files().first { $0.hasPrefix("books/\(book.id)-") && $0.hasSuffix(".html") })
        let markdown = try #require(site.data(markdownFile))
        let notesBefore = try #require(site.text("library.json")).components(separatedBy: "\"complete\" : true").count
        server.server.setFailingDetails([book.id])
        // The book changed on the server: its details are asked for tonight, and fail.
        server.server.update { library in
            if let index = library.books.firstIndex(where: { $0.id == book.id }) { library.books[index].updatedAt = "2023-11-15T08:00:00.000Z" }
        }
        for (night, extra) in [(1, [String]()), (2, ["--full"])] {
            let run = try await EndToEndTests.export(server, to: output, extra: extra + ["--retries", "1"], environment: Self.night(night))
            #expect(run.status == 2, "\(run.output)")
            #expect(run.stderr.contains("Book \(book.id): details could not be read"), "\(run.output)")
            #expect(run.stderr.contains("kept as the last snapshot had it"), "\(run.output)")
            let after = SiteInspector(root: output)
            #expect(after.data(markdownFile) == markdown, "night \(night): the note's Markdown changed")
            let page = try #require(after.text(pageFile))
            #expect(page.contains("Not refreshed since 2023-11-15"), "night \(night): \(page)")
            #expect(page.contains("class=\"note-body\""), "night \(night): the note is gone from its page")
            #expect(page.contains("covers/"), "night \(night): the cover is gone from its page")
            #expect(try #require(after.text("library.json")).components(separatedBy: "\"complete\" : true").count == notesBefore)
        }
        server.server.setFailingDetails([])
        await server.stop()
    }
}
