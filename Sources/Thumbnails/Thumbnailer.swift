import CThumbnail
import Foundation
import LibraryArchive

/// Why a cover has no thumbnails: the image cannot be read, or claims too many pixels.
package struct ThumbnailProblem: Error, Sendable, CustomStringConvertible {
    package var message: String
    package var description: String { message }

    package init(message: String) { self.message = message }
}

/// Makes covers' thumbnails with libvips (the one Swift file that calls it), on threads of their
/// own: a cover takes milliseconds of decoding, which the threads answers resume on must not wait for.
package struct Thumbnailer: Sendable {
    /// 50 million pixels: a cover ten times the largest seen in a real library. Past it, an image
    /// is refused before anything decodes it (a decompression bomb).
    package static let pixelLimit = 50_000_000

    /// One thumbnail: its size, its bytes, and whether it is a PNG (the cover has transparency).
    package struct Made: Sendable {
        package var width: Int
        package var height: Int
        package var data: Data
        package var isPNG: Bool
    }

    package init() {}

    /// The thumbnails of the image in `file`, one for each of `ThumbnailBox.all`, in that order.
    package func make(from file: URL) async -> Result<[Made], ThumbnailProblem> {
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            return .failure(ThumbnailProblem(message: "the cover could not be read back: \(error.localizedDescription)"))
        }
        return await ThumbnailThreads.shared.run { Self.make(data) }
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
        switch result {
        case 0:
            return .success(out.map { made in
                Made(width: Int(made.width), height: Int(made.height),
                     data: Data(bytes: made.data, count: made.length), isPNG: made.is_png != 0)
            })
        case -2:
            return .failure(ThumbnailProblem(message: "\(String(cString: error)), more than \(pixelLimit / 1_000_000) million: refused"))
        default:
            let detail = String(cString: error).unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }
            return .failure(ThumbnailProblem(message: "not a readable image (\(String(String.UnicodeScalarView(detail))))"))
        }
    }

    /// A photo-like JPEG of that size, the same bytes for the same seed: the sample server's covers
    /// of real sizes (they weigh what real covers weigh).
    package static func sampleJPEG(width: Int, height: Int, seed: Int, quality: Int = 88) -> Data? {
        var out = rt_image()
        guard rt_sample_jpeg(Int32(width), Int32(height), Int32(truncatingIfNeeded: seed), Int32(quality), &out) == 0 else { return nil }
        defer { rt_free(out.data) }
        return Data(bytes: out.data, count: out.length)
    }
}

/// As many threads as cores, taking thumbnails in turn; callers wait without holding a thread.
final class ThumbnailThreads: @unchecked Sendable {
    static let shared = ThumbnailThreads(count: ProcessInfo.processInfo.activeProcessorCount)

    private let condition = NSCondition()
    private var jobs: [() -> Void] = []

    private init(count: Int) {
        for index in 0..<max(1, count) {
            let thread = Thread { [self] in
                while true { next()() }
            }
            thread.name = "reader-snapshot thumbnails \(index + 1)"
            thread.start()
        }
    }

    private func next() -> () -> Void {
        condition.withLock {
            while jobs.isEmpty { condition.wait() }
            return jobs.removeFirst()
        }
    }

    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            condition.withLock {
                jobs.append { continuation.resume(returning: body()) }
                condition.signal()
            }
        }
    }
}
