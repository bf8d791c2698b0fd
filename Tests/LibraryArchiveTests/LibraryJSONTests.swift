import Foundation
import SampleServer
import TestSupport
import Testing
@testable import LibraryArchive
@testable import Notes
@testable import Support

/// `library.json` is written and read a book at a time; the bytes are those of encoding it whole.
@Suite struct LibraryJSONTests {
    /// Cards keep their text in chunks of a megabyte: 3 MB of cards of every size, some fields
    /// missing, some empty, one card longer than a chunk, each read back as it went in, in the
    /// order given and arranged in another.
    @Test func cardsReadBackWhateverChunkTheirTextFellIn() {
        var generator = SplitMix64(seed: 17)
        func text(_ length: Int) -> String { String((0..<length).map { _ in "aé🙂x—".randomElement(using: &generator)! }) }
        var cards: [BookEntry] = []
        var bytes = 0
        while bytes < 3 << 20 {
            let index = cards.count
            let card = BookEntry(id: index, title: index == 500 ? text(300_000) : text(Int.random(in: 0...400, using: &generator)),
                                author: index % 3 == 0 ? nil : text(Int.random(in: 0...60, using: &generator)),
                                isbn: index % 5 == 0 ? nil : "978\(index)", shelfID: index % 7 == 0 ? nil : index % 11,
                                shelfName: index % 7 == 0 ? nil : text(20), createdAt: index % 4 == 0 ? nil : "2024-01-02T03:04:05Z",
                                updatedAt: "2024-02-03T04:05:06Z", imageURL: index % 2 == 0 ? nil : "https://covers.example/\(index).jpg",
                                cover: index % 2 == 0 ? nil : CoverCard(path: "covers/\(index).jpg", width: index % 3 == 0 ? nil : 120, height: 180),
                                hasNote: index % 2 == 1, complete: index % 9 != 0)
            bytes += card.title.utf8.count + (card.author?.utf8.count ?? 0) + 80
            cards.append(card)
        }
        var list = EntryList(cards)
        #expect(list.count == cards.count)
        #expect(list.indices.allSatisfy { list[$0] == cards[$0] })
        let order = Array(cards.indices.shuffled(using: &generator))
        list.arrange(order)
        #expect(list.indices.allSatisfy { list[$0] == cards[order[$0]] && list.id(at: $0) == order[$0] })
    }

    /// The snapshot's date is made by hand from the C library's calendar: it must read as
    /// Foundation's ISO 8601 formatter reads the same second, leap days and far years included.
    @Test func snapshotDateIsWhatISO8601Gives() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        for epoch in [0, 1, 59, 951_782_400, 1_700_000_000, 1_709_164_799, 1_709_164_800, 2_147_483_648, 4_102_444_800, 253_402_300_799, -1, -86_401] {
            let date = SnapshotDate.now(environment: ["SOURCE_DATE_EPOCH": " \(epoch) "])
            #expect(date.text == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(epoch))), "\(epoch)")
            #expect(SnapshotDate(parsing: date.text) == date, "\(epoch) read back")
        }
        #expect(SnapshotDate.now(environment: ["SOURCE_DATE_EPOCH": "1700000000"]).text == "2023-11-14T22:13:20Z")
        let now = SnapshotDate.now(environment: [:]).text
        #expect(now.count == 20 && now.hasSuffix("Z") && now.hasPrefix(String(Calendar(identifier: .gregorian).component(.year, from: Date())).prefix(2)))
        // A date that cannot be read is no date, not 1970.
        for bad in ["", "yesterday", "2023-11-14", "2023-11-14T22:13:20+01:00"] { #expect(SnapshotDate(parsing: bad) == nil, "\(bad)") }
    }

    /// Strings that could confuse a reader that splits the file: quotes, backslashes, braces,
    /// brackets, line breaks, a "books" key inside a book, and text outside ASCII.
    static func awkwardLibrary(books count: Int = 3) -> Library {
        var books: [Book] = []
        for id in 1...max(1, count) {
            books.append(Book(id: id, title: "Title \(id) with \"quotes\", {braces} and [brackets] \\ ]}", author: id == 2 ? nil : "Åsa Öberg",
                              isbn: "978\(id)", shelfID: 1, createdAt: "2024-01-0\(id % 9 + 1)T00:00:00Z",
                              note: Note(receiving: "<div>Line one<br>line two with \"books\" : [ and }</div>"),
                              serverFields: ["books": .array([.string("]"), .object(["books": .string("[")])]), "title": .string("raw\ntitle")]))
        }
        if count == 0 { books = [] }
        return Library(generatedAt: "2026-11-22T00:00:00Z", server: "http://127.0.0.1:1", user: "reader@example.com", userID: 1,
                       shelves: [Shelf(id: 1, name: "Shelf \"books\" : [", bookCount: count, bookIDs: books.map(\.id))],
                       books: books, problems: [Problem(kind: .cover, bookID: 1, message: "a [problem] {with} \"books\"")])
    }

    static func wholeEncoding(_ library: Library) throws -> Data {
        try LibraryLayout.encoder().encode(library) + Data([0x0A])
    }

    @Test(arguments: [0, 1, 3, 50])
    func writtenBookByBookIsTheSameBytesAsEncodedWhole(books: Int) throws {
        let library = Self.awkwardLibrary(books: books)
        var pieces = 0
        var streamed = Data()
        try library.writeJSON { streamed.append($0); pieces += 1 }
        #expect(streamed == (try Self.wholeEncoding(library)))
        if books > 1 { #expect(pieces > books, "written in pieces, not at once") }
    }

    @Test(arguments: [0, 3, 50])
    func readBookByBookGivesTheSameLibrary(books: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let library = Self.awkwardLibrary(books: books)
        let file = folder.path("library.json")
        try library.jsonData().write(to: file)
        #expect(try Library.read(from: file) == library)
    }

    /// The file arrives in pieces of any size: a piece may end inside a string, after a backslash,
    /// inside the "books" key or between two books. The books and the frame come out the same.
    @Test func splitInPiecesOfAnySizeGivesTheSameBooks() throws {
        var library = Self.awkwardLibrary(books: 7)
        // One quote alone, then brackets: a reader that missed the backslash would end the string there.
        library.books[2].title = "A lone \" and then ]} [{ \\\" \\"
        let whole = try Self.wholeEncoding(library)
        func split(_ size: Int) -> (books: [Data], offsets: [Int], frame: Data, complete: Bool) {
            var splitter = ArraySplitter()
            var books: [Data] = [], offsets: [Int] = []
            var start = 0
            while start < whole.count {
                let piece = whole.subdata(in: start..<min(whole.count, start + size))
                let laidOut = splitter.feed(piece, located: { books.append($0); offsets.append($1) })
                #expect(laidOut)
                start += size
            }
            return (books, offsets, splitter.frame, splitter.isComplete)
        }
        let once = split(whole.count)
        #expect(once.complete && once.books.count == 7)
        for (book, offset) in zip(once.books, once.offsets) {
            #expect(whole.subdata(in: offset..<offset + book.count) == book)
            #expect((try? JSONDecoder().decode(Book.self, from: book)) != nil)
        }
        let frame = try JSONDecoder().decode(Library.self, from: once.frame)
        #expect(frame.books.isEmpty && frame.shelves.first?.name == "Shelf \"books\" : [")
        for size in [1, 2, 3, 5, 8, 13, 64, 1000] {
            let pieces = split(size)
            #expect(pieces.books == once.books && pieces.offsets == once.offsets && pieces.frame == once.frame && pieces.complete, "pieces of \(size)")
        }
        // Not a library's layout: said so, whatever the pieces.
        for odd in [#"{"books": [1, 2]}"#, #"{"books": [{"id": 1} x]}"#] {
            var splitter = ArraySplitter()
            let laidOut = splitter.feed(Data(odd.utf8), element: { _ in })
            #expect(!laidOut, "\(odd)")
        }
    }

    @Test func otherLayoutsOfTheSameJSONAreReadToo() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let library = Self.awkwardLibrary(books: 4)
        // Compact, with the books last, as another tool might write it.
        let compact = try JSONEncoder().encode(library)
        var object = try #require(try JSONSerialization.jsonObject(with: compact) as? [String: Any])
        let books = object.removeValue(forKey: "books")
        var text = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        text.removeLast()
        text += ",\"books\":" + String(decoding: try JSONSerialization.data(withJSONObject: books!), as: UTF8.self) + "}"
        for (name, data) in [("compact.json", compact), ("books-last.json", Data(text.utf8))] {
            let file = folder.path(name)
            try data.write(to: file)
            #expect(try Library.read(from: file) == library, "\(name)")
        }
    }

    /// A server's fields are kept as their kind of JSON: a number that is whole stays an integer,
    /// "3" stays a string, and booleans, nulls and nesting come back as they went.
    @Test func everyKindOfFieldIsKeptAsItsKind() throws {
        let json = #"{"s":"3","i":3,"d":3.5,"big":1e300,"t":true,"f":false,"n":null,"e":"","a":[1,"1",false,null,[]],"o":{"k":{"x":-2}}}"#
        let fields = try JSONDecoder().decode([String: JSONValue].self, from: Data(json.utf8))
        #expect(fields == ["s": .string("3"), "i": .int(3), "d": .double(3.5), "big": .double(1e300), "t": .bool(true), "f": .bool(false),
                           "n": .null, "e": .string(""), "a": .array([.int(1), .string("1"), .bool(false), .null, .array([])]),
                           "o": .object(["k": .object(["x": .int(-2)])])])
        let again = try JSONDecoder().decode([String: JSONValue].self, from: try JSONEncoder().encode(fields))
        #expect(again == fields)
    }

    @Test func aBrokenFileIsAnErrorNotACrash() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let whole = try Self.awkwardLibrary(books: 3).jsonData()
        for cut in [1, whole.count / 3, whole.count / 2, whole.count - 2] {
            let file = folder.path("cut-\(cut).json")
            try whole.prefix(cut).write(to: file)
            #expect(throws: (any Error).self) { try Library.read(from: file) }
        }
    }
}

/// Answers are checked for UTF-8 where they lie; only broken ones are copied, mended.
struct UTF8CheckTests {
    @Test func validAndBrokenUTF8() {
        #expect(UntrustedText.isValidUTF8(Data("plain, é, 日本, 🤷‍♂️".utf8)))
        #expect(!UntrustedText.isValidUTF8(Data([0x41, 0xFF, 0x42])))
        #expect(!UntrustedText.isValidUTF8(Data([0xE6, 0x97])), "cut in the middle of a character")
        #expect(UntrustedText.repairedUTF8(Data("fine".utf8)) == nil)
        #expect(UntrustedText.repairedUTF8(Data([0x41, 0xFF, 0x42])) == Array("A\u{FFFD}B".utf8))
    }

    @Test func anEntryIsItsElementIndentedAndTheLayoutSaysWhereTheElementLies() throws {
        let library = LibraryJSONTests.awkwardLibrary(books: 2)
        let encoder = LibraryLayout.encoder()
        for book in library.books {
            let element = try LibraryLayout.element(book, encoder: encoder)
            let entry = try LibraryLayout.entry(book, encoder: encoder)
            #expect(LibraryLayout.entry(element: element) == entry)
            #expect(entry.subdata(in: LibraryLayout.element(inEntry: 0..<entry.count)) == element)
            #expect(try JSONDecoder().decode(Book.self, from: element) == book)
            // The element stands in the written file exactly as the layout says.
            #expect(try library.jsonData().range(of: element) != nil)
        }
    }
}
