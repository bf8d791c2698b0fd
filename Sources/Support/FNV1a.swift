/// FNV-1a, 64 bits: a hash that is the same in every run and on every machine (Swift's `Hasher`
/// is seeded per process), and cheaper than it. For indexes whose hits are checked, or whose keys
/// are kept between runs.
package enum FNV1a {
    package static func hash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
