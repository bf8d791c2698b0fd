import CICU
import Foundation

// Every call into ICU is in this file, and each answer becomes a Swift value at once. Foundation
// sorts and formats through ICU too, but it does not offer plural rules or sort keys.

/// The CLDR plural rules of one language: which form of a word a number takes ("one", "few",
/// "many", "other"…). English says "1 book, 2 books"; French "0 livre, 1 livre, 2 livres"; Polish
/// has a form for 2–4 and another for 5–21.
final class PluralRules: @unchecked Sendable {
    // ICU's plural rules are immutable once open: selecting from several threads is safe.
    private let rules: UnsafeMutableRawPointer

    init?(language tag: String) {
        guard let rules = rs_plural_rules_open(Self.icuLocale(tag)) else { return nil }
        self.rules = rules
    }

    deinit { rs_plural_rules_close(rules) }

    /// The CLDR category of `count`: "zero", "one", "two", "few", "many" or "other".
    func category(_ count: Int) -> String {
        var keyword = [UInt16](repeating: 0, count: 16)
        let length = rs_plural_rules_select(rules, Double(count), &keyword, Int32(keyword.count))
        guard length > 0, Int(length) <= keyword.count else { return "other" }
        return String(decoding: keyword.prefix(Int(length)), as: UTF16.self)
    }

    /// ICU names locales with underscores ("pt_BR"); BCP 47 uses hyphens ("pt-BR").
    static func icuLocale(_ tag: String) -> String { tag.replacingOccurrences(of: "-", with: "_") }
}

/// The letters a language writes with (CLDR's exemplar characters): German's are "a"…"z", "ä",
/// "ö", "ü" and "ß"; Swedish adds "å"; Russian's are Cyrillic.
final class Alphabet: @unchecked Sendable {
    // A set that is only read: safe from several threads.
    private let letters: UnsafeMutableRawPointer

    init?(language tag: String) {
        guard let letters = rs_letters_open(PluralRules.icuLocale(tag)) else { return nil }
        self.letters = letters
    }

    deinit { rs_letters_close(letters) }

    /// Whether every character of `text` is one of the language's letters.
    func contains(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { rs_letters_contain(letters, $0.value) != 0 }
    }
}

/// A language's collation (its alphabet's order: German files "Ä" with "A", Spanish puts "ñ"
/// after "n", Swedish puts "Ä" after "Z"), as sort keys: a text's key is made once, and keys then
/// compare byte by byte, in the order the language sorts their texts.
final class Collator: @unchecked Sendable {
    // Making a sort key does not change the collator: several threads may share it.
    private let collator: UnsafeMutableRawPointer

    init?(language tag: String, primaryOnly: Bool = false) {
        guard let collator = rs_collator_open(PluralRules.icuLocale(tag), primaryOnly ? 1 : 0) else { return nil }
        self.collator = collator
    }

    deinit { rs_collator_close(collator) }

    /// The bytes `text` sorts by, without ICU's closing zero.
    func sortKey(_ text: String) -> [UInt8] {
        let units = Array(text.utf16)
        var key = [UInt8](repeating: 0, count: max(32, units.count * 4 + 8))
        var length = Int(rs_collator_sort_key(collator, units, Int32(units.count), &key, Int32(key.count)))
        if length > key.count {
            key = [UInt8](repeating: 0, count: length)
            length = Int(rs_collator_sort_key(collator, units, Int32(units.count), &key, Int32(key.count)))
        }
        return Array(key.prefix(max(0, length - 1)))
    }
}
