import Foundation
import LibraryArchive
import Notes
import SnapshotStore
import Support

/// File names for shelves and books: `<id>-<slug>`, where the slug is the lowercase ASCII words of
/// the name. The id keeps names unique and is the whole name when nothing is left (a shelf of emoji).
package enum Slug {
    package static let maximumLength = 60

    package static func make(_ name: String) -> String {
        // ICU's transforms cost far more than the rest: only names outside ASCII need them.
        let folded: String
        if name.utf8.allSatisfy({ $0 < 0x80 }) {
            folded = name
        } else {
            let latin = name.applyingTransform(.toLatin, reverse: false) ?? name
            folded = latin.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: Locale(identifier: "en_US_POSIX"))
        }
        var words: [String] = []
        var current = ""
        for scalar in folded.unicodeScalars {
            switch scalar {
            case "a"..."z", "0"..."9":
                current.unicodeScalars.append(scalar)
            case "A"..."Z":
                current += String(scalar).lowercased()
            case "ß":
                current += "ss"
            case "æ", "Æ":
                current += "ae"
            case "ø", "Ø":
                current += "o"
            case "œ", "Œ":
                current += "oe"
            case "'", "’":
                continue // "Hitchhiker's" → "hitchhikers"
            default:
                if !current.isEmpty { words.append(current); current = "" }
            }
        }
        if !current.isEmpty { words.append(current) }
        var slug = ""
        for word in words {
            let next = slug.isEmpty ? word : slug + "-" + word
            if next.count > maximumLength { break }
            slug = next
        }
        if slug.isEmpty, let first = words.first { slug = String(first.prefix(maximumLength)) }
        return slug
    }

    /// "12-dune", or "12" when the name has no letters or digits to keep.
    package static func fileName(id: Int, name: String) -> String {
        let slug = make(name)
        return slug.isEmpty ? String(id) : "\(id)-\(slug)"
    }
}
