import Foundation
import LibraryArchive
import SampleServer
import TestSupport
import Testing
import Thumbnails

/// Thumbnails across nights: made once, linked after, made for kept covers that lack them, left
/// out with --no-thumbnails; and a realistic library's covers.
@Suite(.serialized)
struct ThumbnailNightTests {
    static let epoch = ["SOURCE_DATE_EPOCH": "1764000000"]

    static func thumbnails(in output: URL) -> [String] {
        SiteInspector(root: output).files().filter { $0.hasPrefix("covers/") && CoverFile.isWellFormed(thumbnailPath: $0) }
    }

    /// A first export into `output`, which makes the thumbnails: their paths, one of them, and
    /// that one's inode (a later night that links it keeps the inode).
    static func firstExportMakesThumbnails(_ server: RunningSampleServer, to output: URL) async throws
        -> (made: [String], sample: String, inode: UInt64) {
        let first = try await EndToEndTests.export(server, to: output, environment: epoch)
        #expect(first.output.contains("thumbnails made for"), "\(first.output)")
        let made = thumbnails(in: output)
        #expect(made.count >= 60)
        let sample = try #require(made.first)
        return (made, sample, try inode(output.appendingPathComponent(sample)))
    }

    static func inode(_ file: URL) throws -> UInt64 {
        try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? UInt64)
    }

    @Test func thumbnailsAreMadeOnceKeptAcrossNightsAndLeftOutOnRequest() async throws {
        // Pride and Prejudice's cover straight from the disk service: asked again each night, 304.
        var library = try SampleLibrary.bundled()
        library.updateBook(id: 101) { $0.cover = .external(SampleServer.diskCoverPath("pride-and-prejudice.jpg")) }
        var options = SampleServer.Options()
        options.loginDelay = .zero
        let server = try await SampleServer(library: library, options: options).start()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        let (made, sample, before) = try await Self.firstExportMakesThumbnails(server, to: output)

        // A night with one note changed: the snapshot is written anew, its thumbnails linked, none made.
        server.server.update { $0.updateBook(id: 110) { $0.comments += "<div>One more line.</div>" } }
        let second = try await EndToEndTests.export(server, to: output, environment: Self.epoch)
        #expect(!second.output.contains("thumbnails made for"), "\(second.output)")
        #expect(!second.output.contains("0 not modified"), "the 304 path was not taken: \(second.output)")
        #expect(Self.thumbnails(in: output) == made)
        #expect(try Self.inode(output.appendingPathComponent(sample)) == before)

        // --no-thumbnails: no thumbnail anywhere, pages load the covers themselves.
        let plain = try await EndToEndTests.export(server, to: output, extra: ["--no-thumbnails"], environment: Self.epoch)
        #expect(plain.status == 2)
        #expect(Self.thumbnails(in: output).isEmpty)
        let site = SiteInspector(root: output)
        let json = try #require(site.text("library.json"))
        #expect(!json.contains("\"thumbnails\""))
        for page in site.files() where page.hasSuffix(".html") {
            let html = try #require(site.text(page))
            #expect(!html.contains("srcset"), "\(page)")
            for link in SiteInspector.links(inHTML: html) where link.contains("covers/") {
                let target = output.appendingPathComponent(page).deletingLastPathComponent().appendingPathComponent(link).standardizedFileURL
                #expect(FileManager.default.fileExists(atPath: target.path), "\(page) links \(link)")
            }
        }

        // Thumbnails again: made from the kept covers, with no cover fetched again.
        let again = try await EndToEndTests.export(server, to: output, environment: Self.epoch)
        await server.stop()
        #expect(again.output.contains("thumbnails made for"), "\(again.output)")
        #expect(again.output.contains("Covers: 0 fetched"), "\(again.output)")
        #expect(Self.thumbnails(in: output) == made)
        // Every book's cover has them again, those copied from the last snapshot too.
        let books = try OpenLibraryTests.books(output)
        for (id, book) in books {
            guard let cover = book["cover"] as? [String: Any] else { continue }
            #expect((cover["thumbnails"] as? [Any])?.count == ThumbnailBox.all.count, "book \(id)")
        }
        // Every page's cover links resolve, srcset's included.
        for page in SiteInspector(root: output).files() where page.hasSuffix(".html") {
            let html = try #require(SiteInspector(root: output).text(page))
            let sources = SiteInspector.matches(of: #"srcset="([^"]*)""#, in: html).flatMap { $0.split(separator: ",").map { String($0.split(separator: " ")[0]) } }
            for link in sources {
                let target = output.appendingPathComponent(page).deletingLastPathComponent().appendingPathComponent(link).standardizedFileURL
                #expect(FileManager.default.fileExists(atPath: target.path), "\(page) links \(link)")
            }
        }
    }

    /// The same library from another address: every cover is fetched again (its address is new),
    /// but the thumbnails the last snapshot made of the same bytes are linked, not made again, and
    /// the books name them as before.
    @Test func theSameCoversFromAnotherAddressKeepTheirThumbnails() async throws {
        var options = SampleServer.Options()
        options.loginDelay = .zero
        let library = try SampleLibrary.bundled()
        let here = try await SampleServer(library: library, options: options).start()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        let (made, sample, before) = try await Self.firstExportMakesThumbnails(here, to: output)
        let covers = { (books: [Int: [String: Any]]) in
            books.compactMapValues { ($0["cover"] as? [String: Any]).map { NSDictionary(dictionary: $0) } }
        }
        let firstCovers = covers(try OpenLibraryTests.books(output))

        // Started while the first still runs: another port.
        let there = try await SampleServer(library: library, options: options).start()
        await here.stop()
        #expect(there.url != here.url)
        let second = try await EndToEndTests.export(there, to: output, environment: Self.epoch)
        await there.stop()
        #expect(!second.output.contains("Covers: 0 fetched"), "\(second.output)")
        #expect(!second.output.contains("thumbnails made for"), "\(second.output)")
        #expect(Self.thumbnails(in: output) == made)
        #expect(try Self.inode(output.appendingPathComponent(sample)) == before)
        #expect(covers(try OpenLibraryTests.books(output)) == firstCovers)
    }

    /// `render --from` a snapshot one of whose thumbnails is gone: that cover is shown whole on
    /// every page of every book that has it, the others keep their thumbnails, and every link
    /// resolves. Each cover's files are looked at once however many books share it.
    @Test func renderFromASnapshotMissingAThumbnailShowsThatCoverWhole() async throws {
        var options = SampleServer.Options()
        options.loginDelay = .zero
        let server = try await SampleServer(library: try SampleLibrary.bundled(), options: options).start()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let exported = folder.path("exported")
        _ = try await EndToEndTests.export(server, to: exported, environment: Self.epoch)
        await server.stop()
        let thumbnails = Self.thumbnails(in: exported)
        let gone = try #require(thumbnails.first)
        let hash = String(gone.dropFirst("covers/".count).prefix(32))
        try FileManager.default.removeItem(at: exported.appendingPathComponent(gone))

        let rendered = folder.path("rendered")
        let run = try await ToolRunner.run(["render", "--from", exported.appendingPathComponent("library.json").path,
                                            "--output", rendered.path], environment: Self.epoch)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("covers' thumbnails are not all beside library.json"), "\(run.output)")
        // The other covers' thumbnails are there; none of the one whose thumbnail went.
        let left = Self.thumbnails(in: rendered)
        #expect(!left.isEmpty && left.allSatisfy { !$0.contains(hash) })
        #expect(Set(left) == Set(thumbnails.filter { !$0.contains(hash) }))
        let books = try OpenLibraryTests.books(rendered)
        var whole = 0
        for (id, book) in books {
            guard let cover = book["cover"] as? [String: Any], let path = cover["path"] as? String else { continue }
            let count = (cover["thumbnails"] as? [Any])?.count
            if path.contains(hash) {
                #expect(count == nil, "book \(id) keeps thumbnails that are gone")
                whole += 1
            } else {
                #expect(count == ThumbnailBox.all.count, "book \(id)")
            }
        }
        #expect(whole >= 1)
        let site = SiteInspector(root: rendered)
        for page in site.files() where page.hasSuffix(".html") {
            let html = try #require(site.text(page))
            for link in SiteInspector.links(inHTML: html) where link.contains("covers/") {
                let target = rendered.appendingPathComponent(page).deletingLastPathComponent().appendingPathComponent(link).standardizedFileURL
                #expect(FileManager.default.fileExists(atPath: target.path), "\(page) links \(link)")
            }
        }
    }

    /// --history and --markdown-into keep the covers, not their thumbnails (made again from them).
    @Test func theHistoryAndTheVaultKeepCoversWithoutThumbnails() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library"), vault = folder.path("notes")
        let run = try await EndToEndTests.export(server, to: output, extra: ["--history", "--markdown-into", vault.path], environment: Self.epoch)
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        #expect(!Self.thumbnails(in: output).isEmpty)
        let (status, listed) = try await ToolRunner.runChecker("/usr/bin/git", ["--git-dir", historyFolder(of: output).path, "--work-tree", output.path, "ls-files", "covers"])
        #expect(status == 0, "\(listed)")
        let committed = listed.split(separator: "\n").map(String.init)
        #expect(committed.count >= 15 && committed.allSatisfy { CoverFile.isWellFormed(path: $0) }, "\(committed)")
        let kept = SiteInspector(root: vault.appendingPathComponent("Reader")).files().filter { $0.hasPrefix("covers/") }
        #expect(Set(kept) == Set(committed), "\(kept)")
    }

    /// Covers of real sizes, a quarter missing, and Open Library for those: thumbnails a fraction
    /// of the covers, the missing ones filled where Open Library has one, nothing asked the next night.
    @Test func aRealisticLibraryGetsItsCoversFilledAndSmall() async throws {
        var options = SampleServer.Options()
        options.loginDelay = .zero
        options.openLibrary = OpenLibraryDouble.Options()
        let library = try SampleLibrary.synthetic(books: 60, seed: 5).withRealCovers(seed: 5)
        let withoutCover = library.books.filter { $0.cover == nil }.count
        #expect(withoutCover >= 8 && withoutCover <= 25, "\(withoutCover) of 60 without a cover")
        let server = try await SampleServer(library: library, options: options).start()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        let first = try await OpenLibraryTests.export(server, to: output)
        #expect(first.status == 0, "\(first.output)")
        let books = try OpenLibraryTests.books(output)
        let filled = books.values.filter { ($0["cover"] as? [String: Any])?["source"] as? String == "openlibrary" }.count
        #expect(filled > 0 && filled <= withoutCover)
        #expect(books.values.filter { $0["open_library"] != nil }.count > 30)
        // The list's 1× thumbnails weigh a small part of the covers.
        var originals = 0, small = 0
        for book in books.values {
            guard let cover = book["cover"] as? [String: Any], let thumbnails = cover["thumbnails"] as? [[String: Any]] else { continue }
            originals += cover["bytes"] as? Int ?? 0
            small += thumbnails[1]["bytes"] as? Int ?? 0
        }
        #expect(originals > 0 && small * 10 < originals, "2× list thumbnails \(small) B against covers \(originals) B")
        let asked = server.server.openLibraryCounters
        let second = try await OpenLibraryTests.export(server, to: output)
        await server.stop()
        #expect(second.output.contains("No changes"), "\(second.output)")
        #expect(server.server.openLibraryCounters == asked)
    }
}
