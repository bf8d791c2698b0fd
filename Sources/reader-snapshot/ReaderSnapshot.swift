import ArgumentParser
import Export
import Foundation
import Logging
import ReaderAPI
import Site
import Support

struct ReaderSnapshot: AsyncParsableCommand {
    /// This release, the one place it is written: `--version`, `--verbose` runs and the pages'
    /// generator tag say it.
    static let version = ToolVersion.current

    static let configuration = CommandConfiguration(
        commandName: "reader-snapshot",
        abstract: "Keep a snapshot of your Reader library: an HTML site, Markdown notes and a JSON archive.",
        discussion: """
        Logs in to a Reader server, walks every shelf and book, downloads the covers, and writes a \
        browsable HTML site, a Markdown tree of your notes and library.json.

        Try it without a server: reader-snapshot demo

        \(ExitCodes.helpText())
        """,
        version: ReaderSnapshot.version,
        subcommands: [Export.self, Render.self, PublishCommand.self, HistoryCommand.self, Demo.self, SampleServerCommand.self, CopyTemplates.self]
    )
}

/// The summary of a run, and its exit code.
func report(_ night: NightSummary, formats: Set<OutputFormat>, logger: Logger, showPath: Bool = true) -> ExitCode {
    let output = night.place.shown
    let network = night.network
    let seconds = Double(night.duration.components.seconds) + Double(night.duration.components.attoseconds) / 1e18
    logger.info(night.unchanged
        ? "No changes: \(counted(night.books, "book", "books")) on \(counted(night.shelves, "shelf", "shelves")) in \(output.path), as they were"
        : "Wrote \(counted(night.books, "book", "books")) on \(counted(night.shelves, "shelf", "shelves")) (\(night.booksWithNotes) with notes) to \(output.path)")
    logger.info("""
        Covers: \(network.coversDownloaded) fetched, \(network.coversReused) unchanged, \(network.coversFailed) failed\(thumbnailed(network)). \
        Requests: \(network.requests) (\(network.notModified) not modified, \(network.retries) retries), \
        \(formatBytes(network.bytesReceived)) received in \(String(format: "%.1f", seconds)) s. \
        Changes: \(night.changes ?? "none since the last run")\(vaultConflicts(night)).
        """)
    if showPath && formats.contains(.html) {
        logger.info("Open \(output.appendingPathComponent("index.html").path)")
    }
    if let reason = network.thumbnailsUnavailable {
        logger.warning("No thumbnails were made: \(reason). Pages show those covers at full size until a run makes them; install libvips, or export with --no-thumbnails.")
    }
    guard night.hasGaps else { return .success }
    // Covers are counted as the "Covers:" line counts them, each address once; the books that
    // lack one are said beside, when two of them share a cover.
    let booksWithoutCover = night.booksWithoutCover
    // A run that asked for no cover (one whose crawl was taken from a quiet night's record keeps
    // that night's count) has only the books to count by.
    let coversNotFetched = booksWithoutCover == 0 ? 0 : network.coversFailed > 0 ? network.coversFailed : booksWithoutCover
    let forBooks = coversNotFetched == booksWithoutCover ? "" : " for \(booksWithoutCover) books"
    let shelfProblems = night.shelfPagesNotFetched, incomplete = night.booksWithoutDetails
    // Only what there is: "0 books without details" is not a gap.
    let parts = [(shelfProblems, counted(shelfProblems, "shelf page not fetched", "shelf pages not fetched")),
                 (incomplete, counted(incomplete, "book without details", "books without details")),
                 (coversNotFetched, counted(coversNotFetched, "cover not fetched", "covers not fetched") + forBooks)].filter { $0.0 > 0 }.map(\.1)
    let gaps = "Written with gaps: \(parts.joined(separator: ", ")) (listed in the snapshot)."
    // Gaps that were there last night too are not news: said as a warning, but not under --quiet.
    logger.log(level: night.newGaps > 0 ? .warning : .notice, "\(gaps)")
    return ExitCode(ExitCodes.writtenWithGaps)
}

/// How many images were thumbnailed this run, when any were: one image shared by two books is
/// thumbnailed once, and the others' thumbnails were linked from the last snapshot.
private func thumbnailed(_ network: ClientMetrics.Reading) -> String {
    network.thumbnailsMade == 0 ? "" : " (thumbnails made for \(counted(network.thumbnailsMade, "new image", "new images")))"
}

/// The change report's word on the vault: the notes edited there that changed on the server too.
private func vaultConflicts(_ night: NightSummary) -> String {
    guard let count = night.vault?.conflicts.count, count > 0 else { return "" }
    return "; \(counted(count, "file", "files")) in conflict with your edits in the Markdown folder (yours kept, the server's beside them)"
}

func formatBytes(_ bytes: Int) -> String {
    switch bytes {
    case ..<1024: return "\(bytes) B"
    case ..<(1024 * 1024): return String(format: "%.1f KB", Double(bytes) / 1024)
    default: return String(format: "%.1f MB", Double(bytes) / 1024 / 1024)
    }
}
