import Foundation
import LibraryArchive
import Notes
import Support

extension Crawler {
    /// A book from every field the server gave; `note` is the already converted notes of a book
    /// taken from the previous snapshot.
    static func book(id: Int, fields: [String: JSONValue], complete: Bool, noteLimit: Int = Note.defaultLimit,
                     linkBase: URL? = nil, note: Note? = nil) -> Book {
        func text(_ key: String) -> String? {
            guard let value = fields[key]?.text, !value.isEmpty else { return nil }
            return value
        }
        /// What is shown of a name: no control characters, no direction overrides, bounded.
        func shown(_ key: String) -> String? {
            text(key).map(UntrustedText.displayable).flatMap { $0.isEmpty ? nil : $0 }
        }
        var kept = fields
        let comments = kept.removeValue(forKey: "comments")
        return Book(id: id, title: shown("title") ?? "", author: shown("author"), isbn: shown("isbn"),
                    shelfID: fields["shelf_id"]?.intValue, shelfName: shown("shelf_name"),
                    createdAt: text("created_at"), updatedAt: text("updated_at"), imageURL: text("image_url"),
                    note: note ?? Note(receiving: comments?.text, limit: noteLimit, linkBase: linkBase), complete: complete, serverFields: kept)
    }
}
