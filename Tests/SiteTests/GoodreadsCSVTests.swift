import TestSupport
import Testing
@testable import Site

/// The cells of `library.csv`, as a spreadsheet splits them.
@Suite struct GoodreadsCSVTests {
    @Test func aCellWithACommaAQuoteOrALineBreakIsQuoted() {
        #expect(GoodreadsCSV.field("Plain text") == "Plain text")
        #expect(GoodreadsCSV.field("Herbert, Frank") == "\"Herbert, Frank\"")
        #expect(GoodreadsCSV.field("The \"Dune\" saga") == "\"The \"\"Dune\"\" saga\"")
        #expect(GoodreadsCSV.field("one\ntwo") == "\"one\ntwo\"")
        // A Windows line break is one character in Swift, neither "\r" nor "\n": its bytes are both.
        #expect(GoodreadsCSV.field("one\r\ntwo") == "\"one\r\ntwo\"")
        // A comma or a quote with a combining mark on it is still a comma or a quote to a spreadsheet.
        #expect(GoodreadsCSV.field("a,\u{301}b") == "\"a,\u{301}b\"")
        #expect(GoodreadsCSV.field("a\"\u{301}b") == "\"a\"\"\u{301}b\"")
        #expect(GoodreadsCSV.field("Brontë — Jane Eyre") == "Brontë — Jane Eyre")
    }

    /// The header row is Goodreads' own export's, word for word and in its order: an importer
    /// finds its columns by these names.
    @Test func theHeaderIsGoodreadsExportHeader() {
        let goodreads = "Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,"
            + "Binding,Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,"
            + "Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies"
        #expect(GoodreadsCSV.header.joined(separator: ",") == goodreads)
    }
}
