import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore

/// A cover stored in the snapshot, named by its content so that each distinct image is kept once.
public struct CoverFile: Codable, Sendable, Equatable {
    /// Relative to the snapshot's root: "covers/<hash>.<ext>".
    public var path: String
    public var format: ImageFormat
    public var bytes: Int
    public var sha256: String
}

/// Why a cover is not in the snapshot.
public struct CoverProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Downloads covers, following redirects by hand: at most a few, http and https only, and never with
/// the api key (covers need none, wherever they live).
struct CoverFetcher: Sendable {
    let client: ReaderClient
    let coversDirectory: URL

    /// The URL a book's `image_url` points at: absolute, or relative to the server (older documents).
    func resolve(_ imageURL: String) -> URL? {
        let trimmed = imageURL.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        if trimmed.hasPrefix("/") && !trimmed.hasPrefix("//") {
            return URL(string: client.server.description + trimmed)
        }
        return URL(string: trimmed, relativeTo: client.server.url(path: "/"))?.absoluteURL
    }

    func fetch(_ imageURL: String) async -> Result<CoverFile, CoverProblem> {
        guard var url = resolve(imageURL) else {
            return .failure(CoverProblem(message: "the cover URL is not a URL"))
        }
        var redirects = 0
        while true {
            guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
                return .failure(CoverProblem(message: "the cover URL is not http or https"))
            }
            let where_ = Self.describe(url)
            let response: HTTPClientResponse
            do {
                var request = HTTPClientRequest(url: url.absoluteString)
                request.headers.add(name: "Accept", value: "image/*")
                response = try await client.http.execute(request, timeout: client.timeout)
            } catch {
                return .failure(CoverProblem(message: "\(where_): \(client.describeTransport(error))"))
            }
            let status = Int(response.status.code)
            if [301, 302, 303, 307, 308].contains(status) {
                redirects += 1
                guard redirects <= client.limits.redirects else {
                    return .failure(CoverProblem(message: "\(where_): more than \(client.limits.redirects) redirects"))
                }
                guard let location = response.headers.first(name: "Location"),
                      let next = URL(string: location, relativeTo: url)?.absoluteURL
                else {
                    return .failure(CoverProblem(message: "\(where_): a redirect without a usable Location"))
                }
                url = next
                continue
            }
            guard status == 200 else {
                return .failure(CoverProblem(message: "\(where_): HTTP \(status)"))
            }
            let body: ByteBuffer
            do {
                body = try await response.body.collect(upTo: client.limits.coverBytes)
            } catch is NIOTooManyBytesError {
                return .failure(CoverProblem(message: "\(where_): larger than \(client.limits.coverBytes) bytes"))
            } catch {
                return .failure(CoverProblem(message: "\(where_): \(client.describeTransport(error))"))
            }
            guard body.readableBytes > 0 else {
                return .failure(CoverProblem(message: "\(where_): an empty answer"))
            }
            guard let format = ImageFormat(sniffing: body.readableBytesView) else {
                return .failure(CoverProblem(message: "\(where_): not a JPEG, PNG, GIF or WebP image"))
            }
            return store(body, format: format)
        }
    }

    private func store(_ body: ByteBuffer, format: ImageFormat) -> Result<CoverFile, CoverProblem> {
        let data = Data(body.readableBytesView)
        let hash = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        let name = "\(hash.prefix(32)).\(format.fileExtension)"
        let destination = coversDirectory.appendingPathComponent(name)
        do {
            if !FileManager.default.fileExists(atPath: destination.path) {
                let temporary = coversDirectory.appendingPathComponent(".\(name).\(UUID().uuidString)")
                try data.write(to: temporary)
                if rename(temporary.path, destination.path) != 0 {
                    try? FileManager.default.removeItem(at: temporary)
                }
            }
        } catch {
            return .failure(CoverProblem(message: "could not write \(name): \(error.localizedDescription)"))
        }
        return .success(CoverFile(path: "covers/" + name, format: format, bytes: body.readableBytes, sha256: hash))
    }

    /// Host and path only: signed storage URLs carry tokens in the query.
    static func describe(_ url: URL) -> String {
        let host = url.host ?? "?"
        let port = url.port.map { ":\($0)" } ?? ""
        return "\(url.scheme ?? "?")://\(host)\(port)\(url.path)"
    }
}
