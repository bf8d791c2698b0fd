import Foundation
import LibraryArchive
import Mustache
import Notes
import SnapshotStore
import Support

/// How `{{x}}` escapes text in the HTML templates: every `&`, `<`, `>`, `"` and `'` byte, whatever
/// follows it. swift-mustache's own escaper compares whole characters, so a quote followed by a
/// combining mark (one character of two scalars) went through as it was and ended an attribute
/// early (`alt="Cover of x"́ onmouseover=…"`). Looking at bytes is faster as well: most text has
/// nothing to escape and is returned as it is.
struct HTMLEscaping: MustacheContentType {
    /// The name the templates are loaded under (`{{%CONTENT_TYPE:HTML}}`): swift-mustache's own
    /// "HTML" is replaced, so that a template that names it gets this one too.
    static let name = "HTML"

    /// Registered once, before the first template that names it is parsed.
    static let registered: Void = MustacheContentTypes.register(HTMLEscaping(), named: name)

    func escapeText(_ text: String) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: Self.isSpecial) else { return text }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(utf8.count + 32)
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "&"): escaped.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): escaped.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): escaped.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): escaped.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): escaped.append(contentsOf: "&#39;".utf8)
            default: escaped.append(byte)
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    private static func isSpecial(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }

    /// The templates of `library`, each made to escape this way from its first line (swift-mustache
    /// starts every template and partial with its own escaper), and its text rewritten by `rewrite`.
    static func everyTemplate(of library: MustacheLibrary, in folder: URL, _ rewrite: (String) -> String = { $0 }) throws -> MustacheLibrary {
        _ = registered
        // A line of its own, which the parser removes: the template's own lines are unchanged.
        return try library.rewritten(in: folder) { "{{%CONTENT_TYPE:\(Self.name)}}\n" + rewrite($0) }
    }
}
