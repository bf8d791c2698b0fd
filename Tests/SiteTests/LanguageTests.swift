import Foundation
import SampleServer
@testable import Site
import TestSupport
import Testing

/// The pages in the reader's language (`--language`): the strings files, plurals, numbers, dates
/// and order, and the built tool's pages in German, French and Spanish.
@Suite(.serialized)
struct LanguageTests {
    static let shipped = ["en", "de", "fr", "es"]

    static func language(_ tag: String) async throws -> Language {
        try await TemplateSet.bundled(language: tag).language
    }

    static func strings(_ tag: String) throws -> [String: String] {
        let folder = try #require(TemplateSet.bundledDirectory).appendingPathComponent("strings")
        let data = try Data(contentsOf: folder.appendingPathComponent(tag + ".strings"))
        return try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: String])
    }

    @Test func everyEnglishKeyIsInEachShippedLanguage() async throws {
        let english = try Self.strings("en")
        #expect(english.count > 100)
        for tag in Self.shipped.dropFirst() {
            let own = try Self.strings(tag)
            #expect(Set(english.keys).subtracting(own.keys).isEmpty, "\(tag) lacks \(Set(english.keys).subtracting(own.keys).sorted())")
            let language = try await Self.language(tag)
            #expect(language.missingKeys.isEmpty)
        }
    }

    @Test func pluralFormsFollowEachLanguagesRules() async throws {
        let expected: [String: [String]] = [
            "en": ["0 books", "1 book", "2 books", "5 books"],
            "de": ["0 Bücher", "1 Buch", "2 Bücher", "5 Bücher"],
            // French counts 0 as singular; English and Spanish do not.
            "fr": ["0 livre", "1 livre", "2 livres", "5 livres"],
            "es": ["0 libros", "1 libro", "2 libros", "5 libros"],
        ]
        for (tag, forms) in expected {
            let language = try await Self.language(tag)
            #expect([0, 1, 2, 5].map { language.count("books", $0) } == forms, "\(tag)")
        }
        // CLDR's "many" for a million in French and Spanish: "1 000 000 de livres".
        let fr = try await Self.language("fr"), es = try await Self.language("es")
        #expect(fr.count("books", 1_000_000).hasSuffix("de livres"))
        #expect(es.count("books", 1_000_000) == "1.000.000 de libros")
    }

    @Test func numbersAndDatesInEachLanguagesForm() async throws {
        let en = try await Self.language("en"), de = try await Self.language("de")
        let fr = try await Self.language("fr"), es = try await Self.language("es")
        // Numbers as ICU writes them in each language; English keeps its dates' ISO forms.
        #expect(en.number(1062) == "1,062" && en.count("books", 1062) == "1,062 books" && en.day("2024-01-03") == "2024-01-03")
        // English's numbers are written without loading ICU, as ICU writes them.
        for value in [0, 7, 999, 1000, 1062, 12345, 999_999, 1_000_000, 123_456_789, -1062] {
            #expect(en.number(value) == value.formatted(.number.locale(Locale(identifier: "en"))), "\(value)")
        }
        #expect(en.dateTime("2026-11-25T21:05:00Z") == "2026-11-25 21:05 UTC")
        // English's months too, without ICU, as ICU writes them; other languages' through ICU.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let icu = DateFormatter()
        (icu.locale, icu.calendar, icu.timeZone, icu.dateFormat) = (Locale(identifier: "en"), calendar, calendar.timeZone, "MMMM y")
        for month in 1...12 {
            let day = String(format: "2026-%02d-01", month)
            #expect(en.month(day) == icu.string(from: calendar.date(from: DateComponents(year: 2026, month: month, day: 1))!), "\(day)")
        }
        #expect(de.month("2026-03-01") == "März 2026" && es.month("2026-11-01") == "noviembre de 2026" && en.month("not a day") == "not a day")
        #expect(de.number(1062) == "1.062" && de.count("books", 1062) == "1.062 Bücher")
        #expect(fr.number(1062).unicodeScalars.map(\.value) == [0x31, 0x202F, 0x30, 0x36, 0x32])
        #expect(es.number(1062000) == "1.062.000")
        #expect(de.day("2026-11-25") == "25. November 2026")
        #expect(fr.day("2024-01-03") == "3 janvier 2024")
        #expect(es.day("2024-01-03") == "3 de enero de 2024")
        #expect(de.dateTime("2026-11-25T21:05:00Z") == "25. November 2026, 21:05 UTC")
        // The server's text is untrusted: what is not a date is shown as it is.
        #expect(de.day("gestern") == "gestern" && de.dateTime("2026-13-45T99:00:00Z") == "2026-13-45T99:00:00Z")
    }

    static func sorted(_ words: [String], _ language: Language) -> [String] {
        words.map { (language.sortKey($0), $0) }.sorted { $0 < $1 }.map(\.1)
    }

    @Test func listsAreSortedByEachLanguagesCollation() async throws {
        let de = try await Self.language("de"), es = try await Self.language("es"), en = try await Self.language("en")
        // German files "Ä" with "A" and "Ö" with "O", not after "Z".
        #expect(Self.sorted(["Zebra", "Öl", "Äpfel", "Ofen", "Apfel"], de) == ["Apfel", "Äpfel", "Ofen", "Öl", "Zebra"])
        // Spanish has "ñ" as a letter after "n".
        #expect(Self.sorted(["oso", "ñandú", "nube", "Nadal"], es) == ["Nadal", "nube", "ñandú", "oso"])
        // English ignores accents and case, as its pages always did.
        #expect(Self.sorted(["zoë", "Émile", "école", "Eclair", "apple"], en) == ["apple", "Eclair", "école", "Émile", "zoë"])
        // The authors' index headings: "Ä" under "A" in German, "Ñ" of its own in Spanish, "N" in English.
        #expect(de.letter(of: "Ärzte, Die") == "A" && es.letter(of: "Ñúñez, Ana") == "Ñ" && en.letter(of: "Ñúñez, Ana") == "N")
        #expect(de.letter(of: "1984 Collective") == "#" && en.letter(of: "ıșık") == "#")
        // A letter with a mark goes under its base where the language sorts them as one, and a
        // letter of another alphabet under "#"; Swedish has "Å" and "Ä" of its own, after "Z".
        #expect(de.letter(of: "Émile") == "E" && de.letter(of: "Жуков, Георгий") == "#")
        let swedish = Language(tag: "sv", strings: ["language.order": "collation"], english: [:])
        #expect(swedish.letter(of: "Åsa") == "Å" && swedish.letter(of: "Ärlig") == "Ä" && swedish.letter(of: "Émile") == "E")
        #expect(Self.sorted(["Åsa", "Zorn", "Ärlig", "Adam"], swedish) == ["Adam", "Zorn", "Åsa", "Ärlig"])
        // Surname particles per language: German files "von Goethe" under G, Spanish "de Cervantes"
        // under C, French keeps its articles with the surname ("Du Bellay") but not "de".
        let fr = try await Self.language("fr")
        #expect(AuthorIndex.surnameFirst("Johann Wolfgang von Goethe", particles: de.surnameParticles) == "Goethe, Johann Wolfgang von")
        #expect(AuthorIndex.surnameFirst("Miguel de Cervantes", particles: es.surnameParticles) == "Cervantes, Miguel de")
        #expect(AuthorIndex.surnameFirst("Simone de Beauvoir", particles: fr.surnameParticles) == "Beauvoir, Simone de")
        #expect(AuthorIndex.surnameFirst("Joachim du Bellay", particles: fr.surnameParticles) == "du Bellay, Joachim")
    }
}
