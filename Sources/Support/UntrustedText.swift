/// Text from the server made fit to show: names, authors and ISBNs go into pages, Markdown,
/// YAML and file listings, where control characters and bidirectional overrides would garble or
/// disguise what is around them. The raw values stay in `library.json`'s `server_fields`.
package enum UntrustedText {
    /// Longer names are cut: a 1 MB title would be repeated on every page that lists the book.
    package static let maximumLength = 2000

    package static func displayable(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D, 0x0B, 0x0C:
                result.append(" ")
            case 0x00...0x1F, 0x7F...0x9F:
                continue // control characters
            case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C:
                continue // bidirectional embeddings, overrides, isolates and marks
            case 0xFFF9...0xFFFB, 0xFEFF:
                continue // interlinear annotation, byte-order mark
            default:
                result.append(scalar)
            }
            count += 1
            if count >= maximumLength {
                result.append("…")
                break
            }
        }
        return String(result)
    }

    /// Data as UTF-8, with invalid sequences replaced by U+FFFD: one bad byte in a title must not
    /// make the whole answer unreadable.
    package static func repairedUTF8<Bytes: Collection<UInt8>>(_ data: Bytes) -> [UInt8]? {
        if isValidUTF8(data) { return nil }
        return Array(String(decoding: data, as: UTF8.self).utf8)
    }

    /// Checked in place: a big answer is not copied into a string to find out.
    package static func isValidUTF8<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
        var iterator = bytes.makeIterator()
        var codec = Unicode.UTF8()
        while true {
            switch codec.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
