import CThumbnail
import Foundation
import LibraryArchive
import Support

/// Why a cover has no thumbnails: the image cannot be read, or claims too many pixels.
package struct ThumbnailProblem: Error, Sendable, CustomStringConvertible {
    package var message: String
    /// The image itself is at fault (unreadable, or too many pixels), not the disk.
    package var unreadable = false
    /// libvips could not be opened: no image can be made on this machine, whatever the cover.
    package var libraryMissing = false
    package var description: String { message }

    package init(message: String, unreadable: Bool = false, libraryMissing: Bool = false) {
        self.message = message
        self.unreadable = unreadable
        self.libraryMissing = libraryMissing
    }
}

/// Makes covers' thumbnails with libvips (the share cards are drawn in ShareCardDrawing.swift), on
/// threads of their own: a cover takes milliseconds of decoding, which the threads answers resume on
/// must not wait for.
package struct Thumbnailer: Sendable {
    /// 25 million pixels (5,000 × 5,000): ten times the largest cover seen in a real library.
    /// Past it, an image is refused before anything decodes it (a decompression bomb). A PNG or
    /// GIF is decoded whole (JPEG and WebP shrink as they load): at most 100 MB a thread.
    package static let pixelLimit = 25_000_000

    /// One thumbnail: its size, its bytes, and whether it is a PNG (the cover has transparency).
    package struct Made: Sendable {
        package var width: Int
        package var height: Int
        package var data: Data
        package var isPNG: Bool
    }

    package init() {}

    /// One a core, four at most (each may hold a 100 MB decode), below the crawl: its answers are
    /// read, and its books made, first; thumbnails take what is left of the cores (a night's first
    /// run waits on the network most of the time).
    private static let threads = WorkerThread(name: "thumbnails", threads: min(4, EveryCore.count),
                                              prepare: { rt_lower_thread_priority() })

    /// Other image work done beside the crawl (share cards), on the same threads and below it alike.
    package static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await threads.run(body)
    }

    /// The thumbnails of the image in `file`, one for each of `ThumbnailBox.all`, in that order.
    package func make(from file: URL) async -> Result<[Made], ThumbnailProblem> {
        // Read on the thumbnails' thread: covers waiting their turn are not held in memory.
        await Self.threads.run {
            let data: Data
            do { data = try Data(contentsOf: file) } catch {
                return .failure(ThumbnailProblem(message: "the cover could not be read back: \(error.localizedDescription)"))
            }
            return Self.make(data)
        }
    }

    /// Synchronously, on the calling thread: libvips is safe from several threads at once.
    package static func make(_ image: Data, boxes: [ThumbnailBox] = ThumbnailBox.all) -> Result<[Made], ThumbnailProblem> {
        let widths = boxes.map { Int32($0.width) }, heights = boxes.map { Int32($0.height) }
        var out = [rt_image](repeating: rt_image(), count: boxes.count)
        var error = [CChar](repeating: 0, count: 256)
        let result = image.withUnsafeBytes { bytes in
            rt_thumbnails(bytes.baseAddress, bytes.count, Int32(boxes.count), widths, heights, Int64(pixelLimit), &out, &error, error.count)
        }
        defer { for made in out { rt_free(made.data) } }
        let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch result {
        case 0:
            return .success(out.map { made in
                Made(width: Int(made.width), height: Int(made.height),
                     data: Data(bytes: made.data, count: made.length), isPNG: made.is_png != 0)
            })
        case -2:
            return .failure(ThumbnailProblem(message: "\(reason), more than \(pixelLimit / 1_000_000) million: refused", unreadable: true))
        case -3:
            // libvips is opened at the first image: missing, it is this machine's fault, not the cover's.
            return .failure(ThumbnailProblem(message: "libvips, which makes thumbnails, could not be opened (\(reason))", libraryMissing: true))
        default:
            return .failure(ThumbnailProblem(message: "not a readable image (\(reason))", unreadable: true))
        }
    }

    /// The size an image's header claims, read by libvips without decoding it: for the images
    /// whose header ours cannot read (a JPEG's size far into the file).
    package static func size(of file: URL) -> Result<(width: Int, height: Int), ThumbnailProblem> {
        var width: Int32 = 0, height: Int32 = 0
        guard rt_image_size(file.path, &width, &height) == 0, width > 0, height > 0 else {
            return .failure(ThumbnailProblem(message: "not a readable image (its header could not be read)", unreadable: true))
        }
        return .success((Int(width), Int(height)))
    }
}
