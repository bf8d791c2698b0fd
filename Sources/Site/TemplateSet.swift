import DefaultTemplates
import Foundation
import LibraryArchive
import Mustache
import NIOConcurrencyHelpers
import Notes
import SnapshotStore
import Support

/// The templates a snapshot is rendered with: `html/` and `markdown/` Mustache files, and `assets/`
/// copied as they are. The defaults ship with the tool; `--templates DIR` replaces them.
package struct TemplateSet: Sendable {
    /// The pages each kind needs; `layout` and `partials/…` are the templates' own business.
    package static let requiredTemplates: [OutputFormat: [String]] = [
        .html: ["index", "books", "shelf", "book", "changes", "stats"],
        .markdown: ["index", "shelf", "book"],
    ]

    /// Pages added since templates were first copied: a set without them gets the bundled ones,
    /// which then use its own layout and partials.
    package static let addedTemplates: [OutputFormat: [String]] = [
        .html: ["authors", "author", "year", "lookup", "unlock", "unlock-elsewhere", "timeline"],
        .markdown: ["authors", "author", "year", "timeline"],
    ]

    package let directory: URL
    /// The language of the pages (`--language`), from the strings files beside the templates.
    package let language: Language
    /// One Mustache library per kind, loaded from `html/` and `markdown/`: a template names the
    /// others of its kind as `layout` or `partials/book-list`. Each kind is made once for each of
    /// the pages' depths, with `{{root}}` written in, and once as it is: on the first page that
    /// needs it (`PreparedLibraries`), not before the crawl.
    let prepared: PreparedLibraries
    /// The roots of the pages: the site's top, and the folders one below it.
    static let roots = ["", "../"]
    /// Relative paths of the files under `assets/`, each with the file it is copied from.
    package let assets: [(path: String, source: URL)]

    /// Scripts added since templates were first copied, which the added pages need: a set
    /// without them gets the bundled ones.
    package static let addedAssets = ["lookup.js", "offline.js", "sw.js", "unlock.js", "unlock-elsewhere.js"]

    /// Whether `tag` has the form of a language tag ("de", "pt-BR").
    package static func isLanguageTag(_ tag: String) -> Bool { StringsFiles.isTag(tag) }

    package static var bundledDirectory: URL? {
        DefaultTemplates.directory
    }

    package static func bundled(language: String = Language.english, waitingForTheParse: Bool = true) async throws -> TemplateSet {
        guard let directory = bundledDirectory else {
            throw SnapshotError(.templatesMissing, path: "the bundled templates")
        }
        return try await load(from: directory, language: language, waitingForTheParse: waitingForTheParse)
    }

    /// The templates in `directory`, in `language`: its strings come from `directory/strings/`,
    /// or from the bundled ones when the folder has none for that language (a set copied before
    /// there were strings files has none at all). Without `waitingForTheParse`, the templates are
    /// parsed while the caller goes on, and `check()` tells whether they could be.
    package static func load(from directory: URL, language tag: String = Language.english, waitingForTheParse: Bool = true) async throws -> TemplateSet {
        let path = directory.path
        var folders = [directory.appendingPathComponent(StringsFiles.folder)]
        if let bundled = bundledDirectory?.appendingPathComponent(StringsFiles.folder), bundled.standardizedFileURL != folders[0].standardizedFileURL {
            folders.append(bundled)
        }
        let language = try StringsFiles.language(tag, in: folders)
        for format in requiredTemplates.keys {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory.appendingPathComponent(format.rawValue).path, isDirectory: &isDirectory),
                  isDirectory.boolValue else {
                throw SnapshotError(.templatesMissing, path: path)
            }
        }
        // Parsed on a thread of their own, beside what the command does next (an export logs in
        // meanwhile): the parse was a fifth of what a quiet night did before its first request.
        let prepared = PreparedLibraries { try recipes(in: directory, language: language) }
        let assetsDirectory = directory.appendingPathComponent("assets")
        var assets: [(path: String, source: URL)] = []
        if let enumerator = FileManager.default.enumerator(atPath: assetsDirectory.path) {
            for case let file as String in enumerator {
                var isDir: ObjCBool = false
                if FileManager.default.fileExists(atPath: assetsDirectory.appendingPathComponent(file).path, isDirectory: &isDir), !isDir.boolValue {
                    assets.append((file, assetsDirectory.appendingPathComponent(file)))
                }
            }
        }
        for added in addedAssets where !assets.contains(where: { $0.path == added }) {
            if let bundled = bundledDirectory?.appendingPathComponent("assets").appendingPathComponent(added) { assets.append((added, bundled)) }
        }
        let set = TemplateSet(directory: directory, language: language, prepared: prepared, assets: assets.sorted { $0.path < $1.path })
        if waitingForTheParse { try await set.check() }
        return set
    }

    /// Each kind's templates parsed and checked (those a kind needs are there, those added since
    /// are the bundled ones where a set lacks them), kind by kind in `OutputFormat`'s order.
    private static func recipes(in directory: URL, language: Language) throws -> [OutputFormat: PreparedLibraries.Recipe] {
        let path = directory.path
        var recipes: [OutputFormat: PreparedLibraries.Recipe] = [:]
        for (format, names) in requiredTemplates.sorted(by: { $0.key < $1.key }) {
            let folder = directory.appendingPathComponent(format.rawValue)
            let library = try parse(folder, format: format, path: path)
            for name in names where library.getTemplate(named: name) == nil {
                throw SnapshotError(.templateNotFound(name: format.rawValue + "/" + name), path: path)
            }
            // The pages added since, which a set copied before them lacks: the bundled ones.
            var added: [(name: String, text: String)] = []
            for name in addedTemplates[format] ?? [] where library.getTemplate(named: name) == nil {
                // A bundled page that cannot be read is as missing: an install that is not whole.
                guard let bundled = bundledDirectory?.appendingPathComponent(format.rawValue).appendingPathComponent(name + ".mustache"),
                      let text = try? String(contentsOf: bundled, encoding: .utf8) else {
                    throw SnapshotError(.templateNotFound(name: format.rawValue + "/" + name), path: path)
                }
                added.append((name, text))
            }
            recipes[format] = PreparedLibraries.Recipe(library: library, folder: folder, format: format, language: language, added: added)
        }
        return recipes
    }

    /// Every template under `folder`, named by its path without `.mustache` ("partials/pager"), as
    /// swift-mustache's `MustacheLibrary(directory:)` names them: that one is async, and this runs
    /// on a thread of its own.
    private static func parse(_ folder: URL, format: OutputFormat, path: String) throws -> MustacheLibrary {
        var templates: [String: MustacheTemplate] = [:]
        for name in templateNames(in: folder) {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name + ".mustache").path) else { continue }
            do {
                templates[name] = try MustacheTemplate(string: String(decoding: data, as: UTF8.self))
            } catch let error as MustacheTemplate.ParserError {
                throw SnapshotError(.templateSyntax(file: format.rawValue + "/" + name + ".mustache", line: error.context.lineNumber,
                                                    column: error.context.columnNumber, detail: describe(error.error)), path: path)
            }
        }
        return MustacheLibrary(templates: templates)
    }

    /// Waits for the templates to be parsed: a syntax error, or a page a kind needs and lacks, is
    /// told here. Every command waits for it before it asks a server for anything but a login.
    package func check() async throws {
        _ = try await prepared.parsed()
    }

    func render<Page: MustacheParent & AnyObject>(_ page: Page, _ format: OutputFormat, template name: String) throws -> String {
        try render(context: Ref(page), format, template: name, root: (page as? any RootedPage)?.root)
    }

    /// - Parameter root: the page's `root`, when it has one: its templates then have it written in.
    func render<Context: MustacheParent>(context: Context, _ format: OutputFormat, template name: String, root: String? = nil) throws -> String {
        let library = try prepared.library(format, root: root.flatMap { Self.roots.contains($0) ? $0 : nil })
        let output = try prepared.looksWordsUp(format)
            ? library?.render(Localized(page: context, strings: StringsView(language: language)), withTemplate: name)
            : library?.render(context, withTemplate: name)
        guard let output else {
            throw SnapshotError(.templateNotFound(name: format.rawValue + "/" + name), path: directory.path)
        }
        return output
    }

    /// The names of the templates in `folder` (`book`, `partials/pager`).
    static func templateNames(in folder: URL) -> [String] {
        (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".mustache") }
            .map { String($0.dropLast(".mustache".count)) }
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? MustacheTemplate.ParserError { return describe(error.error) }
        switch error as? MustacheTemplate.Error {
        case .sectionCloseNameIncorrect?: return "a section is closed with a different name than it was opened with"
        case .unfinishedName?: return "a tag is not closed (missing }})"
        case .expectedSectionEnd?: return "a section is opened but never closed"
        case .invalidSetDelimiter?: return "invalid set-delimiter tag"
        case .transformAppliedToInheritanceSection?: return "a transform cannot apply to an inheritance section"
        case .illegalTokenInsideInheritSection?, .textInsideInheritSection?: return "only {{$blocks}} may stand inside a {{<layout}} section"
        case .invalidConfigVariableSyntax?, .unrecognisedConfigVariable?: return "unknown {{% … }} setting"
        default: return String(describing: error)
        }
    }
}

/// The libraries pages are rendered with, each made when a page first needs it: a night with
/// nothing changed renders nothing, and parsing every kind four times (as loaded, with the words
/// written in, and once for each depth of page) was most of what it did before its first request.
/// The templates are parsed once, on a thread of their own from the moment they are loaded
/// (`TemplateSet.check` waits for it), so a syntax error is still told before the crawl.
final class PreparedLibraries: Sendable {
    /// How one kind's libraries are made: the words (`Language.writtenInto`) and the root written
    /// in, in html/ the escaping, and the added pages a set copied before them lacks.
    struct Recipe: Sendable {
        let library: MustacheLibrary
        let folder: URL
        let format: OutputFormat
        let language: Language
        let added: [(name: String, text: String)]

        func make(root: String?) throws -> MustacheLibrary {
            let words = { (text: String) in language.writtenInto(text, html: format == .html, root: root) }
            var written = format == .html ? try HTMLEscaping.everyTemplate(of: library, in: folder, words) : try library.rewritten(in: folder, words)
            for (name, text) in added {
                try written.register((format == .html ? "{{%CONTENT_TYPE:\(HTMLEscaping.name)}}\n" : "") + words(text), named: name)
            }
            return written
        }

        /// Whether its pages still look the language's words up as they are made (a user's template
        /// with `{{#t.…}}`); otherwise they were written in. Told from the text as it will be
        /// written, without parsing it again.
        var looksWordsUp: Bool {
            let texts = TemplateSet.templateNames(in: folder).compactMap { library.getTemplate(named: $0)?.description } + added.map(\.text)
            return texts.contains { Language.namesWords(language.writtenInto($0, html: format == .html)) }
        }
    }

    private struct Key: Hashable {
        let format: OutputFormat
        let root: String?
    }

    /// The kinds' recipes once parsed, or why they could not be (nil while the parse runs), and
    /// who waits for them without a thread.
    private struct Parse {
        var recipes: Result<[OutputFormat: Recipe], Error>?
        var waiting: [CheckedContinuation<[OutputFormat: Recipe], Error>] = []
    }
    private let parse = NIOLockedValueBox(Parse())
    /// Left when the parse is done: what waits with a thread of its own waits for this.
    private let parseDone = DispatchGroup()
    private struct Made {
        var libraries: [Key: MustacheLibrary] = [:]
        /// `Recipe.looksWordsUp` of each kind, once a page asked (the look took a night that
        /// renders nothing a fifth of what it did before its first request).
        var wordsLookedUp: [OutputFormat: Bool] = [:]
    }
    private let made = NIOLockedValueBox(Made())

    /// Starts `parse` on a thread of its own (not one of Swift's: a page made on one of those
    /// may wait for it).
    init(parsing: @escaping @Sendable () throws -> [OutputFormat: Recipe]) {
        parseDone.enter()
        let thread = Thread { [self] in
            let result = Result { try parsing() }
            let waiting = parse.withLockedValue { parse in
                parse.recipes = result
                defer { parse.waiting = [] }
                return parse.waiting
            }
            parseDone.leave()
            for continuation in waiting { continuation.resume(with: result) }
        }
        thread.name = "templates"
        thread.start()
    }

    /// The recipes, once parsed: waits for them.
    private func parsedNow() throws -> [OutputFormat: Recipe] {
        parseDone.wait()
        return try parse.withLockedValue { $0.recipes! }.get()
    }

    /// The recipes, once parsed, without holding a thread meanwhile.
    func parsed() async throws -> [OutputFormat: Recipe] {
        try await withCheckedThrowingContinuation { continuation in
            let recipes = parse.withLockedValue { parse in
                if parse.recipes == nil { parse.waiting.append(continuation) }
                return parse.recipes
            }
            if let recipes { continuation.resume(with: recipes) }
        }
    }

    func looksWordsUp(_ format: OutputFormat) throws -> Bool {
        let recipes = try parsedNow()
        return made.withLockedValue { made in
            if let known = made.wordsLookedUp[format] { return known }
            let looks = recipes[format]?.looksWordsUp ?? false
            made.wordsLookedUp[format] = looks
            return looks
        }
    }

    /// The kind's library with `root` written in (nil: looked up on the page). Made under the lock:
    /// the first pages, one on each core, wait for it rather than make it twice.
    func library(_ format: OutputFormat, root: String?) throws -> MustacheLibrary? {
        let recipes = try parsedNow()
        return try made.withLockedValue { made in
            let key = Key(format: format, root: root)
            if let library = made.libraries[key] { return library }
            guard let recipe = recipes[format] else { return nil }
            let library = try recipe.make(root: root)
            made.libraries[key] = library
            return library
        }
    }
}
