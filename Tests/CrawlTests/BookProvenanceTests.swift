import ReaderAPI
import Testing
@testable import Crawl

/// Where a book comes from tonight, decided from the crawl's records alone: reused from the previous
/// snapshot, read tonight, kept from the last snapshot when its details fail, or made from the list.
struct BookProvenanceTests {
    typealias Assembly = Crawler.Assembly

    static func sources(reused: Int? = nil, details: Bool = false, failed: Bool = false) -> Crawler.BookSources {
        Crawler.BookSources(id: 7, listed: Crawler.KeptBook(shelfID: 1, fields: 0..<10), onShelf: nil,
                            details: details ? .spilled(10..<20) : nil,
                            failure: failed ? ReaderAPIError(.serverError(status: 500), request: "GET /api/v1/books/7") : nil,
                            reused: reused)
    }

    static func name(_ provenance: Assembly.Provenance) -> String {
        switch provenance {
        case .reused(let place): "reused \(place)"
        case .read: "read"
        case .keptFromLast(let place, .failed): "kept \(place), failed"
        case .keptFromLast(let place, let state): "kept \(place), \(state)"
        case .listed(.failed): "listed, failed"
        case .listed(let state): "listed, \(state)"
        }
    }

    static func decide(_ sources: Crawler.BookSources, previousExists: Bool = true, wholeInLast: Int? = nil) -> String {
        name(Assembly.provenance(of: sources, previousExists: previousExists) { wholeInLast })
    }

    @Test func anUnchangedBookIsReusedOnlyWhenThereIsAPreviousSnapshot() {
        #expect(Self.decide(Self.sources(reused: 3), wholeInLast: 5) == "reused 3")
        // Without the previous snapshot the same book is made from what tonight has.
        #expect(Self.decide(Self.sources(reused: 3, details: true), previousExists: false) == "read")
        #expect(Self.decide(Self.sources(reused: 3), previousExists: false) == "listed, missing")
    }

    @Test func detailsReadTonightWinOverTheLastSnapshot() {
        #expect(Self.decide(Self.sources(details: true), wholeInLast: 5) == "read")
        #expect(Self.decide(Self.sources(details: true, failed: true), wholeInLast: 5) == "read")
    }

    @Test func aBookWhoseDetailsFailIsKeptAsTheLastSnapshotHadItWhole() {
        #expect(Self.decide(Self.sources(failed: true), wholeInLast: 5) == "kept 5, failed")
        #expect(Self.decide(Self.sources(), wholeInLast: 5) == "kept 5, missing")
    }

    @Test func aBookTheLastSnapshotDidNotHaveWholeIsMadeFromTheList() {
        #expect(Self.decide(Self.sources(failed: true)) == "listed, failed")
        #expect(Self.decide(Self.sources()) == "listed, missing")
        #expect(Self.decide(Self.sources(failed: true), previousExists: false) == "listed, failed")
    }
}
