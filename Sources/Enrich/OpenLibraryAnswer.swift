import Foundation
import LibraryArchive
import Support

/// One edition as Open Library's Books API describes it (`jscmd=data`): every field may be missing,
/// and `number_of_pages` has been seen as a string. Decoded loosely, kept only as checked values.
struct OpenLibraryEdition: Decodable, Sendable {
    struct Named: Decodable, Sendable { var name: String? }
    struct Cover: Decodable, Sendable { var small: String?, medium: String?, large: String? }

    var key: String?
    var publishers: [Named]?
    var publishDate: String?
    var numberOfPages: JSONValue?
    var subjects: [Named]?
    var cover: Cover?

    enum CodingKeys: String, CodingKey {
        case key, publishers, publishDate = "publish_date", numberOfPages = "number_of_pages", subjects, cover
    }

    /// Each part on its own: one field of an odd shape loses that field, not the edition.
    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try? container.decodeIfPresent(String.self, forKey: .key)
        publishers = try? container.decodeIfPresent([Named].self, forKey: .publishers)
        publishDate = try? container.decodeIfPresent(String.self, forKey: .publishDate)
        numberOfPages = try? container.decodeIfPresent(JSONValue.self, forKey: .numberOfPages)
        subjects = try? container.decodeIfPresent([Named].self, forKey: .subjects)
        cover = try? container.decodeIfPresent(Cover.self, forKey: .cover)
    }

    /// The most subjects kept of an edition; Open Library lists hundreds for some classics.
    static let subjectLimit = 12
    static let textLimit = 200

    /// What the snapshot keeps: displayable text, bounded; a year and a page count that are plausible.
    var found: OpenLibraryFound {
        func text(_ value: String?) -> String? {
            guard let value else { return nil }
            let clean = UntrustedText.displayable(value).trimmingCharacters(in: .whitespaces)
            return clean.isEmpty ? nil : String(clean.prefix(Self.textLimit))
        }
        var seen = Set<String>()
        let subjects = (subjects ?? []).compactMap { text($0.name) }.filter { seen.insert($0.lowercased()).inserted }
        let fields = OpenLibraryFields(key: key.flatMap(Self.editionKey), publisher: publishers?.lazy.compactMap({ text($0.name) }).first,
                                       year: publishDate.flatMap(Self.year), pages: numberOfPages?.intValue.flatMap { (1...100_000).contains($0) ? $0 : nil },
                                       subjects: Array(subjects.prefix(Self.subjectLimit)))
        return OpenLibraryFound(fields: fields, coverID: [cover?.large, cover?.medium, cover?.small].lazy.compactMap { $0.flatMap(Self.coverID) }.first)
    }

    /// "/books/OL22853304M", and nothing else: it becomes a link.
    static func editionKey(_ key: String) -> String? {
        let name = key.dropFirst("/books/".count)
        guard key.hasPrefix("/books/OL"), name.count <= 16, name.hasSuffix("M"),
              name.dropFirst(2).dropLast().allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        return key
    }

    /// The first four-digit year in "March 2003", "2003", "c1999.": Open Library's dates are free text.
    static func year(_ date: String) -> Int? {
        let digits = Array(date.unicodeScalars)
        var index = 0
        while index + 4 <= digits.count {
            let run = digits[index..<index + 4]
            let before = index > 0 ? digits[index - 1] : " "
            let after = index + 4 < digits.count ? digits[index + 4] : " "
            if run.allSatisfy({ ("0"..."9").contains($0) }), !("0"..."9").contains(before), !("0"..."9").contains(after),
               let year = Int(String(String.UnicodeScalarView(run))), (1000...2100).contains(year) {
                return year
            }
            index += 1
        }
        return nil
    }

    /// The id in ".../b/id/5546156-L.jpg": covers are asked for by id, which Open Library does not rate-limit.
    static func coverID(_ url: String) -> Int? {
        guard let range = url.range(of: "/b/id/") else { return nil }
        let rest = url[range.upperBound...]
        let digits = rest.prefix { ("0"..."9").contains($0) }
        guard !digits.isEmpty, digits.count <= 12, rest.dropFirst(digits.count).hasPrefix("-") else { return nil }
        return Int(digits)
    }
}

/// What Open Library gave for an ISBN: the fields, and its cover's id.
package struct OpenLibraryFound: Codable, Sendable, Equatable {
    package var fields: OpenLibraryFields
    package var coverID: Int?

    enum CodingKeys: String, CodingKey { case fields, coverID = "cover_id" }
}
