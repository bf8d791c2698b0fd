import Foundation
import SampleServer
import TestSupport
import Testing

/// What a run says of its gaps: the same way on the first night and on a re-run (a warning each,
/// ten at most, then a count), nothing of known ones under `--quiet`, and covers counted the same
/// way in the summary's two lines.
@Suite(.serialized)
struct GapReportTests {
    static let sharedCover = "http://127.0.0.1:9/shared-cover.jpg"

    /// The bundled library (three covers and two books' details fail), with the covers of twelve
    /// more books on a host that is gone, and two books that share one cover address, which fails.
    static func library() throws -> SampleLibrary {
        var library = try SampleLibrary.bundled()
        var books = library.books
        for index in 0..<12 { books[index].cover = .thirdPartyGone }
        books[12].cover = .external(sharedCover)
        books[13].cover = .external(sharedCover)
        library.books = books
        return library
    }

    static func lines(_ run: ToolRun) -> [String] { run.stderr.components(separatedBy: "\n") }

    /// "Covers: 9 fetched, 0 unchanged, 16 failed…" → 16.
    static func coversFailed(_ run: ToolRun) throws -> Int {
        let line = try #require(lines(run).first { $0.hasPrefix("Covers: ") }, "\(run.stderr)")
        let words = line.components(separatedBy: " ")
        let index = try #require(words.firstIndex { $0.hasPrefix("failed") })
        return try #require(Int(words[index - 1]), "\(line)")
    }

    @Test func aCoverTwoBooksShareIsCountedOnceInBothLines() async throws {
        let server = try await EndToEndTests.startServer(try Self.library())
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let run = try await EndToEndTests.export(server, to: folder.path("snapshot"))
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        let failed = try Self.coversFailed(run)
        let archive = try #require(SiteInspector(root: folder.path("snapshot")).data("library.json"))
        let library = try #require(try JSONSerialization.jsonObject(with: archive) as? [String: Any])
        let books = try #require(library["problems"] as? [[String: Any]]).filter { $0["kind"] as? String == "cover" }.count
        // Two books share the one failing address: one cover fewer than books.
        #expect(books == failed + 1, "\(run.stderr)")
        #expect(run.stderr.contains("\(failed) covers not fetched for \(books) books (listed in the snapshot)."), "\(run.stderr)")
    }

    @Test func aReRunSaysItsKnownGapsAsTheFirstRunDidAndQuietSaysNothing() async throws {
        let server = try await EndToEndTests.startServer(try Self.library())
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("snapshot")
        let first = try await EndToEndTests.export(server, to: output)
        let again = try await EndToEndTests.export(server, to: output)
        let quiet = try await EndToEndTests.export(server, to: output, extra: ["--quiet"])
        await server.stop()
        for run in [first, again] {
            #expect(run.status == 2, "\(run.output)")
            let said = Self.lines(run).filter { $0.contains(": cover not fetched: ") }
            // Ten named, each a warning, then a count of the rest (17 books lack their cover).
            #expect(said.count == 10 && said.allSatisfy { $0.hasPrefix("warning: Book ") }, "\(run.stderr)")
            #expect(Self.lines(run).contains("warning: … and 7 more books whose cover was not fetched, listed in the snapshot"), "\(run.stderr)")
            #expect(Self.lines(run).contains { $0.hasPrefix("warning: Written with gaps: ") }, "\(run.stderr)")
            // No gap is said without its prefix.
            #expect(!Self.lines(run).contains { $0.wholeMatch(of: /Book \d+: .*/) != nil || $0.hasPrefix("Written with gaps") }, "\(run.stderr)")
        }
        // A night that brought no news prints nothing under --quiet.
        #expect(quiet.status == 2 && quiet.stderr.isEmpty && quiet.stdout.isEmpty, "\(quiet.output)")
    }
}
