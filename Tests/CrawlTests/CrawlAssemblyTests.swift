import Foundation
import Logging
import SampleServer
import TestSupport
import Testing
@testable import Crawl
@testable import LibraryArchive
@testable import ReaderAPI
@testable import SnapshotStore
import Support

/// Books are made while the crawl's requests are in flight, as soon as all they need is in; the
/// rest at the end. Whichever way a book is made, and wherever its details waited (in memory or in
/// the spill file), `library.json` must be the same bytes.
@Suite(.serialized)
struct CrawlAssemblyTests {
    struct Crawled {
        var json: Data
        var library: LibraryFile
        var madeWhileCrawling: Int
        var sharedEntries: Int
        var covers: CoverRecords?
        var addresses: CoverAddresses
    }

    static func crawl(_ server: RunningSampleServer, whileCrawling: Bool, privacy: Privacy = Privacy(),
                      previous: LibraryFile? = nil, previousCovers: CoverRecords? = nil, previousFolder: URL? = nil, lastAddresses: CoverAddresses? = nil,
                      detailsHeldAtMost: Int = 1024, into folder: URL) async throws -> Crawled {
        let http = ReaderClient.makeHTTPClient(concurrency: 8)
        do {
            let client = ReaderClient(server: try ServerAddress(server.url), http: http)
            try await client.authenticate(.password(email: SampleLibrary.demoEmail, password: SampleLibrary.demoPassword))
            var crawler = Crawler(client: client, concurrency: 8, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
            crawler.content.privacy = privacy
            crawler.last = Crawler.LastRun(previous: previous, addresses: lastAddresses ?? CoverAddresses())
            crawler.makesBooksWhileCrawling = whileCrawling
            crawler.detailsHeldAtMost = detailsHeldAtMost
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let result = try await crawler.crawl(date: SnapshotDate(seconds: 1_700_000_000), writer: SnapshotWriter(root: folder, previous: previousFolder),
                                                 previousCovers: previousCovers)
            var json = Data()
            try result.library.writeJSON { json.append($0) }
            try await http.shutdown()
            return Crawled(json: json, library: result.library, madeWhileCrawling: result.madeWhileCrawling, sharedEntries: result.sharedEntries,
                           covers: result.covers, addresses: result.addresses)
        } catch {
            try? await http.shutdown()
            throw error
        }
    }

    @Test func booksMadeDuringTheCrawlAreTheBytesOfBooksMadeAtTheEnd() async throws {
        // A little latency, as on a network: books then come in while others are in flight. Books
        // on deleted shelves (details fail), covers that fail, books only a shelf lists.
        let server = try await SampleServer.startSynthetic(books: 400, seed: 5, latency: .milliseconds(2))
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let privacyCases = [Privacy(), Privacy(excludedShelves: ["2"], notes: false)]
        for (number, privacy) in privacyCases.enumerated() {
            // Every book waits for the end: the first 50 books' details in memory, or none.
            let atTheEnd = try await Self.crawl(server, whileCrawling: false, privacy: privacy, detailsHeldAtMost: number == 0 ? 50 : 0,
                                                into: folder.path("end-\(number)"))
            let during = try await Self.crawl(server, whileCrawling: true, privacy: privacy, into: folder.path("during-\(number)"))
            #expect(atTheEnd.madeWhileCrawling == 0)
            #expect(during.madeWhileCrawling > 100, "only \(during.madeWhileCrawling) of \(during.library.count) made while crawling")
            #expect(during.library.count > 150)
            #expect(during.json == atTheEnd.json, "privacy case \(number): library.json differs")
            #expect(during.library.entries.map(\.self) == atTheEnd.library.entries.map(\.self))
            // From a previous snapshot: unchanged books are taken from it, and made as their covers come.
            let again = try await Self.crawl(server, whileCrawling: true, privacy: privacy, previous: during.library,
                                             into: folder.path("again-\(number)"))
            let againAtTheEnd = try await Self.crawl(server, whileCrawling: false, privacy: privacy, previous: during.library,
                                                     into: folder.path("again-end-\(number)"))
            #expect(again.madeWhileCrawling > 0)
            #expect(again.json == againAtTheEnd.json, "privacy case \(number), second run: library.json differs")
            #expect(again.json == during.json)
            // From its library.json, which dates each book: the unchanged ones are not asked for.
            // The snapshot is not known to be this build's, so they are encoded again (as on the
            // first night after an upgrade), and their cards are still the snapshot's.
            let file = folder.path("during-\(number).json")
            try during.json.write(to: file)
            let written = try LibraryFile.read(from: file)
            let unchanged = written.entries.indices.filter { written.entries[$0].complete }.count
            for madeWhileCrawling in [true, false] {
                let run = try await Self.crawl(server, whileCrawling: madeWhileCrawling, privacy: privacy, previous: written,
                                               previousCovers: during.covers, previousFolder: folder.path("during-\(number)"), lastAddresses: during.addresses,
                                               into: folder.path("upgraded-\(number)-\(madeWhileCrawling)"))
                // Compared line by line: a difference between two big Data values takes Swift Testing minutes to describe.
                let lines = String(decoding: run.json, as: UTF8.self).split(separator: "\n")
                let expected = String(decoding: during.json, as: UTF8.self).split(separator: "\n")
                let first = zip(lines, expected).first { $0 != $1 }
                #expect(first == nil && lines.count == expected.count,
                        "privacy case \(number), after another build: library.json differs: \(first.map { "\($0.0)\n instead of \n\($0.1)" } ?? "in length")")
                #expect(run.sharedEntries == unchanged, "privacy case \(number): \(run.sharedEntries) cards shared of \(unchanged) books unchanged")
            }
        }
        await server.stop()
    }

    /// With thumbnails made beside the requests (their tasks, the covers held back while they are
    /// behind), the same bytes as books made at the end, and every cover with its thumbnails.
    @Test func booksWhoseCoversAreThumbnailedDuringTheCrawlAreTheBytesOfBooksMadeAtTheEnd() async throws {
        let server = try await SampleServer.startSynthetic(books: 300, seed: 7, latency: .milliseconds(2))
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let atTheEnd = try await Self.crawl(server, whileCrawling: false, into: folder.path("end"))
        let during = try await Self.crawl(server, whileCrawling: true, into: folder.path("during"))
        await server.stop()
        #expect(during.json == atTheEnd.json, "library.json differs")
        let covers = during.library.entries.compactMap(\.cover)
        #expect(covers.count > 200)
        #expect(covers.allSatisfy { $0.thumbnailsArePNG != nil })
    }
}
