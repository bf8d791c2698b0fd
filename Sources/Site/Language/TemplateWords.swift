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
        let (open, close) = Self.tagMarks
        guard text.contains(open + "t.") || text.contains("{{lang}}") || (root != nil && text.contains("root")) else { return text }
        guard !text.contains(open + "=") else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var rest = Substring(text)
        while let start = rest.range(of: open) {
            result += rest[..<start.lowerBound]
            guard let end = rest.range(of: close, range: start.upperBound..<rest.endIndex) else {
                rest = rest[start.lowerBound...]
                break
            }
            let tag = rest[start.lowerBound..<end.upperBound]
            let before = start.lowerBound > rest.startIndex ? rest[rest.index(before: start.lowerBound)] : nil
            let after = end.upperBound < rest.endIndex ? rest[end.upperBound] : nil
            let (written, takesNextBrace) = writtenTag(tag, name: rest[start.upperBound..<end.lowerBound],
                                                       tripled: before == "{" || after == "}", html: html, root: root)
            result += written
            rest = rest[(takesNextBrace ? rest.index(after: end.upperBound) : end.upperBound)...]
        }
        result += rest
        return result
    }

    /// A tag's opening and closing marks.
    private static let tagMarks = ("{{", "}}")

    /// What one tag becomes: the page's root, a word, or the tag as it was (left to the page's own
    /// lookup); and whether the `}` after it goes too (a `{{{root}}}`, whose third brace is the tag's).
    private func writtenTag(_ tag: Substring, name: Substring, tripled: Bool, html: Bool, root: String?) -> (String, Bool) {
        if let root, name.drop(while: { $0 == "&" || $0 == "{" }).trimmingCharacters(in: .whitespaces) == "root" {
            // The root is "" or "../": nothing in it to escape, so `{{root}}` and `{{{root}}}` are the same text.
            return (root, tripled && tag.endIndex < tag.base.endIndex && tag.base[tag.endIndex] == "}")
        }
        if !tripled, let word = word(named: name) { return (html ? Self.escaped(word) : word, false) }
        return (String(tag), false)
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
