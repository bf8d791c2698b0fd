import Foundation
import Notes
import Support

/// A cover stored in the snapshot, named by its content so that each distinct image is kept once.
package struct CoverFile: Codable, Sendable, Equatable {
    /// Relative to the snapshot's root: "covers/<hash>.<ext>".
    package var path: String
    package var format: ImageFormat
    package var bytes: Int
    package var sha256: String
    /// From the image's header: pages give covers their size before they load.
    package var width: Int?
    package var height: Int?
    /// Where the image came from when it is not the Reader server: "openlibrary".
    package var source: CoverSource?
    /// Smaller copies at the sizes the pages show, 1× and 2× (none with `--no-thumbnails`).
    package var thumbnails: [Thumbnail]?

    package init(path: String, format: ImageFormat, bytes: Int, sha256: String, width: Int? = nil, height: Int? = nil,
                 source: CoverSource? = nil, thumbnails: [Thumbnail]? = nil) {
        self.path = path
        self.format = format
        self.bytes = bytes
        self.sha256 = sha256
        self.width = width
        self.height = height
        self.source = source
        self.thumbnails = thumbnails
    }

    /// "covers/" + 32 lowercase hex digits + a known extension: the only names this tool writes.
    package static func isWellFormed(path: String) -> Bool {
        guard let (hash, ext) = parts(of: path) else { return false }
        return isHash(hash) && ImageFormat.allCases.contains(where: { $0.fileExtension == ext })
    }

    /// A thumbnail's name: the cover's hash, "-", the width of the box it fills, ".jpg" or ".png".
    package static func isWellFormed(thumbnailPath path: String) -> Bool {
        guard let (name, ext) = parts(of: path), ext == "jpg" || ext == "png" else { return false }
        let pieces = name.split(separator: "-", omittingEmptySubsequences: false)
        return pieces.count == 2 && isHash(pieces[0]) && thumbnailWidths.contains { $0 == pieces[1] }
    }

    private static let thumbnailWidths = ThumbnailBox.all.map { String($0.width) }

    private static func parts(of path: String) -> (name: Substring, ext: Substring)? {
        guard path.hasPrefix("covers/") else { return nil }
        let parts = path.dropFirst("covers/".count).split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }

    /// On the UTF-8 bytes: the same answer as on characters (every hex digit is one byte, and
    /// any other byte is no digit), without comparing characters, which was a tenth of reading a
    /// library's cards.
    private static func isHash(_ text: Substring) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The 32 hex digits the cover's file is named by.
    package var hash: String {
        String(path.dropFirst("covers/".count).prefix(32))
    }

    /// Every file of the cover: the original and its thumbnails.
    package var paths: [String] { [path] + (thumbnails ?? []).map(\.path) }
}

package enum CoverSource: String, Codable, Sendable {
    /// Found by the book's ISBN in Open Library (`--enrich openlibrary`): the server had none.
    case openLibrary = "openlibrary"
}

/// A smaller copy of a cover, for lists and phones.
package struct Thumbnail: Codable, Sendable, Equatable {
    package var path: String
    package var width: Int
    package var height: Int
    package var bytes: Int

    package init(path: String, width: Int, height: Int, bytes: Int) {
        self.path = path
        self.width = width
        self.height = height
        self.bytes = bytes
    }
}

/// The boxes covers are shown in (CSS pixels: a list's 4 × 6 rem, a book page's 12 × 18 rem),
/// at 1× and 2×. A thumbnail fills its box (`object-fit: cover`): it is scaled so that both
/// sides reach the box, never up, and keeps its proportions.
package struct ThumbnailBox: Sendable, Equatable {
    package var width: Int
    package var height: Int

    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    package static let list = ThumbnailBox(width: 64, height: 96)
    package static let list2x = ThumbnailBox(width: 128, height: 192)
    package static let page = ThumbnailBox(width: 192, height: 288)
    package static let page2x = ThumbnailBox(width: 384, height: 576)
    package static let all = [list, list2x, page, page2x]

    /// The thumbnail's name for a cover named `coverPath`.
    package func path(forCover coverPath: String, png: Bool) -> String {
        // The names this tool writes are ASCII, where bytes are characters: counting bytes is the same
        // cut, without walking the characters (four thumbnails of each book on each page that lists it).
        let utf8 = coverPath.utf8
        let hash = utf8.allSatisfy { $0 < 0x80 }
            ? String(decoding: utf8.dropFirst("covers/".utf8.count).prefix(32), as: UTF8.self)
            : String(coverPath.dropFirst("covers/".count).prefix(32))
        return "covers/" + hash + "-" + String(width) + (png ? ".png" : ".jpg")
    }
}
