import AsyncHTTPClient
import Foundation
import LibraryArchive
import ReaderAPI
import SnapshotStore
import Support
import Thumbnails

/// Downloads covers, following redirects by hand: at most a few, http and https only, and never with
/// the api key (covers need none, wherever they live). A cover the last run kept is reused: without
/// a request when its URL is an Active Storage blob (a new image gets a new blob), with a
/// conditional request otherwise.
package struct CoverFetcher: Sendable {
    let client: ReaderClient
    package let writer: SnapshotWriter
    /// The last run's covers, by URL (their files are in `writer.previous`).
    let previous: CoverRecords?
    /// Open Library's covers, rather than the server's.
    var origin: CoverOrigin?
    /// Makes each new cover's thumbnails; nil: none are made (`--no-thumbnails`).
    let thumbnails: Thumbnailer?
    /// The crawl makes thumbnails itself, off the request's place (`addThumbnails`): a request's
    /// place goes to the next request while the cover is thumbnailed.
    package var defersThumbnails = false
    /// Each third-party host's verdict, looked up once a run: a real library had 52 covers on a
    /// host that is gone, and a resolver can take seconds to say so, each time it is asked.
    let hosts = HostVerdicts()
    /// Hosts whose connections time out: tried again a few times, then taken as gone.
    let silentHosts = SilentHosts()
    /// Each cover file's thumbnails are made once, whichever of the addresses that give its bytes asks.
    let thumbnailJobs = ThumbnailJobs()

    /// The URL a book's `image_url` points at: absolute, or relative to the server (older documents).
    func resolve(_ imageURL: String) -> URL? {
        let edges = [imageURL.unicodeScalars.first, imageURL.unicodeScalars.last]
        let trimmed = edges.contains { $0.map(CharacterSet.whitespacesAndNewlines.contains) ?? true }
            ? imageURL.trimmingCharacters(in: .whitespacesAndNewlines) : imageURL
        guard !trimmed.isEmpty else { return nil }
        if trimmed.hasPrefix("/") && !trimmed.hasPrefix("//") {
            return URL(string: client.server.description + trimmed)
        }
        return URL(string: trimmed, relativeTo: client.server.url(path: "/"))?.absoluteURL
    }

    package init(client: ReaderClient, writer: SnapshotWriter, previous: CoverRecords?, thumbnails: Thumbnailer?, origin: CoverOrigin? = nil) {
        self.client = client
        self.writer = writer
        self.previous = previous
        self.thumbnails = thumbnails
        self.origin = origin
    }

    /// Whether the last run kept a cover from this address (it may be linked without a request).
    package func hasKept(_ url: String) -> Bool { previous?.recordAndLine(url) != nil }

    /// Links every file of a cover the last snapshot had (the cover and its thumbnails); false
    /// when one is missing.
    package func keep(_ file: CoverFile) -> Bool {
        CoverFile.isWellFormed(path: file.path) && file.paths.allSatisfy { writer.linkFromPrevious($0) }
    }

    /// A book's `image_url` as problems name it: host and path, resolved like the request.
    package func describe(_ imageURL: String) -> String {
        resolve(imageURL).map(Self.describe) ?? UntrustedText.displayable(imageURL)
    }

    /// Active Storage blob URLs on the Reader server name one image for good, and so do Open
    /// Library's covers by id.
    func isImmutable(_ url: URL) -> Bool {
        if let origin { return origin.isSameOrigin(url) }
        return client.server.isSameOrigin(url) && url.path.contains("/rails/active_storage/blobs/")
    }

    /// The cover, how many requests it took (a blob kept from the last run takes none), and the
    /// last run's line for it when the record is that one unchanged.
    package func fetch(_ imageURL: String) async -> (result: Result<CoverRecord, CoverProblem>, requests: Int, line: Data?) {
        guard let url = resolve(imageURL) else {
            return (.failure(CoverProblem(message: "the cover URL is not a URL", inTheAddress: true)), 0, nil)
        }
        var kept: (record: CoverRecord, line: Data)?
        if let last = previous?.recordAndLine(imageURL), CoverFile.isWellFormed(path: last.record.file.path) {
            // Linking checks the kept file as well: a night with nothing changed links every cover.
            if isImmutable(url), let record = await reuseWithThumbnails(last.record) {
                return (.success(record), 0, record == last.record ? last.line : nil)
            }
            if writer.previousFile(last.record.file.path) != nil { kept = last }
        }
        var requests = 0
        // Open Library is asked once: a 403 or 429 there means "no more for now".
        let result: Result<CoverRecord, CoverProblem>
        if origin != nil {
            switch await download(url, kept: kept?.record, requests: &requests) {
            case .done(let done): result = done
            case .again(let problem, _): result = .failure(problem)
            }
        } else {
            result = await client.retrying { await download(url, kept: kept?.record, requests: &requests) }
        }
        // A cover the host could not give tonight (a timeout, a 5xx) is kept as the last snapshot
        // had it: nothing is lost because a host stumbled. A lasting no (404, a refused image) is
        // the host's word that the cover is gone, and is a gap.
        if let kept, case .failure(let problem) = result, !problem.lasting, !problem.throttled,
           let record = await reuseWithThumbnails(kept.record) {
            return (.success(record), requests, record == kept.record ? kept.line : nil)
        }
        let unchanged = if let kept, case .success(kept.record) = result { kept.line } else { Data?.none }
        return (result, requests, unchanged)
    }

    private typealias Try = FetchPolicy.Try<CoverRecord, CoverProblem>

    /// One try, from the stable URL: a signed URL it redirects to may have expired since the last try.
    private func download(_ start: URL, kept: CoverRecord?, requests: inout Int) async -> Try {
        var url = start
        var redirects = 0
        // The Reader server's own URLs, and where it sends us, are its business; a third-party
        // URL must not lead to this machine or the local network.
        // Open Library's covers: its own host is trusted, not where it redirects (archive.org, say).
        let trustedServer = origin == nil && client.server.isSameOrigin(start)
        while true {
            let trusted = trustedServer || origin?.isSameOrigin(url) == true
            guard let host = WebAddress(url)?.host else {
                return .done(.failure(CoverProblem(message: "the cover URL is not http or https", inTheAddress: true)))
            }
            if !trusted, let refusal = await hosts.refusal(forHost: host) {
                return .done(.failure(CoverProblem(message: "\(Self.describe(url)): refused, \(refusal)")))
            }
            var request = HTTPClientRequest(url: url.absoluteString)
            request.headers.add(name: "Accept", value: "image/*")
            if let origin {
                request.headers.add(name: "User-Agent", value: origin.userAgent)
                await origin.pace.wait()
            }
            if let kept, url.absoluteString == (kept.finalURL ?? start.absoluteString) {
                if let etag = kept.etag { request.headers.add(name: "If-None-Match", value: etag) }
                if let lastModified = kept.lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }
            }
            client.metrics.record { $0.requests += 1 }
            requests += 1
            let response: HTTPClientResponse
            do {
                response = try await client.http.execute(request, timeout: client.timeout)
            } catch {
                let transport = FetchPolicy.transport(error, redactor: client.redactor)
                let problem = CoverProblem(message: "\(Self.describe(url)): \(transport.description)")
                // A host that refuses or does not resolve is gone rather than busy; one whose
                // connection timed out may be either, and is tried again until it seems gone.
                if transport.connectTimedOut { return silentHosts.timedOut(host) ? .again(problem) : .done(.failure(problem)) }
                return transport.couldNotConnect ? .done(.failure(problem)) : .again(problem)
            }
            silentHosts.answered(host)
            guard case .redirect = FetchPolicy.status(Int(response.status.code), retryAfter: nil) else {
                return await answer(response, from: url, kept: kept)
            }
            redirects += 1
            guard redirects <= client.limits.redirects else {
                return .done(.failure(CoverProblem(message: "\(Self.describe(url)): more than \(client.limits.redirects) redirects")))
            }
            guard let location = response.headers.first(name: "Location"), let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                return .done(.failure(CoverProblem(message: "\(Self.describe(url)): a redirect without a usable Location")))
            }
            url = next
        }
    }

    /// What an answer that is not a redirect gives: the cover, the kept one, or why not.
    private func answer(_ response: HTTPClientResponse, from url: URL, kept: CoverRecord?) async -> Try {
        // Only a problem names the place: most covers need no name.
        var place: String { Self.describe(url) }
        let status = Int(response.status.code)
        switch FetchPolicy.status(status, retryAfter: response.headers.first(name: "Retry-After")) {
        case .answer where status == 200:
            break
        case .notModified:
            if let kept, let record = await reuseWithThumbnails(kept) {
                client.metrics.record { $0.notModified += 1 }
                return .done(.success(record))
            }
            return .done(.failure(CoverProblem(message: "\(place): 304 for a cover that was not kept")))
        case .busy where origin != nil && status == 429, .final where origin != nil && status == 403:
            return .done(.failure(CoverProblem(message: "\(place): HTTP \(status)", throttled: true)))
        case .busy(let retryAfter):
            return .again(CoverProblem(message: "\(place): HTTP \(status)"), retryAfter: retryAfter)
        case .crash:
            return .again(CoverProblem(message: "\(place): HTTP \(status)"))
        case .answer, .redirect, .final:
            return .done(.failure(CoverProblem(message: "\(place): HTTP \(status)", lasting: (400..<500).contains(status))))
        }
        // Streamed to disk as it arrives: a cover is never held whole in memory.
        let download: CoverDownload
        do {
            download = try await CoverDownload.receive(response.body, into: writer, limit: client.limits.coverBytes)
        } catch let failure as CoverDownload.Failure {
            switch failure {
            case .tooLarge: return .done(.failure(CoverProblem(message: "\(place): larger than \(client.limits.coverBytes) bytes", refusedImage: true)))
            case .notWritable(let detail): return .done(.failure(CoverProblem(message: "could not write a cover: \(detail)")))
            }
        } catch {
            return .again(CoverProblem(message: "\(place): \(FetchPolicy.transport(error, redactor: client.redactor).description)"))
        }
        client.metrics.record { metrics in
            metrics.bytesReceived += download.bytes
            metrics.coverBytes += download.bytes
        }
        guard download.bytes > 0 else {
            download.discard()
            return .done(.failure(CoverProblem(message: "\(place): an empty answer", lasting: true)))
        }
        guard let format = ImageFormat(sniffing: download.head) else {
            download.discard()
            return .done(.failure(CoverProblem(message: "\(place): not a JPEG, PNG, GIF or WebP image", refusedImage: true)))
        }
        return .done(await store(download, format: format, place: place).map { file in
            client.metrics.record { $0.coversDownloaded += 1 }
            return CoverRecord(file: file, etag: response.headers.first(name: "ETag"),
                               lastModified: response.headers.first(name: "Last-Modified"),
                               finalURL: url.query == nil ? url.absoluteString : nil)
        })
    }

    /// Links the kept file into the new snapshot.
    func reuse(_ record: CoverRecord) -> Bool {
        guard writer.linkFromPrevious(record.file.path) else { return false }
        client.metrics.record { $0.coversReused += 1 }
        return true
    }

    private func store(_ download: CoverDownload, format: ImageFormat, place: String) async -> Result<CoverFile, CoverProblem> {
        // The size from the header, ours or (where ours cannot tell: a JPEG's far in, a side past
        // 100,000) libvips' reading of the header alone.
        var size = ImageFormat.dimensions(of: download.head, format: format)
        if size == nil {
            switch Thumbnailer.size(of: download.file) {
            case .success(let read): size = read
            case .failure(let problem):
                download.discard()
                return .failure(CoverProblem(message: "\(place): \(problem.message)", refusedImage: true))
            }
        }
        // A few kilobytes can claim 60,000 × 60,000 pixels: such an image would take gigabytes in
        // any browser that opened it, and is refused before anything decodes it.
        if let size, size.width * size.height > Thumbnailer.pixelLimit {
            download.discard()
            return .failure(CoverProblem(message: "\(place): the image claims \(size.width) × \(size.height) pixels, more than \(Thumbnailer.pixelLimit / 1_000_000) million: refused",
                                         refusedImage: true))
        }
        let path = "covers/\(download.sha256.prefix(32)).\(format.fileExtension)"
        // The thumbnails first, from the download: an image no decoder can read is no cover (a
        // browser would show a broken one), and never reaches the snapshot.
        var thumbnailed: [Thumbnail]?
        if let thumbnails, !defersThumbnails {
            let result: Result<[Thumbnail], ThumbnailProblem>
            if let kept = keptThumbnails(of: path) { result = .success(kept) } else {
                result = await makeThumbnails(of: path, from: download.file, with: thumbnails)
            }
            switch result {
            case .success(let made): thumbnailed = made
            case .failure(let problem) where problem.libraryMissing:
                // The machine is at fault, not the cover: kept whole, thumbnailed on a later run.
                break
            case .failure(let problem):
                download.discard()
                return .failure(CoverProblem(message: "\(place): \(problem.message)", refusedImage: problem.unreadable))
            }
        }
        do {
            try writer.place(download.file, at: path)
        } catch {
            download.discard()
            return .failure(CoverProblem(message: "could not write \(path): \(error)"))
        }
        return .success(CoverFile(path: path, format: format, bytes: download.bytes, sha256: download.sha256, width: size?.width,
                                  height: size?.height, source: origin == nil ? nil : .openLibrary, thumbnails: thumbnailed))
    }

    /// Host and path only: signed storage URLs carry tokens in the query. The path stays
    /// percent-encoded, so that no control character from a URL reaches a terminal.
    package static func describe(_ url: URL) -> String {
        let host = (url.host ?? "?").contains(":") ? "[\(url.host!)]" : (url.host ?? "?")
        let port = url.port.map { ":\($0)" } ?? ""
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? ""
        return UntrustedText.displayable("\(url.scheme ?? "?")://\(host)\(port)\(path)")
    }
}
