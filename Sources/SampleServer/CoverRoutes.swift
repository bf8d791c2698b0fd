import Foundation
import Hummingbird
import NIOCore

/// Active Storage as Reader runs it: a stable blob URL that redirects to the disk service, or to a
/// signed, expiring URL on another host (object storage).
struct CoverRoutes: Sendable {
    let server: SampleServer
    var library: SampleLibrary { server.library }

    /// Covers were uploaded long ago: a fixed Last-Modified.
    static let lastModified = "Mon, 01 Jan 2024 00:00:00 GMT"

    static let signedPrefix = "eyJfcmFpbHMiOnsiZGF0YSI6"

    static func signedID(book: Int) -> String {
        signedPrefix + String(book * 7919 + 104_729, radix: 36) + "--" + String(book * 31 + 7, radix: 16)
    }

    /// The book a signed id was made for, if it is one of ours.
    static func book(fromSignedID signed: String) -> Int? {
        guard signed.hasPrefix(signedPrefix),
              let encoded = signed.dropFirst(signedPrefix.count).split(separator: "-").first,
              let value = Int(encoded, radix: 36), (value - 104_729) % 7919 == 0
        else { return nil }
        let id = (value - 104_729) / 7919
        return signedID(book: id) == signed ? id : nil
    }

    @Sendable func blobRedirect(_ request: Request, context: BasicRequestContext) async throws -> Response {
        guard let signed = context.parameters.get("signed"), let id = Self.book(fromSignedID: signed),
              let book = library.book(id: id), let cover = book.cover
        else {
            return Response(status: .notFound, headers: [.contentType: "text/html"])
        }
        let host = request.head.authority ?? "127.0.0.1"
        let location: String
        switch cover {
        case .disk(let file):
            location = "http://\(host)/rails/active_storage/disk/\(Self.token(file))/\(file)"
        case .missing:
            location = "http://\(host)/rails/active_storage/disk/\(Self.token("gone"))/cover.jpg"
        case .objectStorage(let file):
            // Another origin: same port, another host name. A new signature at every request.
            let other = Self.otherHost(host)
            let expires = Int(Date().timeIntervalSince1970) + 300
            let signature = SampleServer.randomKey()
            location = "http://\(other)/storage/\(file)?X-Amz-Expires=\(expires)&X-Amz-Signature=\(signature)"
        case .redirectLoop:
            location = "http://\(host)/rails/active_storage/blobs/redirect/\(signed)/loop.jpg"
        case .thirdPartyGone, .thirdPartyNotImage, .external:
            return Response(status: .notFound, headers: [.contentType: "text/html"])
        }
        return Response(status: .found, headers: [.location: location, .cacheControl: "max-age=300, private"])
    }

    /// The same server under another name: a second origin on loopback, for "object storage" and
    /// "third-party" covers.
    static func otherHost(_ authority: String) -> String {
        let port = authority.split(separator: ":").last.flatMap { Int($0) }.map { ":\($0)" } ?? ""
        return (authority.hasPrefix("localhost") ? "127.0.0.1" : "localhost") + port
    }

    static func token(_ file: String) -> String {
        var hasher = FNV1a()
        hasher.add(Data(file.utf8))
        return String(hasher.value, radix: 36)
    }

    @Sendable func disk(_ request: Request, context: BasicRequestContext) async throws -> Response {
        guard let file = context.parameters.get("file"), let token = context.parameters.get("token"),
              token == Self.token(file), let data = library.coverFiles[file]
        else {
            // Active Storage answers a missing file with an empty body and an image type.
            return Response(status: .notFound, headers: [.contentType: "image/jpeg"])
        }
        if server.state.failingCovers.contains(file) {
            return Response(status: .serviceUnavailable, headers: [.contentType: "text/html"])
        }
        if request.headers[.ifModifiedSince] == Self.lastModified {
            return Response(status: .notModified, headers: [.lastModified: Self.lastModified])
        }
        return image(data, file: file, extra: [.lastModified: Self.lastModified])
    }

    @Sendable func objectStorage(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        if query.get("api_key") != nil || query.get("user_id") != nil {
            server.state.count { $0.keyLeaks += 1 }
        }
        guard let file = context.parameters.get("file"), let data = library.coverFiles[file],
              let expires = query.get("X-Amz-Expires").flatMap(Int.init), query.get("X-Amz-Signature") != nil,
              expires >= Int(Date().timeIntervalSince1970)
        else {
            return Response(status: .forbidden, headers: [.contentType: "application/xml"],
                            body: .init(byteBuffer: ByteBuffer(string: "<Error><Code>AccessDenied</Code></Error>")))
        }
        return image(data, file: file, extra: [:])
    }

    /// A cover-search site that answers with a page, not an image.
    @Sendable func thirdPartyPage(_ request: Request, context: BasicRequestContext) async throws -> Response {
        Response(status: .ok, headers: [.contentType: "image/jpeg"],
                 body: .init(byteBuffer: ByteBuffer(string: "<html><body>Cover not found</body></html>")))
    }

    /// The Content-Type follows the file name, which may lie: clients must read the bytes.
    private func image(_ data: Data, file: String, extra: HTTPFields) -> Response {
        server.state.count { counters in
            counters.coverRequests += 1
            counters.coverBytes += data.count
        }
        let type: String
        switch (file as NSString).pathExtension.lowercased() {
        case "png": type = "image/png"
        case "gif": type = "image/gif"
        case "webp": type = "image/webp"
        default: type = "image/jpeg"
        }
        var headers: HTTPFields = [.contentType: type]
        headers.append(contentsOf: extra)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension SampleServer {
    /// A cover's address on the disk service itself, answered with `Last-Modified` and 304s: a
    /// cover URL that is not an Active Storage blob is asked again each night, conditionally.
    public static func diskCoverPath(_ file: String) -> String {
        "/rails/active_storage/disk/\(CoverRoutes.token(file))/\(file)"
    }
}
