import Foundation

/// Reads a written snapshot back, independently of the code that wrote it.
package struct SiteInspector {
    package let root: URL

    package init(root: URL) {
        self.root = root
    }

    /// Every file under the snapshot, as relative paths.
    package func files() -> [String] {
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var result: [String] = []
        for case let url as URL in enumerator {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                result.append(String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1)))
            }
        }
        return result.sorted()
    }

    package func text(_ relativePath: String) -> String? {
        (try? Data(contentsOf: root.appendingPathComponent(relativePath))).map { String(decoding: $0, as: UTF8.self) }
    }

    package func data(_ relativePath: String) -> Data? {
        try? Data(contentsOf: root.appendingPathComponent(relativePath))
    }

    /// What a visitor can be sent: every file with no hidden part in its path, with its bytes.
    package func contents() -> [String: Data] {
        var result: [String: Data] = [:]
        for file in files() where !file.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
            result[file] = data(file)
        }
        return result
    }

    /// The targets of href= and src= in an HTML page.
    package static func links(inHTML html: String) -> [String] {
        matches(of: #"(?:href|src)="([^"]*)""#, in: html)
    }

    /// The targets of Markdown links and images: ](target)
    package static func links(inMarkdown markdown: String) -> [String] {
        matches(of: #"\]\(<?([^)>\s]+)>?\)"#, in: markdown)
    }

    package static func matches(of pattern: String, in text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: pattern)
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    /// Visible text of HTML: tags dropped, the common entities decoded (a second, simple reading).
    package static func visibleText(ofHTML html: String) -> String {
        var text = html.replacingOccurrences(of: #"<!--.*?-->"#, with: " ", options: .regularExpression)
        text = text.replacingOccurrences(of: #"<[^>]*>"#, with: " ", options: .regularExpression)
        return decodeEntities(text)
    }

    package static func decodeEntities(_ text: String) -> String {
        var result = text
        for (entity, value) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&#x27;", "'"),
                                ("&nbsp;", "\u{00A0}"), ("&amp;", "&")] {
            result = result.replacingOccurrences(of: entity, with: value)
        }
        return result
    }

    /// Markdown text with backslash escapes undone.
    package static func unescapedMarkdown(_ markdown: String) -> String {
        markdown.replacingOccurrences(of: #"\\([!-/:-@\[-`{-~])"#, with: "$1", options: .regularExpression)
    }

    /// The words of a text: runs of letters and digits.
    package static func words(_ text: String) -> [String] {
        text.components(separatedBy: CharacterSet.alphanumerics.inverted).filter { !$0.isEmpty }
    }
}

extension SiteInspector {
    /// Each file's inode, modification time and bytes: equal fingerprints mean the file was not touched.
    package struct Fingerprint: Equatable {
        package var inode: Int
        package var modified: Date
        package var bytes: Data
    }

    package func fingerprints() -> [String: Fingerprint] {
        var result: [String: Fingerprint] = [:]
        for file in files() {
            let url = root.appendingPathComponent(file)
            let attributes = (try? FileManager.default.attributesOfItem(atPath: url.path)) ?? [:]
            result[file] = Fingerprint(inode: (attributes[.systemFileNumber] as? Int) ?? -1,
                                       modified: (attributes[.modificationDate] as? Date) ?? .distantPast,
                                       bytes: (try? Data(contentsOf: url)) ?? Data())
        }
        return result
    }
}

extension SiteInspector {
    /// The `content` of each `<meta property=…>` or `<meta name=…>` tag of a page, by its name.
    package static func metaTags(_ html: String) -> [String: String] {
        var tags: [String: String] = [:]
        let pattern = #"<meta (?:property|name)="([^"]+)" content="([^"]*)">"#
        let expression = try! NSRegularExpression(pattern: pattern)
        for match in expression.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
            guard let name = Range(match.range(at: 1), in: html), let value = Range(match.range(at: 2), in: html) else { continue }
            tags[String(html[name])] = String(html[value])
        }
        return tags
    }
}

extension SiteInspector {
    /// Where the snapshot holds any of `secrets`, as "file: secret". Each is looked for the way the
    /// search index stores words, folded (lower case, accents off: "Brontë" as "bronte") and whole,
    /// in every file's folded text: a note word in `assets/search/t-*.js` is found as surely as a
    /// title on a page. Folded here with Foundation, not with the tool's own folding.
    package func holding(_ secrets: [String]) -> [String] {
        let folded = secrets.map { (secret: $0, pattern: "(?<![\\p{L}\\p{N}\\p{M}])" + NSRegularExpression.escapedPattern(for: Self.fold($0)) + "(?![\\p{L}\\p{N}\\p{M}])") }
        var found: [String] = []
        for (file, data) in contents().sorted(by: { $0.key < $1.key }) {
            let text = Self.fold(String(decoding: data, as: UTF8.self))
            for (secret, pattern) in folded where text.range(of: pattern, options: .regularExpression) != nil {
                found.append("\(file): \(secret)")
            }
        }
        return found
    }

    /// Lower case, accents off.
    package static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: Locale(identifier: "en_US_POSIX"))
    }
}
