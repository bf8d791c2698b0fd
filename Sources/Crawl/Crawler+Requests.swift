import Covers
import Foundation
import LibraryArchive
import Notes
import ReaderAPI
import Support

extension Crawler {
    /// One request of the crawl, with what it needs to be made and read off the crawl's task.
    struct Request: Sendable {
        var work: CrawlLedger.Work
        var client: ReaderClient
        var fetcher: CoverFetcher
        var spill: SpillFile
        /// False for a book on a deleted shelf: its 500 is the expected answer.
        var retryServerErrors: Bool
        var previous: LibraryFile?
        var reusable: [Int: Int]
        var retry: Crawler.Retry
        /// The list of books, when it was asked for already.
        var listing: Task<Handover<Data>, any Error>?

        /// What came back, and how many requests it took.
        func perform() async throws -> (CrawlRun.Event, Int) {
            switch work {
            case .shelf(let summary):
                return (.shelf(summary, try await answer { try await client.shelfBody(id: summary.id) }), 1)
            case .books:
                return (.books(try await listBooks()), 1)
            case .detail(let id):
                return (.detail(id, try await answer { try await client.bookBody(id: id, retryServerErrors: retryServerErrors) }), 1)
            case .cover(let url):
                try Task.checkCancellation()
                let (result, requests, line) = await fetcher.fetch(url)
                return (.cover(url, result, line: line), requests)
            }
        }

        /// The body, or the error that leaves this one request out; a 401 ends the crawl.
        private func answer(_ body: () async throws -> Data) async throws -> Swift.Result<Data, ReaderAPIError> {
            do {
                return .success(try await body())
            } catch let error as ReaderAPIError where !error.isUnauthorized {
                return .failure(error)
            }
        }

        /// A book at a time, its fields into the spill file: a big list is never held whole. Read
        /// on a thread of its own: 100,000 books take a second or two, and the shelves and details
        /// must not wait behind them.
        private func listBooks() async throws -> ListedBooks {
            // Taken from the request that went out beside the shelves, so that nothing else holds
            // the body once it is read; asked for anew if it was taken already.
            var early: Handover<Data>?
            if let listing {
                // Cancelled with this request (an outage ends the crawl at once), though started before it.
                early = try await withTaskCancellationHandler { try await listing.value } onCancel: { listing.cancel() }
            }
            let body: Data
            if let taken = early?.take() {
                body = taken
            } else {
                body = try await client.booksBody()
            }
            let reader = WorkerThread(name: "list reader")
            defer { reader.stop() }
            let (client, spill, previous, reusable, retry) = (client, spill, previous, reusable, retry)
            return try await reader.run {
                var books: [ListedBook] = []
                // Whether a book is unchanged is decided here: its date is not carried further.
                let user = try client.books(from: body) { book, element in
                    books.append(ListedBook(book, fields: try spill.append(element), previous: previous, reusable: reusable, retry: retry))
                }
                return ListedBooks(user: user, books: books)
            }
        }
    }

    /// A shelf's page from the answer's body, its books' fields into the spill file.
    static func readShelf(_ body: Data, of summary: ShelfSummary, client: ReaderClient, spill: SpillFile) throws -> Swift.Result<ShelfPage, ReaderAPIError> {
        do {
            let answer = try client.shelf(from: body, id: summary.id)
            let encoder = JSONEncoder()
            let books = try answer.books.map { ListedBook($0, fields: try spill.append(try encoder.encode($0.fields))) }
            return .success(ShelfPage(shelf: answer.shelf, books: books))
        } catch let error as ReaderAPIError where !error.isUnauthorized {
            return .failure(error)
        }
    }

    /// A book's details from the answer's body, its notes converted, held or into the spill file.
    static func readDetail(_ body: Data, of id: Int, client: ReaderClient, spill: SpillFile, noteLimit: Int, hold: Bool) throws -> Swift.Result<ReadDetail, ReaderAPIError> {
        let fields: BookFields
        do {
            fields = try client.book(from: body, id: id).book
        } catch let error as ReaderAPIError {
            return .failure(error)
        }
        let note = Note(receiving: fields.fields["comments"]?.text, limit: noteLimit, linkBase: client.server.url(path: "/"))
        let detail = Detail(fields: fields.fields, note: note)
        let place: DetailPlace = hold ? .held(detail) : .spilled(try spill.append(try JSONEncoder().encode(detail)))
        return .success(ReadDetail(place: place, imageURL: fields.text("image_url")))
    }
}
