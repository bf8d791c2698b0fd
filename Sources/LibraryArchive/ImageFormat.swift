import Notes
import Support

/// A cover's format, read from its first bytes: file names and Content-Type say nothing reliable.
package enum ImageFormat: String, Codable, Sendable, CaseIterable {
    case jpeg, png, gif, webp

    package var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .gif: return "gif"
        case .webp: return "webp"
        }
    }

    package init?<Bytes: Collection>(sniffing bytes: Bytes) where Bytes.Element == UInt8 {
        let head = Array(bytes.prefix(12))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) {
            self = .gif
        } else if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) {
            self = .webp
        } else {
            return nil
        }
    }
}

extension ImageFormat {
    /// Width and height from the image's header, where the format keeps them, without decoding it.
    package static func dimensions(of bytes: [UInt8], format: ImageFormat) -> (width: Int, height: Int)? {
        func be16(_ i: Int) -> Int { Int(bytes[i]) << 8 | Int(bytes[i + 1]) }
        func le16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        func be32(_ i: Int) -> Int { be16(i) << 16 | be16(i + 2) }
        func le24(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 }
        let result: (Int, Int)?
        switch format {
        case .png:
            result = bytes.count >= 24 ? (be32(16), be32(20)) : nil
        case .gif:
            result = bytes.count >= 10 ? (le16(6), le16(8)) : nil
        case .webp:
            guard bytes.count >= 30 else { return nil }
            switch String(decoding: bytes[12..<16], as: UTF8.self) {
            case "VP8 ": result = (le16(26) & 0x3FFF, le16(28) & 0x3FFF)
            case "VP8L":
                let b = bytes[21...24].map(Int.init)
                result = (1 + (b[0] | (b[1] & 0x3F) << 8), 1 + ((b[1] >> 6) | b[2] << 2 | (b[3] & 0x0F) << 10))
            case "VP8X": result = (1 + le24(24), 1 + le24(27))
            default: result = nil
            }
        case .jpeg:
            var i = 2
            var found: (Int, Int)?
            while i + 9 < bytes.count, found == nil {
                guard bytes[i] == 0xFF else { return nil }
                let marker = bytes[i + 1]
                if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
                let length = be16(i + 2)
                if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                    found = (be16(i + 7), be16(i + 5))
                }
                guard length >= 2 else { return nil }
                i += 2 + length
            }
            result = found
        }
        guard let (width, height) = result, (1...100_000).contains(width), (1...100_000).contains(height) else { return nil }
        return (width, height)
    }
}
