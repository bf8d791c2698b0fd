import Foundation
import Notes
import Support

extension Library {
    /// Sorted keys and a fixed layout: the same library gives the same bytes.
    package func jsonData() throws -> Data {
        var data = Data()
        try writeJSON { data.append($0) }
        return data
    }

    /// `library.json` piece by piece, one book at a time: the bytes JSONEncoder gives for the whole
    /// library (pretty, sorted keys), without building them all at once. A big library's JSON is
    /// larger than the library, and encoding it whole took more memory than anything else in a run.
    package func writeJSON(to sink: (Data) throws -> Void) throws {
        var frame = self
        frame.books = []
        let books = self.books
        try LibraryLayout.write(frame: frame, count: books.count, book: { books[$0] }, to: sink)
    }

    /// Reads `library.json` a book at a time, from the file in pieces: each element of the
    /// `books` array is decoded alone as soon as it has been read, so a big library is never held
    /// or parsed whole. A file laid out in a way the reader does not expect is decoded whole.
    package static func read(from url: URL) throws -> Library {
        let handle = try FileHandle(forReadingFrom: url)
        // Closing a file that was only read loses nothing.
        defer { try? handle.close() }
        var split = ArraySplitter()
        var books: [Book] = []
        let decoder = JSONDecoder()
        var whole = false
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            guard try split.feed(chunk, element: { books.append(try decoder.decode(Book.self, from: $0)) }) else {
                whole = true
                break
            }
        }
        var library: Library
        if whole || !split.isComplete {
            library = try JSONDecoder().decode(Library.self, from: try Data(contentsOf: url))
        } else {
            library = try decoder.decode(Library.self, from: split.frame)
            library.books = books
        }
        guard library.schemaVersion <= currentSchemaVersion else {
            throw SnapshotError(.unsupportedArchive(version: library.schemaVersion, supported: Library.currentSchemaVersion), path: url.path)
        }
        return library
    }
}
