import CThumbnail
import Foundation

/// The sample server's covers of real sizes: photo-like JPEGs that weigh what real covers weigh,
/// the same bytes for the same seed. Drawn by libvips through the C shim the thumbnails use; this
/// is the sample's one Swift call of it, kept out of the tool's own thumbnail code.
package enum SampleCovers {
    package static func jpeg(width: Int, height: Int, seed: Int, quality: Int = 88) -> Data? {
        var out = rt_image()
        guard rt_sample_jpeg(Int32(width), Int32(height), Int32(truncatingIfNeeded: seed), Int32(quality), &out) == 0 else { return nil }
        defer { rt_free(out.data) }
        return Data(bytes: out.data, count: out.length)
    }
}
