import Foundation
import LibraryArchive
import Notes

/// A small library whose every text a server could send is hostile: markup in a shelf's name, a
/// script in a title, a note with a javascript: link, a heading in a title, a book on a deleted shelf.
package enum SmallLibrary {
    package static func hostile() -> Library {
        Library(
            generatedAt: "2024-05-06T07:08:09Z", server: "https://reader.example.com", user: "me+<img src=x onerror=alert(1)>@example.com", userID: 1,
            shelves: [Shelf(id: 1, name: "Sci-Fi <b>& more</b>", bookCount: 2, bookIDs: [7, 8]),
                      Shelf(id: 2, name: "🤷‍♂️", bookCount: 0, bookIDs: [])],
            books: [
                Book(id: 7, title: "Dune \"<script>alert(1)</script>\"", author: "Frank Herbert", isbn: "9780441013593", shelfID: 1,
                     note: Note(receiving: "<div>Loved <em>it</em>.<br><br><a href=\"javascript:alert(1)\">x</a></div>")),
                Book(id: 8, title: "# Not: a heading\n---", author: nil, isbn: nil, shelfID: 1),
                Book(id: 9, title: "Lost", shelfID: 99, shelfName: "Deleted shelf", complete: false),
            ],
            problems: [Problem(kind: .bookDetails, bookID: 9, message: "GET /api/v1/books/9: the server failed (HTTP 500)")])
    }
}
