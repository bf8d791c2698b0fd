import Foundation
import LibraryArchive
import Notes
import ReaderAPI
import SnapshotStore
import Support

extension Crawler {
    /// Everything a book is made from, as the crawl gathered it: where its fields lie in the spill
    /// file, or its place in the previous snapshot. Handed over a book at a time, so that books can
    /// be made while the crawl goes on without sharing its growing maps.
    struct BookSources: Sendable {
        var id: Int
        var listed: KeptBook?
        var onShelf: KeptBook?
        var details: DetailPlace?
        var failure: ReaderAPIError?
        /// Its place in the previous snapshot, when it is taken from there.
        var reused: Int?
    }

    /// The names of a JSON object's fields, without their values.
    struct FieldNames: Decodable {
        var names: [String]

        init(from decoder: Decoder) throws {
            names = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
        }
    }

    /// Makes each book from its sources, leaves out what privacy excludes, gives it its cover, and
    /// lays it out as `library.json` will hold it. Only reads what it is given: books are made on
    /// every core at once, or during the crawl.
    struct Assembly: @unchecked Sendable {
        /// Shelf names as they are now: a renamed shelf does not touch its books' dates.
        var shelfNames: [Int: String]
        var previous: Catalog?
        /// The last snapshot, for the books whose details fail tonight (even under `--full`).
        var last: Last?
        /// The covers' addresses the last run saw, by book id (`library.json` does not hold them).
        var lastAddresses = CoverAddresses()
        var spill: SpillFile
        var plan: Privacy.Plan?
        var privacy: Privacy
        var covers: CoverRecords?
        var noteLimit: Int
        var linkBase: URL?
        /// The previous snapshot was written by this same build: an unchanged book's bytes there
        /// are the bytes it would be written as now, and are copied rather than encoded again.
        var copiesUnchanged = false
        /// `--enrich openlibrary`: an unchanged book keeps what Open Library added to it (checked
        /// again after the crawl), so that its bytes can still be copied.
        var keepsOpenLibrary = false

        /// The last snapshot and where each of its books is.
        struct Last: @unchecked Sendable {
            var catalog: Catalog
            var places: [Int: Int]

            init(_ catalog: Catalog) {
                self.catalog = catalog
                var places: [Int: Int] = [:]
                places.reserveCapacity(catalog.count)
                for place in catalog.cards.indices { places[catalog.cards.id(at: place)] = place }
                self.places = places
            }
        }

        enum DetailsState: Sendable {
            case read, reused, missing
            case failed(ReaderAPIError)
        }

        struct Made: Sendable {
            var card: BookEntry
            /// As `library.json` lays it out, followed by ",\n".
            var entry: Data
            var details: DetailsState
            /// The cover's address when no cover is known for it (why is the crawl's to say).
            var coverMissing: String?
            /// Its bytes are the last snapshot's, copied.
            var copied = false
            /// Where a book kept from the last snapshot (copied, or encoded again) is among its cards:
            /// its card may be that one.
            var previousPlace: Int?
            /// Its details failed tonight: its note, fields and cover are the last snapshot's.
            var keptFromLast = false
            /// Its cover's address, for the next run.
            var imageURL: String?
        }

        /// The books, in that order; nil for a book privacy leaves out.
        func make(_ books: [BookSources]) throws -> [Made?] {
            try EveryCore.map(books.count, worker: { (encoder: LibraryLayout.encoder(), decoder: JSONDecoder()) }) { coders, index in
                try make(books[index], encoder: coders.encoder, decoder: coders.decoder)
            }
        }

        /// The books one after another, on the calling thread.
        func makeInTurn(_ books: [BookSources]) throws -> [Made?] {
            let encoder = LibraryLayout.encoder()
            let decoder = JSONDecoder()
            return try books.map { try make($0, encoder: encoder, decoder: decoder) }
        }

        func make(_ sources: BookSources, encoder: JSONEncoder, decoder: JSONDecoder) throws -> Made? {
            let id = sources.id
            let listed = try sources.listed.map { try spill.read($0.fields) }
            let shelved = try sources.onShelf.map { try spill.read($0.fields) }
            /// The book's fields from the list and its shelf (the list's first).
            func listedFields() throws -> [String: JSONValue] {
                var fields = try listed.map { try decoder.decode([String: JSONValue].self, from: $0) } ?? [:]
                if let shelved {
                    for (key, value) in try decoder.decode([String: JSONValue].self, from: shelved) where fields[key] == nil {
                        fields[key] = value
                    }
                }
                return fields
            }
            var book: Book
            var state: DetailsState
            var keptFromLast = false
            var asItWas: (book: Book, element: Data)?
            if let place = sources.reused, let previous {
                let (kept, element) = try previous.bookAndElement(at: place)
                if copiesUnchanged, let element { asItWas = (kept, element) }
                // The kept book's fields stand over the list's: when the list names no other
                // field, its values need not be read at all.
                let named = try [listed, shelved].allSatisfy { bytes in
                    try bytes.map { try decoder.decode(FieldNames.self, from: $0).names.allSatisfy { kept.serverFields[$0] != nil } } ?? true
                }
                var fields = named ? [:] : try listedFields()
                for (key, value) in kept.serverFields { fields[key] = value }
                if fields["image_url"] == nil, let address = lastAddresses[id] { fields["image_url"] = .string(address) }
                if let shelf = fields["shelf_id"]?.intValue, let name = shelfNames[shelf] { fields["shelf_name"] = .string(name) }
                book = Crawler.book(id: id, fields: fields, complete: true, note: kept.note)
                if keepsOpenLibrary {
                    book.openLibrary = kept.openLibrary
                    if (book.imageURL ?? "").trimmingCharacters(in: .whitespaces).isEmpty, kept.cover?.source == .openLibrary {
                        book.cover = kept.cover
                    }
                }
                state = .reused
            } else {
                var fields = try listedFields()
                var note: Note?
                if let place = sources.details {
                    let detail: Detail
                    switch place {
                    case .spilled(let range): detail = try decoder.decode(Detail.self, from: try spill.read(range))
                    case .held(let held): detail = held
                    case .used: preconditionFailure("book \(id) made again after it was kept")
                    }
                    for (key, value) in detail.fields { fields[key] = value }
                    note = detail.note
                    state = .read
                } else if let error = sources.failure {
                    state = .failed(error)
                } else {
                    state = .missing
                }
                let complete: Bool
                if case .read = state { complete = true } else { complete = false }
                // Only what had its details: a book the last snapshot knew from the list alone is made from the list again.
                if !complete, let last, let place = last.places[id], last.catalog.cards[place].complete {
                    // Tonight the server could not give the book: it stays as the last snapshot had
                    // it (its note above all), with what the list says now over the fields it had.
                    let kept = try last.catalog.book(at: place)
                    var merged = kept.serverFields
                    if let address = lastAddresses[id] ?? kept.imageURL { merged["image_url"] = .string(address) }
                    for (key, value) in fields { merged[key] = value }
                    book = Crawler.book(id: id, fields: merged, complete: kept.complete, note: kept.note)
                    book.openLibrary = kept.openLibrary
                    keptFromLast = true
                } else {
                    book = Crawler.book(id: id, fields: fields, complete: complete, noteLimit: noteLimit, linkBase: linkBase, note: note)
                }
            }
            if let plan {
                if plan.drops(book) { return nil }
                privacy.strip(&book)
            }
            var coverMissing: String?
            if let covers, let url = book.imageURL {
                // The same path is the same bytes, and this build reads them the same way.
                if let kept = asItWas?.book.cover, covers.names(kept, for: url) {
                    book.cover = kept
                } else if let record = covers[url] {
                    book.cover = record.file
                } else {
                    coverMissing = url
                }
            }
            // Dates and addresses on a card serve the next run, which reads them from library.json.
            var card = BookEntry(book)
            card.updatedAt = nil
            card.imageURL = nil
            // library.json holds no private field: a book is the same as it was when what it
            // publishes is.
            if let asItWas, asItWas.book.published == book.published {
                return Made(card: card, entry: LibraryLayout.entry(element: asItWas.element), details: state, coverMissing: coverMissing, copied: true,
                            previousPlace: sources.reused, keptFromLast: keptFromLast, imageURL: book.imageURL)
            }
            // Encoded again (the last snapshot was written by another build, or the book changed):
            // its card is still the last snapshot's when it shows the same. Without the place, the
            // first night after an upgrade packed 100,000 cards a second time beside the last
            // snapshot's, and a third time at the end (179 MB, where a night takes 135).
            return Made(card: card, entry: try LibraryLayout.entry(book, encoder: encoder), details: state, coverMissing: coverMissing,
                        previousPlace: sources.reused, keptFromLast: keptFromLast, imageURL: book.imageURL)
        }
    }
}
