/// A book's ISBN in its two forms, from what the server gave (hyphens, spaces, either form).
package enum ISBN {
    /// The ISBN-10 and ISBN-13, each derived from the other where it can be.
    package static func forms(_ isbn: String?) -> (isbn10: String?, isbn13: String?) {
        // ASCII digits only: other scripts' digits (and "½") are numbers to Swift, not to an ISBN.
        let digits = (isbn ?? "").filter { ("0"..."9").contains($0) || $0 == "X" || $0 == "x" }.uppercased()
        if digits.count == 13, digits.allSatisfy({ ("0"..."9").contains($0) }) {
            return (digits.hasPrefix("978") ? isbn10(from: digits) : nil, digits)
        }
        if digits.count == 10 {
            return (digits, isbn13(from: digits))
        }
        return (nil, nil)
    }

    /// What "do I have this book?" looks a book up by: the first twelve digits of its ISBN-13, the
    /// check digit left out, so that a number stored with a wrong one is still found. From any form
    /// the server stores: hyphens or spaces, ISBN-10, ISBN-13, or another 13-digit number.
    package static func lookupKey(_ isbn: String?) -> String? {
        forms(isbn).isbn13.map { String($0.prefix(12)) }
    }

    static func isbn10(from isbn13: String) -> String {
        let core = Array(isbn13.dropFirst(3).prefix(9))
        let sum = core.enumerated().reduce(0) { $0 + (10 - $1.offset) * Int(String($1.element))! }
        let check = (11 - sum % 11) % 11
        return String(core) + (check == 10 ? "X" : String(check))
    }

    static func isbn13(from isbn10: String) -> String? {
        let core = "978" + isbn10.prefix(9)
        guard core.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        let sum = core.enumerated().reduce(0) { $0 + ($1.offset % 2 == 0 ? 1 : 3) * Int(String($1.element))! }
        return core + String((10 - sum % 10) % 10)
    }
}
