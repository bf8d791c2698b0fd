/// Sequences kept once each, one after another in one buffer, each named by its number. A year of
/// nights at 100,000 books is about 465,000 events that name 100,000 titles and a few dozen
/// shelves' lists: as a `String` and a `[String]` each, the events took more memory than the whole
/// rest of a night (issue 70); as numbers into two of these tables, about 16 bytes an event.
struct InternTable<Element: FixedWidthInteger & Sendable>: Sendable {
    /// Every sequence's elements, one after the other.
    private var elements: [Element] = []
    /// Where each sequence ends in `elements` (it begins where the one before ends).
    private var ends: [UInt32] = []
    /// Open addressing on the sequences' hashes: a sequence's number + 1, 0 where the slot is free.
    /// Let go by `seal()` (a timeline read is only looked at), made again by the next `intern`.
    private var slots: [UInt32] = []

    var count: Int { ends.count }

    /// The elements of sequence `number`.
    subscript(number: UInt32) -> ArraySlice<Element> {
        let index = Int(number)
        return elements[(index == 0 ? 0 : Int(ends[index - 1]))..<Int(ends[index])]
    }

    /// The number of `items`, kept now if it was not yet.
    mutating func intern(_ items: some Collection<Element>) -> UInt32 {
        if slots.count < 2 * (count + 1) { grow() }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: Self.hash(items)) & mask
        while slots[slot] != 0 {
            let number = slots[slot] - 1
            if self[number].elementsEqual(items) { return number }
            slot = (slot + 1) & mask
        }
        elements.append(contentsOf: items)
        ends.append(UInt32(elements.count))
        let number = UInt32(count - 1)
        slots[slot] = number + 1
        return number
    }

    /// Lets the lookup's slots and the buffers' spare room go, once nothing more is added.
    mutating func seal() {
        slots = []
        elements = Self.trimmed(elements)
        ends = Self.trimmed(ends)
    }

    static func trimmed<T>(_ array: [T]) -> [T] {
        guard array.capacity > array.count + array.count / 16 else { return array }
        return [T](unsafeUninitializedCapacity: array.count) { buffer, count in
            count = buffer.initialize(fromContentsOf: array)
        }
    }

    /// Twice the slots (or as many as a sealed table needs again), every sequence placed anew.
    private mutating func grow() {
        var size = 64
        while size < 4 * (count + 1) { size *= 2 }
        slots = [UInt32](repeating: 0, count: size)
        let mask = size - 1
        for number in 0..<UInt32(count) {
            var slot = Int(truncatingIfNeeded: Self.hash(self[number])) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = number + 1
        }
    }

    /// FNV-1a over the elements: the table's order never depends on it, only its speed.
    private static func hash(_ items: some Collection<Element>) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for item in items {
            hash = (hash ^ UInt64(truncatingIfNeeded: item)) &* 0x0000_0100_0000_01B3
        }
        return hash ^ (hash >> 29)
    }
}

extension InternTable where Element == UInt8 {
    func string(_ number: UInt32) -> String { String(decoding: self[number], as: UTF8.self) }
}
