import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// Open Library as its Books API and covers service answer, on the sample server's own port under
/// `/openlibrary/`: batched `jscmd=data` lookups by ISBN, covers by id with `?default=false`, and
/// its failures — an ISBN it does not know, a cover that 404s, 429 or 403 when asked too fast, a
/// slow answer, a huge or a broken image, a decompression bomb. What it knows of an ISBN is made
/// from the ISBN, the same on every run; `overrides` pins an ISBN to one case.
public struct OpenLibraryDouble: Sendable {
    /// What the double says of one ISBN.
    public enum Entry: Sendable, Equatable {
        case notFound
        /// Known, with this cover (nil: no cover).
        case found(cover: CoverKind?)
    }

    public enum CoverKind: Int, Sendable, CaseIterable {
        /// A photo-like JPEG of a real cover's size.
        case image = 1
        /// 404 with `?default=false` (a blank 1×1 GIF without it, as the real service).
        case missing
        /// Larger than any cover limit (21 MB).
        case huge
        /// A JPEG cut short.
        case broken
        /// A PNG of a few bytes that claims 60,000 × 60,000 pixels.
        case bomb
    }

    public struct Options: Sendable {
        /// Asked again sooner than this after its last request: 429 from the API, 403 from the covers.
        public var minimumInterval: Duration?
        /// Every n-th request is refused as too soon, whatever the clock says: the tests' throttling,
        /// which a loaded machine's timing cannot change.
        public var refuseEvery: Int?
        /// Every answer waits this long.
        public var delay: Duration = .zero
        /// ISBN-13s pinned to one case.
        public var overrides: [String: Entry] = [:]
        public init() {}
    }

    /// What the double was asked, for the tests: a night with nothing new asks it nothing.
    public struct Counters: Sendable, Equatable {
        public var requests = 0
        public var apiRequests = 0
        public var isbnsAsked = 0
        public var coverRequests = 0
        public var refused = 0
    }

    /// A PNG of 87 bytes whose header claims 60,000 × 60,000 pixels (a decompression bomb).
    public static var bombImage: Data { OpenLibraryRoutes.bomb }
    /// A JPEG cut off at a third.
    public static var brokenImage: Data { OpenLibraryRoutes.broken }

    /// The case of an ISBN: about 1 in 10 unknown, 1 in 10 known without a cover, 1 in 17 covers missing.
    static func entry(_ isbn: String, overrides: [String: Entry]) -> Entry {
        if let pinned = overrides[isbn] { return pinned }
        let hash = fnv(isbn)
        if hash % 10 == 0 { return .notFound }
        if hash % 10 == 1 { return .found(cover: nil) }
        return .found(cover: hash % 17 == 0 ? .missing : .image)
    }

    /// A cover's id says what it is: the kind, then the ISBN's hash.
    static func coverID(_ isbn: String, kind: CoverKind) -> Int {
        kind.rawValue * 10_000_000 + Int(fnv(isbn) % 10_000_000)
    }

    static func fnv(_ text: String) -> UInt64 {
        var hasher = FNV1a()
        hasher.add(Data(text.utf8))
        return hasher.value
    }

    static let publishers = ["Penguin Classics", "Oxford World's Classics", "Vintage", "Dover Publications", "Modern Library",
                             "Reclam", "Everyman's Library", "Signet Classics"]
    static let subjects = ["Fiction", "Classic Literature", "Love stories", "Social classes", "England -- Fiction",
                           "Adventure stories", "Poetry", "Philosophy", "History", "Travel", "Science", "Fiction, general"]

    /// Written as Open Library writes them, which is not always as the server does.
    static let authors = ["Jane Austen", "Charles Dickens", "Homer", "Mary Shelley", "Herman Melville", "Emily Brontë", "Leo Tolstoy"]

    /// The `jscmd=data` answer for one known ISBN, in the real API's shape (empty fields left out,
    /// dates as free text, a page count sometimes a string).
    static func edition(_ isbn: String, cover: CoverKind?, base: String) -> [String: Any] {
        let hash = fnv(isbn)
        let key = "/books/OL\(1_000_000 + hash % 9_000_000)M"
        let year = 1850 + Int(hash % 170)
        let dates = ["\(year)", "March \(year)", "c\(year).", "\(year)-05-01"]
        var edition: [String: Any] = [
            "url": "https://openlibrary.org\(key)/edition",
            "key": key,
            "title": "Edition of \(isbn)",
            "identifiers": ["isbn_13": [isbn]],
            "publishers": [["name": publishers[Int(hash % UInt64(publishers.count))]]],
            "publish_date": dates[Int(hash / 7 % UInt64(dates.count))],
            "subjects": (0..<(2 + Int(hash / 11 % 4))).map { index in
                let name = subjects[(Int(hash / 13 % UInt64(subjects.count)) + index * 5) % subjects.count]
                return ["name": name, "url": "https://openlibrary.org/subjects/\(name.lowercased().replacingOccurrences(of: " ", with: "_"))"]
            },
        ]
        // Open Library names an edition's authors; the double one of the bundled library's, so that
        // an ISBN the library lacks leads to its books by the same author (`--lookup-online`).
        let author = authors[Int(hash / 19 % UInt64(authors.count))]
        edition["authors"] = [["url": "https://openlibrary.org/authors/OL\(1_000 + hash % 9_000)A", "name": author]]
        let pages = 96 + Int(hash / 17 % 700)
        edition["number_of_pages"] = hash % 5 == 0 ? "\(pages)" as Any : pages as Any
        if let cover {
            let id = coverID(isbn, kind: cover)
            edition["cover"] = ["small": "\(base)/covers/b/id/\(id)-S.jpg", "medium": "\(base)/covers/b/id/\(id)-M.jpg",
                                "large": "\(base)/covers/b/id/\(id)-L.jpg"]
        }
        return edition
    }
}

/// The double's routes and what it has answered.
final class OpenLibraryRoutes: Sendable {
    private struct State {
        var last: ContinuousClock.Instant?
        var arrivals = 0
        var counters = OpenLibraryDouble.Counters()
        var images: [Int: Data] = [:]
    }
    let options: OpenLibraryDouble.Options
    private let state = NIOLockedValueBox(State())

    init(options: OpenLibraryDouble.Options) {
        self.options = options
    }

    var counters: OpenLibraryDouble.Counters { state.withLockedValue { $0.counters } }
    func resetCounters() { state.withLockedValue { $0.counters = OpenLibraryDouble.Counters() } }

    /// Whether this request comes too soon after the last (which it then is).
    private func tooSoon() -> Bool {
        state.withLockedValue { state in
            let now = ContinuousClock.now
            defer { state.last = now }
            state.arrivals += 1
            if let every = options.refuseEvery, every > 0, state.arrivals % every == 0 {
                state.counters.refused += 1
                return true
            }
            guard let minimum = options.minimumInterval, let last = state.last else { return false }
            if now - last < minimum {
                state.counters.refused += 1
                return true
            }
            return false
        }
    }

    @Sendable func books(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let refused = tooSoon()
        if options.delay > .zero { try await Task.sleep(for: options.delay) }
        let query = request.uri.queryParameters
        let bibkeys = (query.get("bibkeys") ?? "").split(separator: ",").map(String.init)
        state.withLockedValue { state in
            state.counters.requests += 1
            state.counters.apiRequests += 1
            if !refused { state.counters.isbnsAsked += bibkeys.count }
        }
        if refused {
            return json(["status": 429, "message": "Too Many Requests. Consider using https://openlibrary.org/developers/dumps."], status: .tooManyRequests)
        }
        guard query.get("format") == "json", query.get("jscmd") == "data" else {
            return json([:], status: .ok)
        }
        let base = "http://\(request.head.authority ?? "127.0.0.1")/openlibrary"
        var answer: [String: Any] = [:]
        for bibkey in bibkeys where bibkey.hasPrefix("ISBN:") {
            let isbn = String(bibkey.dropFirst(5))
            if case .found(let cover) = OpenLibraryDouble.entry(isbn, overrides: options.overrides) {
                answer[bibkey] = OpenLibraryDouble.edition(isbn, cover: cover, base: base)
            }
        }
        return json(answer, status: .ok)
    }

    @Sendable func cover(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let refused = tooSoon()
        if options.delay > .zero { try await Task.sleep(for: options.delay) }
        state.withLockedValue { state in
            state.counters.requests += 1
            state.counters.coverRequests += 1
        }
        if refused {
            return Response(status: .forbidden, headers: [.contentType: "text/html"],
                            body: .init(byteBuffer: ByteBuffer(string: "<html><body><h1>403 Forbidden</h1></body></html>")))
        }
        let file = context.parameters.get("file") ?? ""
        let name = file.split(separator: ".").first.map(String.init) ?? ""
        let parts = name.split(separator: "-")
        guard parts.count == 2, let id = Int(parts[0]), ["S", "M", "L"].contains(parts[1]),
              let kind = OpenLibraryDouble.CoverKind(rawValue: id / 10_000_000) else {
            return notFound(request)
        }
        let data: Data
        switch kind {
        case .missing: return notFound(request)
        case .image: data = image(id)
        case .huge: data = Self.huge
        case .broken: data = Self.broken
        case .bomb: data = Self.bomb
        }
        let type = kind == .bomb ? "image/png" : "image/jpeg"
        return Response(status: .ok, headers: [.contentType: type, .cacheControl: "public, max-age=2592000"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A missing cover: 404 with `default=false`, else the blank 1×1 GIF the real service sends.
    private func notFound(_ request: Request) -> Response {
        if request.uri.queryParameters.get("default") == "false" {
            return Response(status: .notFound, headers: [.contentType: "text/html"],
                            body: .init(byteBuffer: ByteBuffer(string: "<html><body>Not Found</body></html>")))
        }
        let blank: [UInt8] = [0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0x80, 0, 0, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0x21, 0xF9, 4, 1, 0, 0, 0,
                              0, 0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3B]
        return Response(status: .ok, headers: [.contentType: "image/gif"], body: .init(byteBuffer: ByteBuffer(bytes: blank)))
    }

    /// A real cover's size: most are small, a few as large as the largest seen (1216 × 1800).
    private func image(_ id: Int) -> Data {
        if let kept = state.withLockedValue({ $0.images[id] }) { return kept }
        let width = [360, 400, 500, 600, 800, 1216][id % 6]
        let made = SampleCovers.jpeg(width: width, height: width * 3 / 2, seed: id) ?? Data()
        state.withLockedValue { $0.images[id] = made }
        return made
    }

    static let huge: Data = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(count: 21 << 20)
    static let broken: Data = {
        let whole = SampleCovers.jpeg(width: 400, height: 600, seed: 7) ?? Data()
        return whole.prefix(whole.count / 3)
    }()
    static let bomb: Data = PNGBomb.make(width: 60_000, height: 60_000)

    private func json(_ object: [String: Any], status: HTTPResponse.Status) -> Response {
        // The routes' own objects, of JSON's types: encoding them does not fail.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        // As openlibrary.org's API answers: any page may ask it from a browser.
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8", .accessControlAllowOrigin: "*"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// A PNG whose header claims a huge size, with a few bytes of data: what a decompression bomb
/// looks like to whoever reads its header.
enum PNGBomb {
    static func make(width: Int, height: Int) -> Data {
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return be32(body.count) + typed + be32(Int(crc32(typed)))
        }
        func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        let header = be32(width) + be32(height) + [8, 2, 0, 0, 0]
        // zlib's stored-block header and a few zero bytes: far too little for 60,000 rows.
        let data: [UInt8] = [0x78, 0x01, 0x01, 0x08, 0x00, 0xF7, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", data) + chunk("IEND", []))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
