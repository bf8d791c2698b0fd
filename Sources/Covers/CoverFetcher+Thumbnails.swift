import Foundation
import LibraryArchive
import NIOConcurrencyHelpers
import SnapshotStore
import Thumbnails

/// A cover's thumbnails: made as it arrives, linked from the last snapshot on later nights.
extension CoverFetcher {
    /// The kept cover, linked with its thumbnails; those it lacks (a snapshot made before them, or
    /// with `--no-thumbnails`) are made from it, and those not wanted are dropped. Nil when the
    /// kept file is gone.
    func reuseWithThumbnails(_ record: CoverRecord) async -> CoverRecord? {
        guard reuse(record) else { return nil }
        var record = record
        guard let thumbnails else {
            record.file.thumbnails = nil
            return record
        }
        if let kept = record.file.thumbnails, kept.count == ThumbnailBox.all.count,
           kept.allSatisfy({ CoverFile.isWellFormed(thumbnailPath: $0.path) && writer.linkFromPrevious($0.path, size: $0.bytes) }) {
            return record
        }
        record.file.thumbnails = nil
        if defersThumbnails { return record }
        // A kept cover whose path is not the snapshot's, or whose thumbnails cannot be made, stays
        // whole, as `addThumbnails` keeps one; the next night makes them.
        guard let source = try? writer.url(for: record.file.path) else { return record }
        record.file.thumbnails = try? await makeThumbnails(of: record.file.path, from: source, with: thumbnails).get()
        return record
    }

    /// The thumbnails the last snapshot made of these very bytes (a cover is named by its hash),
    /// linked: the same cover from another address, or behind a new signed URL, is not decoded
    /// again, and a run that makes no thumbnail never loads libvips. Nil unless every one is there,
    /// a JPEG or PNG whose header gives its size.
    func keptThumbnails(of path: String) -> [Thumbnail]? {
        guard writer.previousFile(path) != nil else { return nil }
        for png in [false, true] {
            var kept: [Thumbnail] = []
            for box in ThumbnailBox.all {
                let thumbnail = box.path(forCover: path, png: png)
                guard let file = writer.previousFile(thumbnail), let (head, bytes) = Self.readHead(of: file),
                      let format = ImageFormat(sniffing: head), format == (png ? .png : .jpeg),
                      let size = ImageFormat.dimensions(of: head, format: format), size.width > 0, size.height > 0,
                      writer.linkFromPrevious(thumbnail, size: bytes) else { break }
                kept.append(Thumbnail(path: thumbnail, width: size.width, height: size.height, bytes: bytes))
            }
            if kept.count == ThumbnailBox.all.count { return kept }
        }
        return nil
    }

    /// A kept thumbnail's first 16 KB and its size; nil when it cannot be read, and the
    /// thumbnails are then made again.
    static func readHead(of file: URL) -> (head: [UInt8], bytes: Int)? {
        do {
            let handle = try FileHandle(forReadingFrom: file)
            // Closing a file that was only read loses nothing.
            defer { try? handle.close() }
            let head = try handle.read(upToCount: 16 * 1024).map { [UInt8]($0) } ?? []
            return (head, Int(try handle.seekToEnd()))
        } catch {
            return nil
        }
    }

    /// Whether the crawl is to make this cover's thumbnails (`defersThumbnails`).
    package func needsThumbnails(_ record: CoverRecord) -> Bool {
        thumbnails != nil && record.file.thumbnails == nil
    }

    /// The cover with its thumbnails, made from its file in the snapshot. A cover downloaded this
    /// run that no decoder can read is no cover (its file is taken out again); one kept from the
    /// last snapshot stays, shown whole.
    package func addThumbnails(_ record: CoverRecord, place: String) async -> Result<CoverRecord, CoverProblem> {
        // Without thumbnails asked for, or with a path that is not the snapshot's, the cover is shown whole.
        guard let thumbnails, let source = try? writer.url(for: record.file.path) else { return .success(record) }
        let path = record.file.path
        if let kept = keptThumbnails(of: path) {
            var record = record
            record.file.thumbnails = kept
            return .success(record)
        }
        switch await thumbnailJobs.result(for: path, { await makeThumbnails(of: path, from: source, with: thumbnails) }) {
        case .success(let made):
            var record = record
            record.file.thumbnails = made
            return .success(record)
        case .failure(let problem) where problem.libraryMissing:
            // The machine is at fault, not the cover: kept whole, thumbnailed on a later run.
            return .success(record)
        case .failure(let problem):
            guard writer.previousFile(record.file.path) == nil else { return .success(record) }
            // A file that cannot be taken out stays in the snapshot, named by no page.
            try? FileManager.default.removeItem(at: source)
            return .failure(CoverProblem(message: "\(place): \(problem.message)", refusedImage: problem.unreadable))
        }
    }

    /// The thumbnails of the cover at `path` (its bytes in `source`), written beside it
    /// (content-named: made once, linked on later nights).
    func makeThumbnails(of path: String, from source: URL, with thumbnails: Thumbnailer) async -> Result<[Thumbnail], ThumbnailProblem> {
        let made: [Thumbnailer.Made]
        switch await thumbnails.make(from: source) {
        case .success(let result): made = result
        case .failure(let problem):
            // Said once, at the end of the run: every cover would say the same.
            if problem.libraryMissing { client.metrics.record { $0.thumbnailsUnavailable = problem.message } }
            return .failure(problem)
        }
        client.metrics.record { $0.thumbnailsMade += 1 }
        var kept: [Thumbnail] = []
        for (box, image) in zip(ThumbnailBox.all, made) {
            let thumbnail = box.path(forCover: path, png: image.isPNG)
            do { try writer.writeOnce(image.data, to: thumbnail) } catch {
                return .failure(ThumbnailProblem(message: "could not write \(thumbnail): \(error)"))
            }
            kept.append(Thumbnail(path: thumbnail, width: image.width, height: image.height, bytes: image.data.count))
        }
        return .success(kept)
    }

}

/// The thumbnails of each cover file, made once: two addresses may give the same bytes at once.
final class ThumbnailJobs: Sendable {
    private let jobs = NIOLockedValueBox<[String: Task<Result<[Thumbnail], ThumbnailProblem>, Never>]>([:])

    func result(for path: String, _ make: @escaping @Sendable () async -> Result<[Thumbnail], ThumbnailProblem>) async -> Result<[Thumbnail], ThumbnailProblem> {
        let job = jobs.withLockedValue { jobs in
            if let running = jobs[path] { return running }
            let started = Task { await make() }
            jobs[path] = started
            return started
        }
        return await job.value
    }
}
