import ArgumentParser
import Foundation
import LibraryArchive
import Notes

/// For `make bench`: the notes path alone, rich text → Markdown → cmark-gfm HTML, over the notes
/// of a library.json, and the Markdown written out for the `cmark-gfm` command line to compare.
struct NotesBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-notes",
        abstract: "Measure the notes path over a library.json's notes (for make bench)."
    )

    @Option(name: .long, help: ArgumentHelp("A library.json.", valueName: "file"))
    var from: String

    @Option(name: .long, help: ArgumentHelp("Write all the Markdown here, for cmark-gfm to render.", valueName: "file"))
    var markdownOut: String?

    func run() throws {
        let library = try Library.read(from: URL(fileURLWithPath: from))
        let sources = library.books.compactMap(\.note.source).filter { !$0.isEmpty }
        let bytes = sources.reduce(0) { $0 + $1.utf8.count }
        var markdown = ""
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for source in sources {
                let note = Note(receiving: source)
                _ = note.html
                markdown += note.markdown + "\n"
            }
        }
        if let markdownOut { try markdown.write(toFile: markdownOut, atomically: true, encoding: .utf8) }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(String(format: "notes: %d notes, %.2f MB in %.3f s = %.1f MB/s", sources.count,
                     Double(bytes) / 1_048_576, seconds, Double(bytes) / 1_048_576 / seconds))
    }
}
