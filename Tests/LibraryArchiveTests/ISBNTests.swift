import Testing
@testable import LibraryArchive

/// A book's ISBN, whichever form the server stores it in.
@Suite struct ISBNTests {
    @Test func bothFormsComeFromEither() {
        #expect(ISBN.forms("978-0-14-143951-8") == ("0141439513", "9780141439518"))
        #expect(ISBN.forms("0-8044-2957-X") == ("080442957X", "9780804429573"))
        #expect(ISBN.forms("080442957x") == ("080442957X", "9780804429573"))
        // A 979 ISBN has no ISBN-10.
        #expect(ISBN.forms("979-10-90636-07-1") == (nil, "9791090636071"))
        #expect(ISBN.forms("12345") == (nil, nil))
        #expect(ISBN.forms(nil) == (nil, nil))
    }

    /// The lookup key leaves the check digit out: a number stored with a wrong one, or a 13-digit
    /// number that is not an EAN, is still found by what a reader types.
    @Test func theLookupKeyIsTheFirstTwelveDigitsOfTheISBN13() {
        #expect(ISBN.lookupKey("9780141439518") == "978014143951")
        #expect(ISBN.lookupKey("978 0 14 143951 8") == "978014143951")
        #expect(ISBN.lookupKey("0141439513") == "978014143951")
        #expect(ISBN.lookupKey("0-8044-2957-X") == "978080442957")
        #expect(ISBN.lookupKey("9791090636071") == "979109063607")
        #expect(ISBN.lookupKey("9780141439519") == "978014143951", "a wrong check digit")
        #expect(ISBN.lookupKey("1234567890123") == "123456789012", "not an EAN")
        #expect(ISBN.lookupKey("<svg onload=alert('isbn')>") == nil)
        #expect(ISBN.lookupKey("") == nil)
        #expect(ISBN.lookupKey(nil) == nil)
    }
}
