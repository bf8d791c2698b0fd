import Foundation
import Testing
@testable import Enrich

/// What Open Library says of an edition is free text of any shape: each field is taken only as a
/// checked value, and a field of an odd shape loses that field, not the edition.
@Suite struct OpenLibraryAnswerTests {
    @Test(arguments: [("March 2003", 2003), ("c1999.", 1999), ("2003", 2003), ("12345", nil), ("in 0999", nil), ("", nil), ("1851-10-18", 1851)] as [(String, Int?)])
    func aYearIsTheFirstPlausibleFourDigitYear(_ date: String, _ year: Int?) {
        #expect(OpenLibraryEdition.year(date) == year)
    }

    @Test func onlyAnEditionKeyAndACoverIDOfTheirOwnFormAreKept() {
        #expect(OpenLibraryEdition.editionKey("/books/OL22853304M") == "/books/OL22853304M")
        #expect(OpenLibraryEdition.editionKey("/books/OL22853304W") == nil)
        #expect(OpenLibraryEdition.editionKey("javascript:alert(1)") == nil)
        #expect(OpenLibraryEdition.coverID("https://covers.openlibrary.org/b/id/5546156-L.jpg") == 5546156)
        #expect(OpenLibraryEdition.coverID("https://covers.openlibrary.org/b/id/abc-L.jpg") == nil)
        #expect(OpenLibraryEdition.coverID("https://covers.openlibrary.org/b/isbn/978-L.jpg") == nil)
    }

    @Test func aFieldOfAnOddShapeLosesThatFieldNotTheEdition() throws {
        let json = #"""
        {"key": "/books/OL1M", "publishers": "not a list", "publish_date": "May 1851", "number_of_pages": "635",
         "subjects": [{"name": "Whaling"}, {"name": "whaling"}, {"name": " "}, {"name": "Sea stories"}],
         "cover": {"medium": "https://covers.openlibrary.org/b/id/42-M.jpg"}}
        """#
        let edition = try JSONDecoder().decode(OpenLibraryEdition.self, from: Data(json.utf8))
        let found = edition.found
        #expect(found.fields.key == "/books/OL1M" && found.fields.publisher == nil && found.fields.year == 1851)
        #expect(found.fields.subjects == ["Whaling", "Sea stories"], "\(found.fields.subjects)")
        #expect(found.coverID == 42)
    }
}
