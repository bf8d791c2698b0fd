/// Each book's file name (its slug and id, without an extension), by place, packed in one buffer:
/// 100,000 names held as strings took 6.5 MB of the render's peak, this takes a third of it.
struct FileNames: RandomAccessCollection, Sendable {
    private let bytes: [UInt8]
    /// Where each name ends in `bytes`; it starts where the one before it ends.
    private let ends: [UInt32]

    init(_ names: some Sequence<String>) {
        var bytes: [UInt8] = []
        var ends: [UInt32] = []
        for name in names {
            bytes.append(contentsOf: name.utf8)
            ends.append(UInt32(bytes.count))
        }
        // Exactly as big as the names: the array grown by doubling kept up to twice as much.
        self.bytes = [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, count in
            count = buffer.initialize(fromContentsOf: bytes)
        }
        self.ends = ends
    }

    var startIndex: Int { 0 }
    var endIndex: Int { ends.count }

    subscript(place: Int) -> String {
        let start = place == 0 ? 0 : Int(ends[place - 1])
        return bytes.withUnsafeBufferPointer { String(decoding: $0[start..<Int(ends[place])], as: UTF8.self) }
    }
}
