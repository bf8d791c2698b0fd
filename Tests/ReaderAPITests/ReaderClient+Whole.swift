import Foundation
@testable import ReaderAPI

/// Whole answers in one call, for tests: the tool itself reads bodies off the threads answers
/// resume on, a book at a time.
extension ReaderClient {
    func shelf(id: Int) async throws -> ShelfAnswer {
        try shelf(from: try await shelfBody(id: id), id: id)
    }

    func book(id: Int, retryServerErrors: Bool = true) async throws -> BookAnswer {
        try book(from: try await bookBody(id: id, retryServerErrors: retryServerErrors), id: id)
    }

    func books(each: (BookFields, Data) throws -> Void) async throws -> String? {
        try books(from: try await booksBody(), each: each)
    }
}
