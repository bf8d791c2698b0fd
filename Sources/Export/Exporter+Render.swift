import Foundation
import LibraryArchive
import ReaderAPI
import Logging
import Site
import SnapshotStore
import Support

extension Exporter {
    /// Renders a snapshot again from its `library.json`, with the covers beside it. The books are
    /// read from the file as their pages are made.
    package static func render(from archive: URL, to output: URL, templates: TemplateSet,
                               formats: Set<OutputFormat>, siteURL: URL? = nil, shareCards: Bool = true, title: String? = nil,
                               logger: Logger) async throws -> Catalog {
        // On a thread of its own: the threads answers resume on are the network's.
        try await EveryCore.onThreadOfItsOwn("reader-snapshot render") {
            try renderNow(from: archive, to: output, templates: templates, formats: formats, siteURL: siteURL, shareCards: shareCards, title: title,
                          logger: logger)
        }
    }

    private static func renderNow(from archive: URL, to output: URL, templates: TemplateSet,
                                  formats: Set<OutputFormat>, siteURL: URL?, shareCards: Bool, title: String?, logger: Logger) throws -> Catalog {
        MemoryUsage.keepBigBlocksApart()
        var catalog: Catalog
        do {
            catalog = try Catalog.read(from: archive)
        } catch let error as SnapshotError {
            throw error
        } catch let error as DecodingError {
            let (path, detail) = ReaderClient.describe(error)
            throw SnapshotError(.unreadableArchive(detail: "\(path.isEmpty ? "" : path + ": ")\(detail)"), path: archive.path)
        } catch {
            throw SnapshotError(.unreadableArchive(detail: error.localizedDescription), path: archive.path)
        }
        MemoryUsage.release()
        // --title names the catalog anew; without it, the archive's own name stands.
        if let title { catalog.frame.title = title }
        let source = archive.deletingLastPathComponent()
        // An archive is input like any other: a cover path must be one this tool writes.
        var refused = 0
        for index in catalog.cards.indices {
            if let cover = catalog.cards[index].cover, !CoverFile.isWellFormed(path: cover.path) {
                catalog.removeCover(at: index)
                refused += 1
            }
        }
        if refused > 0 { logger.warning("\(refused) cover paths in library.json are not of the form covers/<hash>.<ext>; those covers are left out") }
        let changes = (try? Data(contentsOf: source.appendingPathComponent("changes.json")))
            .flatMap { try? JSONDecoder().decode(ChangeReport.self, from: $0) }
        let publisher = try Publisher(output: output)
        do {
            let writer = publisher.writer
            var missing = 0
            // A cover whose thumbnails are not all beside the archive is shown whole.
            var unthumbnailed = 0
            for index in catalog.cards.indices {
                guard let cover = catalog.cards[index].cover, cover.thumbnailsArePNG != nil else { continue }
                let missing = ThumbnailBox.all.compactMap(cover.thumbnail).contains {
                    !FileManager.default.fileExists(atPath: source.appendingPathComponent($0).path)
                }
                if missing {
                    catalog.removeThumbnails(at: index)
                    unthumbnailed += 1
                }
            }
            if unthumbnailed > 0 { logger.warning("\(unthumbnailed) covers' thumbnails are not all beside library.json: those covers are shown whole") }
            let files = catalog.cards.compactMap(\.cover).flatMap { cover in [cover.path] + ThumbnailBox.all.compactMap(cover.thumbnail) }
            for path in Set(files).sorted() {
                let file = source.appendingPathComponent(path)
                if FileManager.default.fileExists(atPath: file.path) {
                    try writer.link(file, to: path)
                } else {
                    missing += 1
                }
            }
            if missing > 0 { logger.warning("\(missing) cover files named in library.json are not beside it") }
            var renderer = SiteRenderer(templates: templates, formats: formats, siteURL: siteURL)
            renderer.shareCards = shareCards
            try renderer.render(catalog, changes: changes, into: writer)
            try publisher.publish()
        } catch {
            publisher.discard()
            throw error
        }
        return catalog
    }
}
