import Foundation
import LibraryArchive
import ReaderAPI
import Logging
import Crawl
import PrivateCatalog
import Site
import SnapshotStore
import Support
import Timeline

extension Exporter {
    /// What the pages of a copy are, resolved by the command from its options once the place and
    /// the archive's own language are known (the pages keep it unless `--language` says otherwise).
    package typealias ResolveSite = @Sendable (_ place: SnapshotPlace, _ archiveLanguage: String?) async throws -> SiteIdentity

    /// Renders a snapshot again from its `library.json`, with the covers beside it. The books are
    /// read from the file as their pages are made; `privacy` leaves out of them what it names.
    ///
    /// It enters the night's phases at `Made`: the catalog for friends is sealed, and the snapshot
    /// swapped into place, by the night's own steps.
    package static func render(from archive: URL, to output: URL, site: ResolveSite, privacy: Privacy = Privacy(),
                               logger: Logger, live: LiveProgress? = nil) async throws -> LibraryFile {
        var steps = StepRunner(logger: logger)
        var made = try await steps.start("render from \(archive.lastPathComponent)") {
            try await make(from: archive, to: output, site: site, privacy: privacy, logger: logger, live: live)
        }
        made = try await sealIfAsked(consume made, steps: &steps, logger: logger)
        return try await steps.run("swap it into place", consume made) { made in
            let swap = made.output.swap
            defer { swap.finish() }
            return try swapIntoPlace(made, linkedFrom: nil, logger: logger)
        }
    }

    /// The pages made in a staging folder from `library.json`.
    private static func make(from archive: URL, to output: URL, site: ResolveSite, privacy: Privacy,
                             logger: Logger, live: LiveProgress?) async throws -> Made<LibraryFile> {
        // On a thread of its own: the threads answers resume on are the network's.
        let read = try await EveryCore.onThreadOfItsOwn("read") { try readArchive(archive, privacy: privacy) }
        let place = SnapshotPlace(root: output, keep: nil)
        let identity = try await site(place, read.frame.language)
        let swap = try SnapshotSwap(output: output)
        do { try PrivateCatalogFolder.settle(snapshot: output, root: output) } catch { swap.discard(); swap.finish(); throw error }
        let writer = swap.writer
        do {
            let library = try await EveryCore.onThreadOfItsOwn("render") {
                try renderNow(read, from: archive, into: writer, site: identity, privacy: privacy, logger: logger, live: live)
            }
            return Made(output: Output(place: place, swap: swap, target: output), site: identity, rendered: true, kept: library)
        } catch {
            swap.discard()
            throw error
        }
    }

    /// The one set-up of the pages' renderer, for the night's render and `render --from`.
    static func renderer(site: SiteIdentity, live: LiveProgress?) -> SiteRenderer {
        var renderer = SiteRenderer(site: site)
        renderer.progress = live
        return renderer
    }

    private static func readArchive(_ archive: URL, privacy: Privacy) throws -> LibraryFile {
        MemoryUsage.configureAllocator()
        let file: LibraryFile
        do {
            file = try LibraryFile.read(from: archive)
        } catch let error as SnapshotError {
            throw error
        } catch let error as DecodingError {
            let (path, detail) = ReaderClient.describe(error)
            throw SnapshotError(.unreadableArchive(detail: "\(path.isEmpty ? "" : path + ": ")\(detail)"), path: archive.path)
        } catch {
            throw SnapshotError(.unreadableArchive(detail: error.localizedDescription), path: archive.path)
        }
        // Whole in memory, once: a copy for friends is made rarely, and the render then reads
        // the books from memory as it reads them from the file otherwise.
        return try privacy.applied(to: file)
    }

    private static func renderNow(_ library: LibraryFile, from archive: URL, into writer: SnapshotWriter, site: SiteIdentity, privacy: Privacy,
                                  logger: Logger, live: LiveProgress?) throws -> LibraryFile {
        var library = library
        MemoryUsage.release()
        // --title names the catalog anew; without it, the archive's own name stands.
        if let title = site.givenTitle { library.frame.title = title }
        let source = archive.deletingLastPathComponent()
        // An archive is input like any other: a cover path must be one this tool writes.
        var refused = 0
        for index in library.entries.indices {
            if let cover = library.entries[index].cover, !CoverFile.isWellFormed(path: cover.path) {
                library.removeCover(at: index)
                refused += 1
            }
        }
        if refused > 0 { logger.warning("\(refused) cover paths in library.json are not of the form covers/<hash>.<ext>; those covers are left out") }
        // A report made without tonight's privacy options names what they leave out: it is left out.
        let changes = privacy.isActive ? nil : ChangeReport.read(in: source)
        // The timeline beside the archive, as the copy's privacy options show it: every page of it
        // is made again. One that cannot be read is said, and the copy is made without it.
        var timeline: Timeline?
        do {
            timeline = try Timeline.read(in: source).map { privacy.shown($0, with: library) }
        } catch {
            logger.warning("\(error): the copy is made without the timeline")
        }
        var missing = 0
        // Paths as strings, and each cover looked at once however many books share it: a URL
        // asks the disk whether each name is a folder, and a 10,000-book library's checks were
        // 100,000 calls to the disk before the first page.
        let sourcePath = source.standardizedFileURL.path
        func isThere(_ path: String) -> Bool { FileManager.default.fileExists(atPath: sourcePath + "/" + path) }
        // A cover whose thumbnails are not all beside the archive is shown whole.
        var unthumbnailed = 0
        var thumbnailsThere: [String: Bool] = [:]
        for index in library.entries.indices {
            guard let cover = library.entries[index].cover, let first = cover.thumbnail(ThumbnailBox.all[0]) else { continue }
            let there = thumbnailsThere[first] ?? {
                let there = ThumbnailBox.all.compactMap(cover.thumbnail).allSatisfy(isThere)
                thumbnailsThere[first] = there
                return there
            }()
            if !there {
                library.removeThumbnails(at: index)
                unthumbnailed += 1
            }
        }
        if unthumbnailed > 0 { logger.warning("\(unthumbnailed) covers' thumbnails are not all beside library.json: those covers are shown whole") }
        var files = Set<String>()
        for card in library.entries {
            guard let cover = card.cover else { continue }
            files.insert(cover.path)
            for box in ThumbnailBox.all { if let thumbnail = cover.thumbnail(box) { files.insert(thumbnail) } }
        }
        for path in files.sorted() {
            if isThere(path) {
                try writer.link(URL(fileURLWithPath: sourcePath + "/" + path, isDirectory: false), to: path)
            } else {
                missing += 1
            }
        }
        if missing > 0 { logger.warning("\(missing) cover files named in library.json are not beside it") }
        try renderer(site: site, live: live).render(library, changes: changes, timeline: consume timeline, into: writer)
        return library
    }
}

extension Privacy {
    /// The timeline as this snapshot's privacy options show it: the same rule for a night and for
    /// `render --from`.
    func shown(_ timeline: Timeline, with library: LibraryFile) -> Timeline {
        timeline.shown(with: library, notes: notes, covers: covers, restricted: !excludedShelves.isEmpty)
    }
}
