import Foundation
import Support

/// The language the pages are written in (`--language`): their fixed words from a strings file,
/// their plurals by the language's CLDR rules, their numbers and dates in its forms, and their
/// lists in its alphabet's order. The CLI's own messages stay English.
package final class Language: Sendable {
    /// The BCP 47 tag the pages declare (`<html lang>`, `xml:lang`): "en", "de", "pt-BR".
    package let tag: String
    /// The language's strings, with English's for the keys it lacks.
    let strings: [String: String]
    /// The English keys the language's file lacks (shown in English): the run names them.
    package let missingKeys: [String]
    private let plurals: PluralRules?
    /// nil for the order English pages have always had: case and accents ignored, then code points.
    private let collator: Collator?
    /// The same collation at its first level only: whether "Ä" is a letter of its own or an "A".
    private let letters: Collator?
    /// The letters the language writes with: a name that starts with another goes under "#".
    private let alphabet: Alphabet?
    /// The words that start a surname in this language's filing ("le" in "Le Guin").
    let surnameParticles: Set<String>
    private let locale: Locale
    private let dayPattern: String
    private let dateTimePattern: String
    /// Made only for patterns other than English's ISO forms: a formatter loads ICU's data.
    private let dates: DateForms?
    /// A month, as the timeline's headings write it ("November 2026"): nil for English's own
    /// pattern, written out here (`englishMonth`) so that English pages load no ICU data for it.
    private let months: DateForms?

    package static let english = "en"
    static let isoDay = "yyyy-MM-dd"
    static let isoDateTime = "yyyy-MM-dd HH:mm 'UTC'"

    /// English from the bundled strings: what pages are written in when no language is asked for.
    package static let bundledEnglish: Language = {
        // Without the bundled strings (an install that is not whole, which loading the templates
        // says), the words are shown as their keys.
        if let folder = TemplateSet.bundledDirectory?.appendingPathComponent(StringsFiles.folder),
           let language = try? StringsFiles.language(english, in: [folder]) {
            return language
        }
        return Language(tag: english, strings: [:], english: [:])
    }()
    /// What the strings file may say of the language, besides its words.
    enum Setting {
        static let order = "language.order"
        static let day = "language.day"
        static let dateTime = "language.dateTime"
        static let month = "language.month"
        static let particles = "language.surnameParticles"
    }

    /// `strings` is the language's file, `english` the English one (every key there is).
    init(tag: String, strings own: [String: String], english: [String: String]) {
        self.tag = tag
        var strings = english
        for (key, value) in own { strings[key] = value }
        self.strings = strings
        missingKeys = english.keys.filter { own[$0] == nil }.sorted()
        // English's CLDR rule for a count is "one" for 1, "other" for the rest: English pages need
        // not load ICU's data for it (a few megabytes of the run's memory).
        plurals = tag == Self.english ? nil : PluralRules(language: tag)
        if strings[Setting.order] == "folded" {
            collator = nil
            letters = nil
        } else {
            collator = Collator(language: tag)
            letters = Collator(language: tag, primaryOnly: true)
        }
        alphabet = collator == nil ? nil : Alphabet(language: tag)
        surnameParticles = Set((strings[Setting.particles] ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty })
        locale = Locale(identifier: tag)
        dayPattern = strings[Setting.day] ?? Self.isoDay
        dateTimePattern = strings[Setting.dateTime] ?? Self.isoDateTime
        dates = dayPattern == Self.isoDay && dateTimePattern == Self.isoDateTime ? nil
            : DateForms(locale: locale, day: dayPattern, dateTime: dateTimePattern)
        let monthPattern = strings[Setting.month] ?? "yyyy-MM"
        months = tag == Self.english && monthPattern == Self.englishMonthPattern ? nil
            : DateForms(locale: locale, day: monthPattern, dateTime: Self.isoDateTime)
    }

    /// The fixed word or sentence `key`, as the strings file has it.
    package func text(_ key: String) -> String { strings[key] ?? key }

    /// `key` with each `{name}` in it replaced by its value.
    func text(_ key: String, _ values: KeyValuePairs<String, String>) -> String {
        Self.fill(text(key), values.map { (name: $0.key, value: $0.value) })
    }

    /// The form of `key` for `count` ("key.one", "key.few", … "key.other"), with `{count}` in it
    /// written as the language writes numbers, and the other values filled in.
    func count(_ key: String, _ count: Int, _ values: KeyValuePairs<String, String> = [:]) -> String {
        let category = plurals?.category(count) ?? (count == 1 ? "one" : "other")
        let form = strings[key + "." + category] ?? strings[key + ".other"] ?? key
        return Self.fill(form, [(name: "count", value: number(count))] + values.map { (name: $0.key, value: $0.value) })
    }

    /// The plural categories the strings have for `key` ("one", "other"…), with their forms.
    func forms(_ key: String) -> [(category: String, form: String)] {
        ["zero", "one", "two", "few", "many", "other"].compactMap { category in strings[key + "." + category].map { (category, $0) } }
    }

    /// 1062 → "1,062" in English, "1.062" in German, "1 062" in French: as ICU writes numbers in
    /// the language, which is how the pages' scripts write them too (`Intl.NumberFormat`), so that
    /// a count reads the same on every page. (A strings file's `language.numbers`, which could ask
    /// for "1062", is no longer read: the scripts could not follow it.)
    func number(_ value: Int) -> String {
        tag == Self.english ? Self.englishNumber(value) : value.formatted(.number.locale(locale))
    }

    /// A whole number as ICU writes it in English (groups of three, a comma between them), written
    /// out here so that English pages do not load ICU's data for it, as they do not for plurals;
    /// `LanguageTests` holds it to ICU's own.
    static func englishNumber(_ value: Int) -> String {
        let digits = Array(String(value.magnitude))
        var text = value < 0 ? "-" : ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }

    /// "2024-01-03" → "3. Januar 2024" (the strings' `language.day` pattern); other text as it is.
    func day(_ day: String) -> String {
        dayPattern == Self.isoDay ? day : (dates?.day(day) ?? day)
    }

    /// "2026-11-01" → "November 2026" (the strings' `language.month` pattern); other text as it is.
    func month(_ day: String) -> String {
        guard let months else { return Self.englishMonth(day) ?? day }
        return months.day(day) ?? day
    }

    static let englishMonthPattern = "MMMM y"
    static let englishMonths = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                                "November", "December"]

    /// "2026-11-01" → "November 2026", as ICU writes `MMMM y` in English (`LanguageTests` holds it to ICU's own).
    static func englishMonth(_ day: String) -> String? {
        guard SnapshotDate.isDay(day), let year = Int(day.prefix(4)), let month = Int(day.dropFirst(5).prefix(2)), (1...12).contains(month)
        else { return nil }
        return "\(englishMonths[month - 1]) \(year)"
    }

    /// "2026-11-21T23:57:00Z" → "2026-11-21 23:57 UTC" in English, "21. November 2026, 23:57 UTC" in German.
    func dateTime(_ iso: String) -> String {
        if dateTimePattern == Self.isoDateTime {
            guard iso.count >= 16, iso.hasSuffix("Z") else { return iso }
            let chars = Array(iso)
            return String(chars[0..<10]) + " " + String(chars[11..<16]) + " UTC"
        }
        return dates?.dateTime(iso) ?? iso
    }

    /// What lists are sorted by: texts whose keys are in order are in the language's order.
    func sortKey(_ text: String) -> String {
        guard let collator else { return Self.folded(text) }
        // The key's bytes as characters of the private use area: each compares as its byte does,
        // and none of them changes under Unicode normalisation.
        var key = String.UnicodeScalarView()
        for byte in collator.sortKey(text) { key.append(Unicode.Scalar(0xE000 + UInt32(byte))!) }
        return String(key)
    }

    /// What the list of all books' script sorts by in the reader's browser (`data-title`): the
    /// folded text in English, as always; the lower-cased text otherwise, which the script sorts
    /// with the browser's collation for the page's language.
    func browserSortKey(_ text: String) -> String {
        collator == nil ? Self.folded(text) : text.lowercased()
    }

    /// The heading a name is filed under in the authors' index ("A"…"Z", "Ñ", "#") from its first letter.
    func letter(of name: String) -> String {
        guard let first = name.first, first.isLetter else { return "#" }
        guard let letters else {
            // English, as always: "A"…"Z" after folding; any other letter ("ı", "æ") under "#".
            guard let scalar = Self.folded(String(first)).unicodeScalars.first, ("a"..."z").contains(scalar) else { return "#" }
            return String(scalar).uppercased()
        }
        let upper = String(first).uppercased()
        // A letter with a mark goes under the letter without it when the language sorts them as
        // one letter (German "Ä" under "A", "É" under "E"), and under itself when not (Spanish "Ñ",
        // Swedish "Ä"). A letter of another alphabet (a Cyrillic name in a German catalog) goes under "#".
        let base = upper.folding(options: .diacriticInsensitive, locale: locale)
        if base != upper, base.count == 1, letters.sortKey(base) == letters.sortKey(upper), alphabet?.contains(base) ?? true { return base }
        return alphabet?.contains(upper) ?? true ? upper : "#"
    }

    /// Case and accents ignored: the order English pages have always had.
    static func folded(_ text: String) -> String {
        // Foundation's folding goes through ICU: only text outside ASCII needs it.
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: Locale(identifier: "en_US_POSIX"))
    }

    /// `text` with each `{name}` of `values` replaced by its value; other braces left as they are.
    static func fill(_ text: String, _ values: [(name: String, value: String)]) -> String {
        guard text.utf8.contains(UInt8(ascii: "{")) else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            result += rest[..<open]
            let name = rest[rest.index(after: open)..<close]
            if let value = values.first(where: { $0.name == name })?.value { result += value } else { result += rest[open...close] }
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        return result
    }
}

/// The day and date-and-time patterns, through Foundation's formatter for the language. A
/// formatter is not to be shared between threads without a lock. Unchecked: Foundation's
/// DateFormatter is not Sendable; this lock is what makes it so.
private final class DateForms: @unchecked Sendable {
    private let lock = NSLock()
    private let dayFormatter: DateFormatter
    private let dateTimeFormatter: DateFormatter
    private let calendar: Calendar

    init(locale: Locale, day: String, dateTime: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        self.calendar = calendar
        func formatter(_ pattern: String) -> DateFormatter {
            let formatter = DateFormatter()
            formatter.locale = locale
            formatter.calendar = calendar
            formatter.timeZone = calendar.timeZone
            formatter.dateFormat = pattern
            return formatter
        }
        dayFormatter = formatter(day)
        dateTimeFormatter = formatter(dateTime)
    }

    func day(_ text: String) -> String? {
        guard let date = date(text, withTime: false) else { return nil }
        return lock.withLock { dayFormatter.string(from: date) }
    }

    func dateTime(_ text: String) -> String? {
        guard let date = date(text, withTime: true) else { return nil }
        return lock.withLock { dateTimeFormatter.string(from: date) }
    }

    /// "2026-11-21" or "2026-11-21T23:57:00Z", read by hand: the server's text is untrusted, and
    /// anything else is shown as it is.
    private func date(_ text: String, withTime: Bool) -> Date? {
        let digits = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= digits.count else { return nil }
            var value = 0
            for byte in digits[range] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var parts = DateComponents(year: year, month: month, day: day)
        if withTime {
            guard let hour = number(11..<13), let minute = number(14..<16), hour < 24, minute < 60 else { return nil }
            parts.hour = hour
            parts.minute = minute
        }
        return calendar.date(from: parts)
    }
}
