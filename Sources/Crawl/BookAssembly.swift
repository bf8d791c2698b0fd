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
    struct Assembly: Sendable {
        /// Shelf names as they are now: a renamed shelf does not touch its books' dates.
        var shelfNames: [Int: String]
        var previous: LibraryFile?
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
        struct Last: Sendable {
            var library: LibraryFile
            var places: [Int: Int]

            init(_ library: LibraryFile) {
                self.library = library
                var places: [Int: Int] = [:]
                places.reserveCapacity(library.count)
                for place in library.entries.indices { places[library.entries.id(at: place)] = place }
                self.places = places
            }
        }

        enum DetailsState: Sendable {
            case read, reused, missing
            case failed(ReaderAPIError)
        }

        struct Made: Sendable {
            var bookEntry: BookEntry
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

        /// Where a book comes from tonight. Decided from the crawl's records alone, before a byte of
        /// the book is read, so that the choice is one pure function with a builder for each answer.
        enum Provenance: Sendable {
            /// Unchanged since the previous snapshot: taken from its place there.
            case reused(place: Int)
            /// Its details were read tonight.
            case read(DetailPlace)
            /// Its details failed or were not read tonight, and the last snapshot had the book whole:
            /// it stays as it was there (its note above all), with what the list says now over its fields.
            case keptFromLast(place: Int, state: DetailsState)
            /// Only the list's fields: a book the last snapshot knew from the list alone is made from
            /// the list again.
            case listed(state: DetailsState)
        }

        /// The provenance of a book with `sources`; `previousExists` says whether there is a previous
        /// snapshot to reuse from, and `wholeInLast` gives the book's place in the last snapshot when
        /// it was whole there (asked only for a book without details tonight: a lookup for every book
        /// would be work on the path every book takes).
        static func provenance(of sources: BookSources, previousExists: Bool, wholeInLast: () -> Int?) -> Provenance {
            if let place = sources.reused, previousExists { return .reused(place: place) }
            if let details = sources.details { return .read(details) }
            let state: DetailsState = sources.failure.map { .failed($0) } ?? .missing
            if let place = wholeInLast() { return .keptFromLast(place: place, state: state) }
            return .listed(state: state)
        }

        /// A book as its builder made it, before privacy and its cover.
        private struct Built {
            var book: Book
            var state: DetailsState
            var keptFromLast = false
            /// The previous snapshot's book and bytes, when they may be copied.
            var asItWas: (book: Book, element: Data)?
        }

        /// What the list and the book's shelf said of a book, read from the spill file.
        private struct ListedBytes {
            var listed: Data?
            var shelved: Data?

            /// The book's fields from the list and its shelf (the list's first).
            func fields(_ decoder: JSONDecoder) throws -> [String: JSONValue] {
                var fields = try listed.map { try decoder.decode([String: JSONValue].self, from: $0) } ?? [:]
                if let shelved {
                    for (key, value) in try decoder.decode([String: JSONValue].self, from: shelved) where fields[key] == nil {
                        fields[key] = value
                    }
                }
                return fields
            }

            /// Whether the list and the shelf name no field but those of `kept`.
            func nameOnly(_ kept: [String: JSONValue], _ decoder: JSONDecoder) throws -> Bool {
                try [listed, shelved].allSatisfy { bytes in
                    try bytes.map { try decoder.decode(FieldNames.self, from: $0).names.allSatisfy { kept[$0] != nil } } ?? true
                }
            }
        }

        func make(_ sources: BookSources, encoder: JSONEncoder, decoder: JSONDecoder) throws -> Made? {
            let bytes = ListedBytes(listed: try sources.listed.map { try spill.read($0.fields) },
                                    shelved: try sources.onShelf.map { try spill.read($0.fields) })
            let built: Built
            let provenance = Self.provenance(of: sources, previousExists: previous != nil) {
                last.flatMap { last in last.places[sources.id].flatMap { last.library.entries.isComplete(at: $0) ? $0 : nil } }
            }
            switch provenance {
            case .reused(let place):
                built = try reusedBook(sources.id, at: place, bytes: bytes, decoder: decoder)
            case .read(let details):
                built = try readBook(sources.id, details: details, bytes: bytes, decoder: decoder)
            case .keptFromLast(let place, let state):
                built = try keptBook(sources.id, at: place, state: state, bytes: bytes, decoder: decoder)
            case .listed(let state):
                let book = Crawler.book(id: sources.id, fields: try bytes.fields(decoder), complete: false, noteLimit: noteLimit, linkBase: linkBase, note: nil)
                built = Built(book: book, state: state)
            }
            return try finish(built, reused: sources.reused, encoder: encoder)
        }

        /// A book unchanged since the previous snapshot.
        private func reusedBook(_ id: Int, at place: Int, bytes: ListedBytes, decoder: JSONDecoder) throws -> Built {
            guard let previous else { preconditionFailure("book \(id) reused without a previous snapshot") }
            let (kept, element) = try previous.bookAndElement(at: place)
            // The kept book's fields stand over the list's: when the list names no other field, its
            // values need not be read at all.
            var fields = try bytes.nameOnly(kept.serverFields, decoder) ? [:] : try bytes.fields(decoder)
            for (key, value) in kept.serverFields { fields[key] = value }
            if fields["image_url"] == nil, let address = lastAddresses[id] { fields["image_url"] = .string(address) }
            if let shelf = fields["shelf_id"]?.intValue, let name = shelfNames[shelf] { fields["shelf_name"] = .string(name) }
            var book = Crawler.book(id: id, fields: fields, complete: true, note: kept.note)
            if keepsOpenLibrary {
                book.openLibrary = kept.openLibrary
                if (book.imageURL ?? "").trimmingCharacters(in: .whitespaces).isEmpty, kept.cover?.source == .openLibrary {
                    book.cover = kept.cover
                }
            }
            return Built(book: book, state: .reused, asItWas: copiesUnchanged ? element.map { (kept, $0) } : nil)
        }

        /// A book whose details were read tonight.
        private func readBook(_ id: Int, details: DetailPlace, bytes: ListedBytes, decoder: JSONDecoder) throws -> Built {
            let detail: Detail
            switch details {
            case .spilled(let range): detail = try decoder.decode(Detail.self, from: try spill.read(range))
            case .held(let held): detail = held
            case .used: preconditionFailure("book \(id) made again after it was kept")
            }
            var fields = try bytes.fields(decoder)
            for (key, value) in detail.fields { fields[key] = value }
            let book = Crawler.book(id: id, fields: fields, complete: true, noteLimit: noteLimit, linkBase: linkBase, note: detail.note)
            return Built(book: book, state: .read)
        }

        /// A book the server could not give tonight, as the last snapshot had it.
        private func keptBook(_ id: Int, at place: Int, state: DetailsState, bytes: ListedBytes, decoder: JSONDecoder) throws -> Built {
            guard let last else { preconditionFailure("book \(id) kept without a last snapshot") }
            let kept = try last.library.book(at: place)
            var fields = kept.serverFields
            if let address = lastAddresses[id] ?? kept.imageURL { fields["image_url"] = .string(address) }
            for (key, value) in try bytes.fields(decoder) { fields[key] = value }
            var book = Crawler.book(id: id, fields: fields, complete: kept.complete, note: kept.note)
            book.openLibrary = kept.openLibrary
            return Built(book: book, state: state, keptFromLast: true)
        }

        /// Leaves out what privacy excludes, gives the book its cover and lays it out; nil for a book
        /// privacy leaves out.
        private func finish(_ built: Built, reused: Int?, encoder: JSONEncoder) throws -> Made? {
            var book = built.book
            if let plan {
                if plan.drops(book) { return nil }
                privacy.strip(&book)
            }
            var coverMissing: String?
            if let covers, let url = book.imageURL {
                // The same path is the same bytes, and this build reads them the same way.
                if let kept = built.asItWas?.book.cover, covers.names(kept, for: url) {
                    book.cover = kept
                } else if let record = covers[url] {
                    book.cover = record.file
                } else {
                    coverMissing = url
                }
            }
            // Dates and addresses on an entry serve the next run, which reads them from library.json.
            var entry = BookEntry(book)
            entry.updatedAt = nil
            entry.imageURL = nil
            // library.json holds no private field: a book is the same as it was when what it
            // publishes is.
            if let asItWas = built.asItWas, asItWas.book.withoutPrivateFields == book.withoutPrivateFields {
                return Made(bookEntry: entry, entry: LibraryLayout.entry(element: asItWas.element), details: built.state, coverMissing: coverMissing, copied: true,
                            previousPlace: reused, keptFromLast: built.keptFromLast, imageURL: book.imageURL)
            }
            // Encoded again (the last snapshot was written by another build, or the book changed):
            // its entry is still the last snapshot's when it shows the same. Without the place, the
            // first night after an upgrade packed every entry a second time beside the last snapshot's.
            return Made(bookEntry: entry, entry: try LibraryLayout.entry(book, encoder: encoder), details: built.state, coverMissing: coverMissing,
                        previousPlace: reused, keptFromLast: built.keptFromLast, imageURL: book.imageURL)
        }
    }
}
