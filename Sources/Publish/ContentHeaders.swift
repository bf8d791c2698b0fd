import Support

/// The HTTP headers a file is stored with on the host, and the wave it goes up in, told by its
/// path alone: the same file always gets the same headers.
package struct ContentHeaders: Sendable, Hashable {
    package var contentType: String
    package var cacheControl: String

    /// Covers, thumbnails and cards are named by their content: a name never changes its bytes.
    package static let immutable = "public, max-age=31536000, immutable"
    /// Pages, feeds and the rest change any night: browsers ask again after five minutes.
    package static let short = "public, max-age=300"

    package init(contentType: String, cacheControl: String) {
        self.contentType = contentType
        self.cacheControl = cacheControl
    }

    /// The headers for the file at `path` below the snapshot, whose formats are `formats`.
    package init(for path: String, formats: [FormatFiles]) {
        let parts = path.split(separator: "/")
        let contentAddressed = parts.count > 1 && ["covers", "cards"].contains(parts[0])
        self.init(contentType: Self.contentType(for: path, formats: formats), cacheControl: contentAddressed ? Self.immutable : Self.short)
    }

    /// The media type for a path: its format's (an OPDS feed, an Atom feed), or else by its
    /// extension; text types say they are UTF-8.
    package static func contentType(for path: String, formats: [FormatFiles]) -> String {
        if let type = formats.mediaType(of: path) { return type }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let ext = name.split(separator: ".").count > 1 ? String(name.split(separator: ".").last!).lowercased() : ""
        switch ext {
        case "html", "htm": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "md": return "text/markdown; charset=utf-8"
        case "csv": return "text/csv; charset=utf-8"
        case "txt": return "text/plain; charset=utf-8"
        case "json": return "application/json; charset=utf-8"
        case "xml": return "application/xml; charset=utf-8"
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "avif": return "image/avif"
        case "svg": return "image/svg+xml"
        case "ico": return "image/x-icon"
        case "woff2": return "font/woff2"
        case "woff": return "font/woff"
        case "pdf": return "application/pdf"
        case "zip": return "application/zip"
        default: return "application/octet-stream"
        }
    }

    /// The wave the file at `path` goes up in: its format's word first (a book's page, an OPDS
    /// root), then what no format owns: covers and cards first, sealed files before their door,
    /// the top of the snapshot last, and the rest among the collections' pages.
    package static func wave(for path: String, formats: [FormatFiles]) -> Wave {
        if let wave = formats.lazy.filter({ $0.holds(path) }).compactMap({ $0.wave(path) }).first { return wave }
        let parts = path.split(separator: "/")
        guard parts.count > 1 else { return .entryPoints }
        switch parts[0] {
        case "covers", "cards": return .files
        case "c": return .sealedFiles
        default: return .collectionPages
        }
    }
}
