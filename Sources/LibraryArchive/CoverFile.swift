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

    package init(path: String, format: ImageFormat, bytes: Int, sha256: String, width: Int? = nil, height: Int? = nil) {
        self.path = path
        self.format = format
        self.bytes = bytes
        self.sha256 = sha256
        self.width = width
        self.height = height
    }

    /// "covers/" + 32 lowercase hex digits + a known extension: the only names this tool writes.
    package static func isWellFormed(path: String) -> Bool {
        guard path.hasPrefix("covers/") else { return false }
        let name = path.dropFirst("covers/".count)
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 32,
              parts[0].allSatisfy({ ("0"..."9").contains($0) || ("a"..."f").contains($0) }),
              ImageFormat.allCases.contains(where: { $0.fileExtension == parts[1] })
        else { return false }
        return true
    }
}
