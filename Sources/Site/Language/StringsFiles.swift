import Foundation
import Support

/// The strings files beside the templates (`strings/en.strings`, `strings/de.strings`…): one
/// per language, in the `"key" = "value";` form translators know from Apple's platforms, read by
/// Foundation's property-list reader. A set of templates without its own strings uses the bundled ones.
enum StringsFiles {
    static let folder = "strings"
    static let fileExtension = "strings"

    /// The language `tag` from the first of `folders` that has it ("pt-BR" falls back to "pt"),
    /// with the English file of the same folder (or the bundled one) for the keys it lacks.
    static func language(_ tag: String, in folders: [URL]) throws -> Language {
        guard isTag(tag) else {
            throw SnapshotError(.languageMissing(tag: tag, available: available(in: folders)), path: folders.first?.path ?? "the templates")
        }
        let wanted = [tag, String(tag.split(separator: "-").first ?? "")].filter { !$0.isEmpty }
        for folder in folders {
            for name in wanted {
                let file = folder.appendingPathComponent(name + "." + fileExtension)
                guard FileManager.default.fileExists(atPath: file.path) else { continue }
                let own = try read(file)
                let englishFile = ([folder] + folders).map { $0.appendingPathComponent(Language.english + "." + fileExtension) }
                    .first { FileManager.default.fileExists(atPath: $0.path) }
                let english = try englishFile.map(read) ?? own
                return Language(tag: tag, strings: own, english: english)
            }
        }
        throw SnapshotError(.languageMissing(tag: tag, available: available(in: folders)), path: folders.first?.path ?? "the templates")
    }

    /// The languages the folders have strings for, sorted.
    static func available(in folders: [URL]) -> [String] {
        var tags = Set<String>()
        for folder in folders {
            // A folder that cannot be listed offers no language to the message that lists them.
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names where name.hasSuffix("." + fileExtension) { tags.insert(String(name.dropLast(fileExtension.count + 1))) }
        }
        return tags.sorted()
    }

    /// A BCP 47 tag as far as a file name needs: letters, digits and hyphens ("de", "pt-BR", "zh-Hant").
    static func isTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    static func read(_ file: URL) throws -> [String: String] {
        let name = folder + "/" + file.lastPathComponent
        let root = file.deletingLastPathComponent().deletingLastPathComponent().path
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw SnapshotError(.stringsSyntax(file: name, detail: "cannot be read"), path: root)
        }
        guard String(data: data, encoding: .utf8) != nil else {
            throw SnapshotError(.stringsSyntax(file: name, detail: "not UTF-8 text"), path: root)
        }
        let parsed: Any
        do {
            parsed = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch let error as NSError {
            let inner = (error.userInfo["kCFPropertyListOldStyleParsingError"] as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
            throw SnapshotError(.stringsSyntax(file: name, detail: inner ?? "its syntax is wrong"), path: root)
        }
        guard let strings = parsed as? [String: String] else {
            throw SnapshotError(.stringsSyntax(file: name, detail: "every value must be a quoted text"), path: root)
        }
        return strings
    }
}
