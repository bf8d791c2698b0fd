import CThumbnail
import Foundation

/// Share cards (the images link previews show, 1200 × 630) drawn with libvips: its text and
/// composition operations, in `card.c`. The same bytes for the same inputs.
package enum ShareCardDrawing {
    /// A book's card: its cover beside its title and author; a stand-in of type when it has no
    /// cover, or when its cover cannot be read (then `coverRefused` says so).
    package static func book(title: String, author: String, cover: Data?, siteTitle: String) -> (jpeg: Data, coverRefused: Bool)? {
        if let cover {
            switch draw({ out, error in
                cover.withUnsafeBytes { bytes in
                    rt_book_card(bytes.baseAddress, bytes.count, title, author, siteTitle, Int64(Thumbnailer.pixelLimit), &out, error, 256)
                }
            }) {
            case .some(let data): return (data, false)
            case .none: break
            }
        }
        guard let data = draw({ out, error in rt_book_card(nil, 0, title, author, siteTitle, Int64(Thumbnailer.pixelLimit), &out, error, 256) })
        else { return nil }
        return (data, cover != nil)
    }

    /// A shelf's, an author's, a year's or the catalog's card: the name over a row of covers.
    package static func row(name: String, line: String, covers: [Data], siteTitle: String) -> Data? {
        // Each cover's bytes stay alive and in place while libvips reads them.
        let buffers = covers.map { data -> UnsafeMutableRawBufferPointer in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 16)
            _ = data.copyBytes(to: buffer.bindMemory(to: UInt8.self))
            return buffer
        }
        defer { buffers.forEach { $0.deallocate() } }
        var pointers: [UnsafeRawPointer?] = buffers.map { UnsafeRawPointer($0.baseAddress) }
        var lengths = covers.map(\.count)
        return draw { out, error in
            pointers.withUnsafeMutableBufferPointer { pointers in
                lengths.withUnsafeMutableBufferPointer { lengths in
                    rt_row_card(name, line, siteTitle, Int32(covers.count), pointers.baseAddress, lengths.baseAddress,
                                Int64(Thumbnailer.pixelLimit), &out, error, 256)
                }
            }
        }
    }

    /// The web app's icon: the catalog's first letter in white on `colour` (red, green, blue,
    /// 0–255), `size` pixels square. PNG.
    package static func appIcon(letter: String, size: Int, colour: (Double, Double, Double)) -> Data? {
        let channels = [colour.0, colour.1, colour.2]
        return draw { out, error in
            channels.withUnsafeBufferPointer { rt_app_icon(letter, Int32(size), $0.baseAddress, &out, error, 256) }
        }
    }

    private static func draw(_ call: (inout rt_image, UnsafeMutablePointer<CChar>) -> Int32) -> Data? {
        guard rt_start() == 0 else { return nil }
        var out = rt_image()
        var error = [CChar](repeating: 0, count: 256)
        let status = error.withUnsafeMutableBufferPointer { call(&out, $0.baseAddress!) }
        guard status == 0, let bytes = out.data else { return nil }
        defer { rt_free(bytes) }
        return Data(bytes: bytes, count: out.length)
    }
}
