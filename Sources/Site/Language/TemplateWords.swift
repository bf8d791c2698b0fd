import Foundation
import Mustache

extension Language {
    /// `text`, a template, with each `{{t.key}}` and `{{lang}}` written in as the words they stand
    /// for: a run has one language, so its words are put into the templates once, when they are
    /// loaded, and a page in German costs what a page in English does (a lookup through the page's
    /// sections for each word cost 18% more user time over 10,000 books). In `html/` the words are
    /// escaped as `{{…}}` would escape them, but for `'`, which the default templates never put in a
    /// single-quoted attribute. Any other use of `t` (a section, a key the strings lack, a word with
    /// `{{` in it) is left to the page's own lookup, which gives the same text.
    ///
    /// With `root`, each `{{root}}` is written in as well: only a page answers `root`, so the tag
    /// always stands for the page's way back to the site's top, and the pages at one depth share it.
    /// Looked up, it was a walk down every section it stood in: 9% of a 10,000-book render's user time.
    /// A template that sets other delimiters (`{{=<% %>=}}`) is left as it is: what looks like a tag
    /// after that is text.
    func writtenInto(_ text: String, html: Bool, root: String? = nil) -> String {
        guard text.contains("{{t.") || text.contains("{{lang}}") || (root != nil && text.contains("root")) else { return text }
        guard !text.contains("{{=") else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            result += rest[..<open.lowerBound]
            guard let close = rest.range(of: "}}", range: open.upperBound..<rest.endIndex) else {
                rest = rest[open.lowerBound...]
                break
            }
            let name = rest[open.upperBound..<close.lowerBound]
            let tripled = open.lowerBound > rest.startIndex && rest[rest.index(before: open.lowerBound)] == "{"
                || close.upperBound < rest.endIndex && rest[close.upperBound] == "}"
            if let root, name.drop(while: { $0 == "&" || $0 == "{" }).trimmingCharacters(in: .whitespaces) == "root" {
                // The root is "" or "../": nothing in it to escape, so `{{root}}` and `{{{root}}}` are the same text.
                result += root
                if tripled, close.upperBound < rest.endIndex, rest[close.upperBound] == "}" {
                    rest = rest[rest.index(after: close.upperBound)...]
                    continue
                }
            } else if !tripled, let word = word(named: name) {
                result += html ? Self.escaped(word) : word
            } else {
                result += rest[open.lowerBound..<close.upperBound]
            }
            rest = rest[close.upperBound...]
        }
        result += rest
        return result
    }

    /// The word a tag's name stands for: `lang`, or `t.key` for a key the strings have. A plural
    /// form the language lacks (`t.books.few` in English) is empty.
    private func word(named tagName: Substring) -> String? {
        let name = tagName.trimmingCharacters(in: .whitespaces)
        if name == "lang" { return tag }
        guard name.hasPrefix("t.") else { return nil }
        let key = String(name.dropFirst(2))
        var value = strings[key]
        if value == nil, let dot = key.lastIndex(of: "."), Self.pluralCategories.contains(String(key[key.index(after: dot)...])),
           strings[key[..<dot] + ".other"] != nil {
            value = ""
        }
        guard let value, !value.contains("{{"), !value.contains("}}") else { return nil }
        return value
    }

    static let pluralCategories: Set<String> = ["zero", "one", "two", "few", "many", "other"]

    /// Whether a template still names the language's words after `writtenInto` (in a section, or
    /// a key the strings lack): then its pages look them up as they are made.
    static func namesWords(_ text: String) -> Bool {
        PageInputs.tags(in: text).contains { tag in
            let name = tag.drop { "#^/&{".contains($0) }.trimmingCharacters(in: .whitespaces)
            return name == "lang" || name == "t" || name.hasPrefix("t.")
        }
    }

    private static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "\"") })
        else { return text }
        return text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

extension MustacheLibrary {
    /// The library with every template of `folder` registered again as `rewrite` makes its text.
    func rewritten(in folder: URL, _ rewrite: (String) -> String) throws -> MustacheLibrary {
        var library = self
        for name in TemplateSet.templateNames(in: folder) {
            guard let template = library.getTemplate(named: name) else { continue }
            let text = rewrite(template.description)
            // Registered again only when changed: parsing a template costs more than comparing it.
            if text != template.description { try library.register(text, named: name) }
        }
        return library
    }
}
