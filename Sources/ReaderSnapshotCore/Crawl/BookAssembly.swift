import Foundation

extension Crawler {
    /// Makes each book from what the crawl gathered (the list, the shelves, the details in the spill
    /// file or the previous snapshot), leaves out what privacy excludes, gives it its cover, and
    /// lays it out as `library.json` will hold it. Only reads what it is given: books are made on
    /// every core at once.
    struct Assembly: @unchecked Sendable {
        var listed: [Int: KeptBook]
        var onShelves: [Int: KeptBook]
        var details: [Int: Range<Int>]
        var detailFailures: [Int: ReaderAPIError]
        /// Books taken from the previous snapshot, by their place in it.
        var reused: [Int: Int]
        /// Shelf names as they are now: a renamed shelf does not touch its books' dates.
        var shelfNames: [Int: String]
        var previous: Catalog?
        var spill: SpillFile
        var plan: Privacy.Plan?
        var privacy: Privacy
        var covers: CoverRecords?
        var coverFailures: [String: CoverProblem]
        var noteLimit: Int
        var linkBase: URL?

        enum DetailsState {
            case read, reused, missing
            case failed(ReaderAPIError)
        }

        struct Made {
            var card: BookCard
            /// As `library.json` lays it out, followed by ",\n".
            var piece: Data
            var details: DetailsState
            var coverProblem: CoverProblem?
        }

        /// The books of `ids`, in that order; nil for a book privacy leaves out.
        func make(_ ids: [Int]) throws -> [Made?] {
            var made = [Made?](repeating: nil, count: ids.count)
            let failures = JobQueue()
            let workers = max(1, min(ids.count, ProcessInfo.processInfo.activeProcessorCount))
            made.withUnsafeMutableBufferPointer { out in
                nonisolated(unsafe) let out = out
                DispatchQueue.concurrentPerform(iterations: workers) { worker in
                    let encoder = Library.encoder()
                    let decoder = JSONDecoder()
                    for offset in stride(from: worker, to: ids.count, by: workers) {
                        do {
                            out[offset] = try make(ids[offset], encoder: encoder, decoder: decoder)
                        } catch {
                            failures.record(error, at: offset)
                        }
                    }
                }
            }
            if let error = failures.error { throw error }
            return made
        }

        private func make(_ id: Int, encoder: JSONEncoder, decoder: JSONDecoder) throws -> Made? {
            var fields = try listed[id].map { try decoder.decode([String: JSONValue].self, from: try spill.read($0.fields)) } ?? [:]
            if let shelved = onShelves[id] {
                for (key, value) in try decoder.decode([String: JSONValue].self, from: try spill.read(shelved.fields)) where fields[key] == nil {
                    fields[key] = value
                }
            }
            var book: Book
            var state: DetailsState
            if let place = reused[id], let previous {
                let kept = try previous.book(at: place)
                for (key, value) in kept.serverFields { fields[key] = value }
                if let shelf = fields["shelf_id"]?.intValue, let name = shelfNames[shelf] { fields["shelf_name"] = .string(name) }
                book = Crawler.book(id: id, fields: fields, complete: true, note: kept.note)
                state = .reused
            } else {
                var note: Note?
                if let range = details[id] {
                    let detail = try decoder.decode(Detail.self, from: try spill.read(range))
                    for (key, value) in detail.fields { fields[key] = value }
                    note = detail.note
                    state = .read
                } else if let error = detailFailures[id] {
                    state = .failed(error)
                } else {
                    state = .missing
                }
                let complete: Bool
                if case .read = state { complete = true } else { complete = false }
                book = Crawler.book(id: id, fields: fields, complete: complete, noteLimit: noteLimit, linkBase: linkBase, note: note)
            }
            if let plan {
                if plan.drops(book) { return nil }
                privacy.strip(&book)
            }
            var coverProblem: CoverProblem?
            if let covers, let url = book.imageURL {
                if let record = covers[url] {
                    book.cover = record.file
                } else {
                    coverProblem = coverFailures[url]
                }
            }
            // Dates and addresses on a card serve the next run, which reads them from library.json.
            var card = BookCard(book)
            card.updatedAt = nil
            card.imageURL = nil
            return Made(card: card, piece: try Library.piece(book, encoder: encoder), details: state, coverProblem: coverProblem)
        }
    }
}
