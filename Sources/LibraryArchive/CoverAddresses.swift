import Foundation

/// Each book's cover address, by book id: what the private state keeps (`cover-addresses.json`)
/// for the next run, which asks for an unchanged book's cover again by it.
///
/// Packed, the ids in one array and the addresses' bytes in one buffer: 100,000 addresses held as a
/// dictionary of strings took 17 MB for the whole run, and a night holds two sets of them (last
/// night's, read back, and tonight's, gathered as books are made).
package struct CoverAddresses: Sendable, Equatable {
    private var ids: [Int] = []
    /// Where each address ends in `bytes`; it starts where the one before it ends.
    private var ends: [Int] = []
    private var bytes: [UInt8] = []
    /// The ids were added in increasing order, once each: lookups need that (`sorted()` makes it so).
    private var isSorted = true

    package init() {}

    /// The addresses of a dictionary (tests, and the state file as read).
    package init(_ addresses: [Int: String]) {
        for (id, address) in addresses.sorted(by: { $0.key < $1.key }) { add(address, for: id) }
    }

    package var count: Int { ids.count }
    package var isEmpty: Bool { ids.isEmpty }

    /// Adds `address` for `id`; of two for the same id, the later counts once sorted.
    package mutating func add(_ address: String, for id: Int) {
        if let last = ids.last, id <= last { isSorted = false }
        ids.append(id)
        bytes.append(contentsOf: address.utf8)
        ends.append(bytes.count)
    }

    /// The same addresses in order of id, each id once.
    package func sorted() -> CoverAddresses {
        guard !isSorted else { return self }
        // By id, and among one id's addresses by when they were added: the last of each counts.
        let order = ids.indices.sorted { (ids[$0], $0) < (ids[$1], $1) }
        var sorted = CoverAddresses()
        sorted.ids.reserveCapacity(ids.count)
        sorted.ends.reserveCapacity(ids.count)
        sorted.bytes.reserveCapacity(bytes.count)
        for (position, index) in order.enumerated() {
            if position + 1 < order.count, ids[order[position + 1]] == ids[index] { continue }
            sorted.ids.append(ids[index])
            sorted.bytes.append(contentsOf: bytes[range(at: index)])
            sorted.ends.append(sorted.bytes.count)
        }
        return sorted
    }

    /// The address of `id`, if it has one. Only on addresses in order (`sorted()`).
    package subscript(id: Int) -> String? {
        precondition(isSorted, "cover addresses looked up before they were sorted")
        var (low, high) = (0, ids.count)
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low < ids.count && ids[low] == id ? address(at: low) : nil
    }

    /// Every id and its address, in the order they are kept.
    package func forEach(_ body: (_ id: Int, _ address: String) throws -> Void) rethrows {
        for index in ids.indices { try body(ids[index], address(at: index)) }
    }

    private func range(at index: Int) -> Range<Int> {
        (index == 0 ? 0 : ends[index - 1])..<ends[index]
    }

    private func address(at index: Int) -> String {
        bytes.withUnsafeBufferPointer { String(decoding: $0[range(at: index)], as: UTF8.self) }
    }
}

extension CoverAddresses {
    /// The state file: one JSON object of ids (as text) to addresses, written a few thousand at a
    /// time (all of them encoded at once took as much memory again as they do here).
    package func writeJSON(to sink: (Data) throws -> Void) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var batch: [String: String] = [:]
        var first = true
        func flush() throws {
            guard !batch.isEmpty else { return }
            // `{…}` of the batch without its braces: members of the one object.
            let members = try encoder.encode(batch).dropFirst().dropLast()
            try sink(Data(first ? [] : [UInt8(ascii: ",")]) + members)
            first = false
            batch.removeAll(keepingCapacity: true)
        }
        try sink(Data("{".utf8))
        try sorted().forEach { id, address in
            batch[String(id)] = address
            if batch.count == 4096 { try flush() }
        }
        try flush()
        try sink(Data("}".utf8))
    }

    /// The state file as `writeJSON` writes it (any JSON object of ids to addresses).
    package init(json data: Data) throws {
        let addresses = try JSONDecoder().decode([String: String].self, from: data)
        var read = CoverAddresses()
        for (id, address) in addresses { if let id = Int(id) { read.add(address, for: id) } }
        self = read.sorted()
    }
}
