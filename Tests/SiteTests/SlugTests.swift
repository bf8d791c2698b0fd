import TestSupport
import Testing
@testable import Site

struct SlugTests {
    @Test(arguments: [
        ("Currently Reading 📖", "currently-reading"),
        ("Charlotte Brontë", "charlotte-bronte"),
        ("Alice's Adventures in Wonderland", "alices-adventures-in-wonderland"),
        ("Straße & Œuvre", "strasse-oeuvre"),
        ("  --Moby-Dick; or, The Whale--  ", "moby-dick-or-the-whale"),
        ("../../etc/passwd", "etc-passwd"),
        ("🤷‍♂️", ""),
        ("📚📚", ""),
    ])
    func slugs(_ name: String, _ slug: String) {
        #expect(Slug.make(name) == slug)
    }

    @Test func fileNamesKeepTheIDAndStayShort() {
        #expect(Slug.fileName(id: 5, name: "🤷‍♂️") == "5")
        #expect(Slug.fileName(id: 7, name: "Dune") == "7-dune")
        let long = Slug.fileName(id: 1, name: String(repeating: "word ", count: 100))
        #expect(long.count <= Slug.maximumLength + 2)
        #expect(!long.hasSuffix("-"))
    }

    @Test func transliteratesOtherScripts() {
        // ICU's Latin transform where Foundation has it; never anything but [a-z0-9-].
        let slug = Slug.make("Война и мир")
        #expect(slug.hasPrefix("vo"), "\(slug)")
        #expect(slug.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" })
    }
}
