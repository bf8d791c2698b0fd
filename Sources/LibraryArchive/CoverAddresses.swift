import Algorithms
import Foundation

/// Each book's cover address, by book id: what the private state keeps (`cover-addresses.json`)
/// for the next run, which asks for an unchanged book's cover again by it.
///
/// Packed, the ids in one array and the addresses' bytes in one buffer, each address without the
/// beginning it shares with the one before (a library's covers mostly come from one host, by one
/// path): 100,000 addresses held as a dictionary of strings took 17 MB for the whole run, and a
/// night holds two sets of them (last night's, read back, and tonight's, gathered as books are made).
package struct CoverAddresses: Sendable {
    private var ids: [Int] = []
    /// Where each address's own bytes end in `bytes`; they start where the one before's end.
    private var ends: [UInt32] = []
    /// How many bytes each address shares with the one before it (none at each `restart`th).
    private var shared: [UInt16] = []
    private var bytes: [UInt8] = []
    /// The last address added, whole: the next is written against it.
    private var last: [UInt8] = []
    /// Every so many addresses one is kept whole, so that a lookup reads at most this many.
    private static let restart = 16
    /// The ids were added in increasing order, once each: lookups need that (`sorted()` makes it so).
    private var isSorted = true

    package init() {}

    /// The addresses of a dictionary.
    package init(_ addresses: [Int: String]) {
        for (id, address) in addresses.sorted(by: { $0.key < $1.key }) { add(address, for: id) }
    }

    package var count: Int { ids.count }

    /// Adds `address` for `id`; of two for the same id, the later counts once sorted.
    package mutating func add(_ address: String, for id: Int) {
        if let lastID = ids.last, id <= lastID { isSorted = false }
        let whole = Array(address.utf8)
        var common = 0
        if ids.count % Self.restart != 0 {
            let limit = min(last.count, whole.count, Int(UInt16.max))
            while common < limit, last[common] == whole[common] { common += 1 }
        }
        ids.append(id)
        shared.append(UInt16(common))
        bytes.append(contentsOf: whole[common...])
        ends.append(UInt32(bytes.count))
        last = whole
    }

    /// The same addresses in order of id, each id once.
    package func sorted() -> CoverAddresses {
        guard !isSorted else { return self }
        // By id, and among one id's addresses by when they were added: the last of each counts.
        // Places are sorted, not the addresses themselves: no second set of strings at once.
        let order = ids.indices.sorted { (ids[$0], $0) < (ids[$1], $1) }
        var sorted = CoverAddresses()
        sorted.ids.reserveCapacity(ids.count)
        sorted.ends.reserveCapacity(ids.count)
        sorted.shared.reserveCapacity(ids.count)
        for (position, index) in order.enumerated() {
            if position + 1 < order.count, ids[order[position + 1]] == ids[index] { continue }
            sorted.add(address(at: index), for: ids[index])
        }
        return sorted
    }

    /// The address of `id`, if it has one. Only on addresses in order (`sorted()`).
    package subscript(id: Int) -> String? {
        precondition(isSorted, "cover addresses looked up before they were sorted")
        let index = ids.partitioningIndex { $0 >= id }
        guard index < ids.endIndex, ids[index] == id else { return nil }
        return address(at: index)
    }

    /// The address at `index`, read from the last one kept whole before it.
    private func address(at index: Int) -> String {
        var whole: [UInt8] = []
        for earlier in (index - index % Self.restart)...index { decode(earlier, onto: &whole) }
        return String(decoding: whole, as: UTF8.self)
    }

    /// Every id and its address, in the order they are kept.
    package func forEach(_ body: (_ id: Int, _ address: String) throws -> Void) rethrows {
        var whole: [UInt8] = []
        for index in ids.indices {
            decode(index, onto: &whole)
            try body(ids[index], String(decoding: whole, as: UTF8.self))
        }
    }

    /// The address at `index`, from the one before it in `whole`.
    private func decode(_ index: Int, onto whole: inout [UInt8]) {
        whole.removeSubrange(Int(shared[index])...)
        whole.append(contentsOf: bytes[(index == 0 ? 0 : Int(ends[index - 1]))..<Int(ends[index])])
    }
}

extension CoverAddresses: Equatable {
    /// The same ids with the same addresses, in the same order, however they were packed.
    package static func == (left: CoverAddresses, right: CoverAddresses) -> Bool {
        guard left.count == right.count, left.ids == right.ids else { return false }
        var same = true
        var theirs: [UInt8] = [], ours: [UInt8] = []
        for index in left.ids.indices where same {
            left.decode(index, onto: &ours)
            right.decode(index, onto: &theirs)
            same = ours == theirs
        }
        return same
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
