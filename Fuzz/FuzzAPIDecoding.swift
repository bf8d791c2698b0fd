// libFuzzer target: every API answer shape, decoded from arbitrary bytes, must give a value or an
// error, never a crash; what decodes must convert to a book and a note.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAPIDecoding(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(bytes: data, count: size)
    let decoder = JSONDecoder()
    _ = try? decoder.decode(ShelvesAnswer.self, from: bytes)
    _ = try? decoder.decode(LoginAnswer.self, from: bytes)
    if let shelf = try? decoder.decode(ShelfAnswer.self, from: bytes) {
        for book in shelf.books { _ = UntrustedText.displayable(book.text("title") ?? "") }
    }
    if let books = try? decoder.decode(BooksAnswer.self, from: bytes) {
        for book in books.books { _ = book.int("shelf_id") }
    }
    if let answer = try? decoder.decode(BookAnswer.self, from: bytes) {
        let note = Note(receiving: answer.book.text("comments"), limit: 64 << 10)
        _ = note.markdown
    }
    return 0
}
