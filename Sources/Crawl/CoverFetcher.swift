import AsyncHTTPClient
import Crypto
import Foundation
import LibraryArchive
import NIOCore
import Notes
import ReaderAPI
import SnapshotStore
import Support

/// Why a cover is not in the snapshot.
package struct CoverProblem: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    /// The address itself is unusable (not a URL, not http): no later run can do better, and
    /// finding out costs nothing, so it is not put off to a later run.
    package var inTheAddress = false
    package var description: String { message }

    init(message: String, inTheAddress: Bool = false) {
        self.message = UntrustedText.displayable(message)
        self.inTheAddress = inTheAddress
    }
}

/// Downloads covers, following redirects by hand: at most a few, http and https only, and never with
/// the api key (covers need none, wherever they live). A cover the last run kept is reused: without
/// a request when its URL is an Active Storage blob (a new image gets a new blob), with a
/// conditional request otherwise.
struct CoverFetcher: Sendable {
    let client: ReaderClient
    let writer: SnapshotWriter
    /// The last run's covers, by URL (their files are in `writer.previous`).
    let previous: CoverRecords?
    /// Each third-party host's verdict, looked up once a run: a real library had 52 covers on a
    /// host that is gone, and a resolver can take seconds to say so, each time it is asked.
    let hosts = HostVerdicts()

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

    /// Active Storage blob URLs on the Reader server name one image for good.
    func isImmutable(_ url: URL) -> Bool {
        client.server.isSameOrigin(url) && url.path.contains("/rails/active_storage/blobs/")
    }

    /// The cover, how many requests it took (a blob kept from the last run takes none), and the
    /// last run's line for it when the record is that one unchanged.
    func fetch(_ imageURL: String) async -> (result: Result<CoverRecord, CoverProblem>, requests: Int, line: Data?) {
        guard let url = resolve(imageURL) else {
            return (.failure(CoverProblem(message: "the cover URL is not a URL", inTheAddress: true)), 0, nil)
        }
        var kept: (record: CoverRecord, line: Data)?
        if let last = previous?.recordAndLine(imageURL), CoverFile.isWellFormed(path: last.record.file.path) {
            // Linking checks the kept file as well: a night with nothing changed links every cover.
            if isImmutable(url), reuse(last.record) {
                return (.success(last.record), 0, last.line)
            }
            if writer.previousFile(last.record.file.path) != nil { kept = last }
        }
        var requests = 0
        let result = await client.retrying { await download(url, kept: kept?.record, requests: &requests) }
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
        let trusted = client.server.isSameOrigin(start)
        while true {
            guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = url.host else {
                return .done(.failure(CoverProblem(message: "the cover URL is not http or https", inTheAddress: true)))
            }
            if !trusted, let refusal = await hosts.refusal(forHost: host) {
                return .done(.failure(CoverProblem(message: "\(Self.describe(url)): refused, \(refusal)")))
            }
            var request = HTTPClientRequest(url: url.absoluteString)
            request.headers.add(name: "Accept", value: "image/*")
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
                // A host that takes no connection is gone rather than busy.
                return transport.couldNotConnect ? .done(.failure(problem)) : .again(problem)
            }
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
            if let kept, reuse(kept) {
                client.metrics.record { $0.notModified += 1 }
                return .done(.success(kept))
            }
            return .done(.failure(CoverProblem(message: "\(place): 304 for a cover that was not kept")))
        case .busy(let retryAfter):
            return .again(CoverProblem(message: "\(place): HTTP \(status)"), retryAfter: retryAfter)
        case .crash:
            return .again(CoverProblem(message: "\(place): HTTP \(status)"))
        case .answer, .redirect, .final:
            return .done(.failure(CoverProblem(message: "\(place): HTTP \(status)")))
        }
        // Streamed to disk as it arrives: a cover is never held whole in memory.
        let download: CoverDownload
        do {
            download = try await CoverDownload.receive(response.body, into: writer, limit: client.limits.coverBytes)
        } catch let failure as CoverDownload.Failure {
            switch failure {
            case .tooLarge: return .done(.failure(CoverProblem(message: "\(place): larger than \(client.limits.coverBytes) bytes")))
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
            return .done(.failure(CoverProblem(message: "\(place): an empty answer")))
        }
        guard let format = ImageFormat(sniffing: download.head) else {
            download.discard()
            return .done(.failure(CoverProblem(message: "\(place): not a JPEG, PNG, GIF or WebP image")))
        }
        return .done(store(download, format: format).map { file in
            client.metrics.record { $0.coversDownloaded += 1 }
            return CoverRecord(file: file, etag: response.headers.first(name: "ETag"),
                               lastModified: response.headers.first(name: "Last-Modified"),
                               finalURL: url.query == nil ? url.absoluteString : nil)
        })
    }

    /// Links the kept file into the new snapshot.
    private func reuse(_ record: CoverRecord) -> Bool {
        guard writer.linkFromPrevious(record.file.path) else { return false }
        client.metrics.record { $0.coversReused += 1 }
        return true
    }

    private func store(_ download: CoverDownload, format: ImageFormat) -> Result<CoverFile, CoverProblem> {
        let path = "covers/\(download.sha256.prefix(32)).\(format.fileExtension)"
        do {
            try writer.place(download.file, at: path)
        } catch {
            download.discard()
            return .failure(CoverProblem(message: "could not write \(path): \(error)"))
        }
        let size = ImageFormat.dimensions(of: download.head, format: format)
        return .success(CoverFile(path: path, format: format, bytes: download.bytes, sha256: download.sha256,
                                  width: size?.width, height: size?.height))
    }

    /// Host and path only: signed storage URLs carry tokens in the query. The path stays
    /// percent-encoded, so that no control character from a URL reaches a terminal.
    static func describe(_ url: URL) -> String {
        let host = (url.host ?? "?").contains(":") ? "[\(url.host!)]" : (url.host ?? "?")
        let port = url.port.map { ":\($0)" } ?? ""
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? ""
        return UntrustedText.displayable("\(url.scheme ?? "?")://\(host)\(port)\(path)")
    }
}

/// A cover's bytes as they arrive: written to a temporary file beside the covers, hashed on the
/// way, with the first 64 KB kept to tell the format and size.
struct CoverDownload {
    enum Failure: Error {
        case tooLarge
        case notWritable(String)
    }

    static let headBytes = 65_536

    let file: URL
    let bytes: Int
    let sha256: String
    let head: [UInt8]

    static func receive(_ body: HTTPClientResponse.Body, into writer: SnapshotWriter, limit: Int) async throws -> CoverDownload {
        let folder = try writer.url(for: "covers")
        let file = folder.appendingPathComponent(".download-\(UUID().uuidString)")
        // Created and opened in one call: FileManager.createFile writes a temporary file and
        // renames it, which cost more than the rest of a small cover's download. The folder is
        // made by the first cover.
        func create() -> Int32 { open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        var descriptor = create()
        if descriptor < 0, errno == ENOENT {
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            descriptor = create()
        }
        guard descriptor >= 0 else {
            throw Failure.notWritable("cannot create \(file.lastPathComponent): \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        var hasher = SHA256()
        var head: [UInt8] = []
        var bytes = 0
        do {
            for try await chunk in body {
                bytes += chunk.readableBytes
                guard bytes <= limit else { throw Failure.tooLarge }
                chunk.withUnsafeReadableBytes { buffer in
                    hasher.update(bufferPointer: buffer)
                    if head.count < headBytes { head.append(contentsOf: buffer.prefix(headBytes - head.count)) }
                }
                try handle.write(contentsOf: Data(chunk.readableBytesView))
            }
            try handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: file)
            throw error
        }
        let sha256 = hasher.finalize().hexString
        return CoverDownload(file: file, bytes: bytes, sha256: sha256, head: head)
    }

    func discard() {
        try? FileManager.default.removeItem(at: file)
    }
}
