import Foundation
import LibraryArchive
import SampleServer
import TestSupport
import Testing
import Thumbnails

/// Covers' thumbnails with libvips: the sizes the pages show, the odd images real libraries hold,
/// and the hostile ones a server can send.
struct ThumbnailTests {
    /// Width and height as the thumbnail's own header says.
    static func size(_ made: Thumbnailer.Made) -> (width: Int, height: Int)? {
        ImageFormat(sniffing: made.data).flatMap { ImageFormat.dimensions(of: Array(made.data.prefix(65_536)), format: $0) }
    }

    static func thumbnails(_ image: Data) throws -> [Thumbnailer.Made] {
        switch Thumbnailer.make(image) {
        case .success(let made): return made
        case .failure(let problem): throw problem
        }
    }

    @Test func aRealSizedCoverFillsEveryBoxAsAJPEG() throws {
        let cover = try #require(SampleCovers.jpeg(width: 1216, height: 1824, seed: 3))
        let made = try Self.thumbnails(cover)
        #expect(made.count == ThumbnailBox.all.count)
        for (box, thumbnail) in zip(ThumbnailBox.all, made) {
            #expect(!thumbnail.isPNG)
            #expect(ImageFormat(sniffing: thumbnail.data) == .jpeg)
            let size = try #require(Self.size(thumbnail))
            #expect(size.width == thumbnail.width && size.height == thumbnail.height)
            // Fills the box (object-fit: cover) without being larger than it needs: one side fits.
            #expect(size.width >= box.width && size.height >= box.height, "\(size) for \(box)")
            #expect(size.width == box.width || size.height == box.height, "\(size) for \(box)")
            #expect(thumbnail.data.count < cover.count / 4)
        }
    }

    @Test func aWideCoverFillsItsBoxByHeightAndASmallOneIsNotEnlarged() throws {
        let wide = try Self.thumbnails(try #require(SampleCovers.jpeg(width: 900, height: 300, seed: 4)))
        #expect(wide[0].height == 96 && wide[0].width == 288)
        let small = try Self.thumbnails(try #require(SampleCovers.jpeg(width: 100, height: 150, seed: 5)))
        #expect(small.map(\.width) == [64, 100, 100, 100])
    }

    @Test func theSameCoverGivesTheSameBytes() throws {
        let cover = try #require(SampleCovers.jpeg(width: 600, height: 900, seed: 6))
        let first = try Self.thumbnails(cover), second = try Self.thumbnails(cover)
        #expect(first.map(\.data) == second.map(\.data))
        #expect(SampleCovers.jpeg(width: 600, height: 900, seed: 6) == cover)
    }

    /// A first night makes thumbnails on every core at once. liborc 0.4.33 (Debian 12) crashed now
    /// and then when two threads built or let go a resize at the same moment; the thumbnails hold a
    /// lock of their own there (orc_guard.h). A crash fails the whole run; a race on shared state
    /// would show as different bytes.
    @Test func coversOfEverySizeMadeOnEveryCoreAtOnceGiveTheSameBytes() throws {
        let widths = [360, 400, 450, 500, 600, 800, 1000, 1216]
        let covers = try widths.enumerated().map { index, width in
            try #require(SampleCovers.jpeg(width: width, height: width * 3 / 2, seed: 40 + index))
        }
        let alone = try covers.map { Data(try Self.thumbnails($0).map(\.data).joined()) }
        let rounds = 4
        let lock = NSLock()
        nonisolated(unsafe) var together = [Data](repeating: Data(), count: covers.count * rounds)
        DispatchQueue.concurrentPerform(iterations: covers.count * rounds) { item in
            let made = Data(((try? Self.thumbnails(covers[item % covers.count])) ?? []).map(\.data).joined())
            lock.withLock { together[item] = made }
        }
        for (item, made) in together.enumerated() {
            #expect(made == alone[item % covers.count], "cover \(item % covers.count), round \(item / covers.count)")
        }
    }

    @Test func aDecompressionBombIsRefusedFromItsHeader() throws {
        let bomb = OpenLibraryDouble.bombImage
        #expect(bomb.count < 200)
        #expect(ImageFormat.dimensions(of: Array(bomb), format: .png).map { [$0.width, $0.height] } == [60_000, 60_000])
        guard case .failure(let problem) = Thumbnailer.make(bomb) else {
            Issue.record("a 60000 × 60000 image was thumbnailed")
            return
        }
        #expect(problem.message.contains("60000 x 60000"), "\(problem)")
        #expect(problem.message.contains("refused"))
    }

    @Test func truncatedCorruptAndForeignFilesAreRefused() throws {
        for (name, bytes) in [("truncated", OpenLibraryDouble.brokenImage), ("garbage", Data((0..<4096).map { UInt8($0 % 251) })),
                              ("svg", Data("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'/>".utf8))] {
            guard case .failure(let problem) = Thumbnailer.make(bytes) else {
                Issue.record("\(name) was thumbnailed")
                continue
            }
            #expect(problem.message.hasPrefix("not a readable image"), "\(name): \(problem)")
        }
    }

    @Test func cmykRotationTransparencyAndAnimationAreHandled() throws {
        // A CMYK JPEG comes out an sRGB JPEG.
        let cmyk = try Self.thumbnails(try Fixtures.data("images/cmyk.jpg"))
        #expect(cmyk.allSatisfy { !$0.isPNG && ImageFormat(sniffing: $0.data) == .jpeg })
        #expect(Self.jpegComponents(cmyk[0].data) == 3)
        // EXIF orientation 6: stored landscape, shown (and thumbnailed) portrait.
        let turned = try Self.thumbnails(try Fixtures.data("images/orient6.jpg"))
        #expect(turned[0].height > turned[0].width, "\(turned[0].width) × \(turned[0].height)")
        // Transparency is kept: PNG thumbnails.
        let clear = try Self.thumbnails(try Fixtures.data("images/alpha.png"))
        #expect(clear.allSatisfy { $0.isPNG && ImageFormat(sniffing: $0.data) == .png })
        // An animated GIF: its first frame (200 × 100, three frames stacked would be 200 × 300).
        let animated = try Self.thumbnails(try Fixtures.data("images/anim.gif"))
        #expect(animated[0].width * 100 == animated[0].height * 200, "\(animated[0].width) × \(animated[0].height)")
        #expect(!animated[0].isPNG)
    }

    /// A JPEG at least two and a half times its largest box is decoded at a half, a quarter or an
    /// eighth of its size (libjpeg scaling as it decodes): boxes a fifth of the fixtures' size take
    /// that way, which must still turn the image, make CMYK sRGB, and refuse a file cut short.
    @Test func aJPEGDecodedSmallerIsStillTurnedMadeSRGBAndRefusedWhenCutShort() throws {
        let boxes = [ThumbnailBox(width: 12, height: 18), ThumbnailBox(width: 24, height: 36)]
        func made(_ image: Data) throws -> [Thumbnailer.Made] {
            switch Thumbnailer.make(image, boxes: boxes) {
            case .success(let made): return made
            case .failure(let problem): throw problem
            }
        }
        let cmyk = try made(try Fixtures.data("images/cmyk.jpg"))
        #expect(cmyk.map { [$0.width, $0.height] } == [[12, 18], [24, 36]])
        #expect(cmyk.allSatisfy { !$0.isPNG && Self.jpegComponents($0.data) == 3 })
        // Stored 180 × 120 with orientation 6: shown, and thumbnailed, 120 × 180.
        let turned = try made(try Fixtures.data("images/orient6.jpg"))
        #expect(turned.map { [$0.width, $0.height] } == [[12, 18], [24, 36]])
        let cover = try #require(SampleCovers.jpeg(width: 1216, height: 1824, seed: 3))
        guard case .failure(let problem) = Thumbnailer.make(cover.prefix(cover.count / 2)) else {
            Issue.record("a cover cut in half was thumbnailed")
            return
        }
        #expect(problem.message.hasPrefix("not a readable image"), "\(problem)")
    }

    /// The number of colour components in a JPEG's frame header (3: YCbCr, 4: CMYK).
    static func jpegComponents(_ data: Data) -> Int? {
        let bytes = Array(data)
        var index = 2
        while index + 9 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if (0xC0...0xC2).contains(marker) { return Int(bytes[index + 9]) }
            index += 2 + length
        }
        return nil
    }
}
