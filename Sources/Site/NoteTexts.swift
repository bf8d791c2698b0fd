import Foundation
import LibraryArchive
import NIOConcurrencyHelpers
import Notes
import SnapshotStore
import Support

/// What each book's note becomes in one render, made once, when its book's pages are: its Markdown
/// read from the library once and parsed by cmark once, for every output that shows it. Each
/// format says what it shows (`Use`): the Markdown, the plain text, or the HTML of some books
/// (a book's own page has it as it is made).
///
/// The texts wait in a file, not in memory: at 100,000 books they are tens of megabytes, beside
/// the list pages being made. Each job of books hands in its books' texts at once (`Making`);
/// once every book's are in, the outputs read them (`NoteTexts`).
final class NoteTexts: Sendable {
    /// What one format shows of the notes (its `OutputFormat.Traits`).
    struct Use: Sendable {
        /// The Markdown, as written (the CSV, the BibTeX).
        var markdown = false
        /// The plain text (the site's search, lookup and previews, the OPDS catalog).
        var plainText = false
        /// The books whose note it shows as HTML, apart from the books' own pages (the feeds).
        var htmlOf: (@Sendable (SiteModel) -> Set<Int>)?
    }

    /// What the render's outputs need of the notes: what their formats use, together.
    struct Needs: Sendable {
        var markdown: Bool
        var plainText: Bool
        /// The books whose HTML a format shows.
        var htmlOf: Set<Int>

        init(formats: Set<OutputFormat>, model: SiteModel) {
            let uses = formats.map(\.traits.notes)
            markdown = uses.contains { $0.markdown }
            plainText = uses.contains { $0.plainText }
            htmlOf = uses.reduce(into: Set<Int>()) { books, use in use.htmlOf.map { books.formUnion($0(model)) } }
        }
    }

    /// Where a book's texts lie in the file: its Markdown, then its plain text.
    fileprivate struct Place {
        var start = 0
        var markdown: UInt32 = 0
        var plainText: UInt32 = 0
    }

    /// The books' texts of one job, in the order they were made.
    struct Part {
        fileprivate var bytes: [UInt8] = []
        fileprivate var places: [(place: Int, Place)] = []
        fileprivate var html: [(place: Int, Range<Int>)] = []
        /// How many notes cmark parsed.
        fileprivate var parsed = 0

        /// Keeps the Markdown of the book at `place`, its plain text, and the HTML a feed shows.
        fileprivate mutating func append(_ markdown: String, plainText: String, html: String?, at place: Int) {
            let start = bytes.count
            bytes.append(contentsOf: markdown.utf8)
            bytes.append(contentsOf: plainText.utf8)
            places.append((place, Place(start: start, markdown: UInt32(markdown.utf8.count), plainText: UInt32(plainText.utf8.count))))
            if let html {
                let start = bytes.count
                bytes.append(contentsOf: html.utf8)
                self.html.append((place, start..<bytes.count))
            }
        }
    }

    /// The texts being made, by the jobs of books on every core.
    final class Making: Sendable {
        let needs: Needs
        private let file: SpillFile
        private let made: NIOLockedValueBox<(places: [Place], html: [Int: Range<Int>], parsed: Int)>

        init(count: Int, needs: Needs, spillingInto writer: SnapshotWriter) throws {
            self.needs = needs
            file = try writer.spillFile()
            made = NIOLockedValueBox(([Place](repeating: Place(), count: count), [:], 0))
        }

        /// The note of a book, parsed once if an output shows more than its Markdown: its HTML when
        /// `pageShowsHTML` or a feed shows it, its plain text when an output needs it. Kept in the
        /// job's `part`, and given back for the book's page.
        func make(_ markdown: String, at place: Int, pageShowsHTML: Bool, into part: inout Part) -> CMark.Rendered {
            guard !markdown.isEmpty else { return CMark.Rendered() }
            let feedShowsHTML = needs.htmlOf.contains(place)
            let html = pageShowsHTML || feedShowsHTML
            if html || needs.plainText { part.parsed += 1 }
            let note = CMark.render(markdown, html: html, plainText: needs.plainText)
            // Only what a later output reads waits in the file.
            if needs.markdown || needs.plainText || feedShowsHTML {
                part.append(needs.markdown ? markdown : "", plainText: note.plainText, html: feedShowsHTML ? note.html : nil, at: place)
            }
            return note
        }

        /// Keeps a job's texts, written to the file at once.
        func keep(_ part: Part) throws {
            let start = part.bytes.isEmpty ? 0 : try file.append(Data(part.bytes)).lowerBound
            made.withLockedValue { made in
                made.parsed += part.parsed
                for (place, texts) in part.places {
                    var texts = texts
                    texts.start += start
                    made.places[place] = texts
                }
                for (place, range) in part.html {
                    made.html[place] = start + range.lowerBound..<start + range.upperBound
                }
            }
        }

        /// Every book's texts, once every job has kept its own.
        func finish() -> NoteTexts {
            let made = made.withLockedValue { made in
                defer { made = ([], [:], 0) }
                return made
            }
            return NoteTexts(file: file, places: made.places, html: made.html, parsed: made.parsed)
        }
    }

    private let file: SpillFile
    private let places: [Place]
    private let html: [Int: Range<Int>]
    /// How many notes cmark parsed in this render: each at most once.
    let parsed: Int

    private init(file: SpillFile, places: [Place], html: [Int: Range<Int>], parsed: Int) {
        self.file = file
        self.places = places
        self.html = html
        self.parsed = parsed
    }

    /// The Markdown of the book's note; empty without one, or when no format shows the Markdown.
    func markdown(of place: Int) throws -> String {
        let texts = places[place]
        return try text(texts.start..<texts.start + Int(texts.markdown))
    }

    /// The plain text of the book's note; empty without one.
    func plainText(of place: Int) throws -> String {
        let texts = places[place]
        let start = texts.start + Int(texts.markdown)
        return try text(start..<start + Int(texts.plainText))
    }

    /// The HTML of the note of a book a feed shows; nil without a note.
    func html(of place: Int) throws -> String? {
        try html[place].map(text)
    }

    private func text(_ range: Range<Int>) throws -> String {
        range.isEmpty ? "" : String(decoding: try file.read(range), as: UTF8.self)
    }
}
