import Foundation
import Support

/// Each search term and the books it is in, given as the text the shards hold: the gaps between
/// the books' numbers, in decimal, comma-separated ("3,1,12": books 3, 4 and 16).
///
/// A library's terms are many and most are in one book or two (100,000 books gave 100,109 terms,
/// 99,600 of them with at most 16 bytes of text), so a term costs a few flat array entries rather
/// than a string, a dictionary entry and an array of its own: a dictionary of arrays held 30 MB at
/// 100,000 books. The terms' bytes sit in one buffer, found through an open-addressing table; the
/// gaps in cells of 12 bytes chained by number, each gap in 7-bit groups (one byte below 128),
/// written out as decimal text only when a shard is: as text they were 8 MB at 100,000 books.
struct TermIndex {
    /// Every term's UTF-8 bytes, one after another: term n is `bytes[starts[n]..<starts[n + 1]]`.
    private var bytes: [UInt8] = []
    private var starts: [UInt32] = [0]
    /// Term numbers + 1 by hash (0: an empty slot); at least twice as many slots as terms.
    private var table = [UInt32](repeating: 0, count: 1024)
    /// Per term: the last book it was found in, its first and last cell, how full the last is, how
    /// many bytes its gaps take in the cells, and how long they are as text.
    private var lastBook: [Int32] = []
    private var firstCell: [UInt32] = []
    private var lastCell: [UInt32] = []
    private var lastFill: [UInt8] = []
    private var stored: [UInt32] = []
    private var lengths: [UInt32] = []
    /// The cells: `cellBytes` bytes of gaps each, and the number of the next (0: none; cell 0 is
    /// never a next, being the first one made). Kept in chunks of `cellsPerChunk` cells: arrays
    /// grown by doubling held up to twice the cells there were, and three times while growing.
    private static let cellBytes = 12
    private static let chunkShift = 16
    private static let cellsPerChunk = 1 << chunkShift
    private var cells: [[UInt8]] = []
    private var nextCell: [[UInt32]] = []
    private var cellCount = 0

    var count: Int { lastBook.count }

    mutating func add(book: Int32, words: [String]) {
        for var word in words {
            word.withUTF8 { add(book: book, term: $0) }
        }
    }

    private mutating func add(book: Int32, term: UnsafeBufferPointer<UInt8>) {
        let number: Int
        if let found = find(term) {
            number = found
            // A word twice in one book counts once.
            if lastBook[number] == book { return }
            appendGap(book - lastBook[number], to: number)
            lengths[number] += 1 // the comma before it
        } else {
            number = insert(term)
            appendGap(book, to: number)
        }
        lastBook[number] = book
    }

    /// Where the table's search for `hash` begins, and how it steps on.
    private func slot(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash) & (table.count - 1) }

    private func find(_ term: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = slot(Self.hash(term))
        while table[index] != 0 {
            let number = Int(table[index]) - 1
            if termEquals(number, term) { return number }
            index = (index + 1) & (table.count - 1)
        }
        return nil
    }

    private func termEquals(_ number: Int, _ term: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = Int(starts[number]), end = Int(starts[number + 1])
        guard end - start == term.count else { return false }
        for offset in 0..<term.count where bytes[start + offset] != term[offset] { return false }
        return true
    }

    private mutating func insert(_ term: UnsafeBufferPointer<UInt8>) -> Int {
        let number = count
        bytes.append(contentsOf: term)
        starts.append(UInt32(bytes.count))
        lastBook.append(-1)
        firstCell.append(UInt32(cellCount))
        lastCell.append(UInt32(cellCount))
        lastFill.append(0)
        stored.append(0)
        lengths.append(0)
        newCell()
        if (number + 1) * 2 > table.count {
            growTable()
        } else {
            place(number, hash: Self.hash(term))
        }
        return number
    }

    private mutating func place(_ number: Int, hash: UInt64) {
        var index = slot(hash)
        while table[index] != 0 { index = (index + 1) & (table.count - 1) }
        table[index] = UInt32(number + 1)
    }

    private mutating func growTable() {
        table = [UInt32](repeating: 0, count: table.count * 2)
        for number in 0..<count { place(number, hash: hashOfTerm(number)) }
    }

    private func hashOfTerm(_ number: Int) -> UInt64 {
        bytes.withUnsafeBufferPointer { all in
            Self.hash(UnsafeBufferPointer(rebasing: all[Int(starts[number])..<Int(starts[number + 1])]))
        }
    }

    /// FNV-1a: the same in every run, as the shards must be.
    private static func hash(_ term: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in term {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    private mutating func newCell() {
        if cellCount & (Self.cellsPerChunk - 1) == 0 {
            cells.append([UInt8](repeating: 0, count: Self.cellsPerChunk * Self.cellBytes))
            nextCell.append([UInt32](repeating: 0, count: Self.cellsPerChunk))
        }
        cellCount += 1
    }

    private mutating func append(_ byte: UInt8, to number: Int) {
        if Int(lastFill[number]) == Self.cellBytes {
            let cell = UInt32(cellCount)
            newCell()
            let last = Int(lastCell[number])
            nextCell[last >> Self.chunkShift][last & (Self.cellsPerChunk - 1)] = cell
            lastCell[number] = cell
            lastFill[number] = 0
        }
        let cell = Int(lastCell[number])
        cells[cell >> Self.chunkShift][(cell & (Self.cellsPerChunk - 1)) * Self.cellBytes + Int(lastFill[number])] = byte
        lastFill[number] += 1
        stored[number] += 1
    }

    /// A gap (never negative) in 7-bit groups, the lowest first, each but the last with its top bit set.
    private mutating func appendGap(_ gap: Int32, to number: Int) {
        var value = UInt32(gap)
        while value >= 0x80 {
            append(UInt8(value & 0x7F) | 0x80, to: number)
            value >>= 7
        }
        append(UInt8(value), to: number)
        lengths[number] += UInt32(Self.decimalDigits(UInt32(gap)))
    }

    private static func decimalDigits(_ value: UInt32) -> Int {
        var digits = 1, rest = value
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        return digits
    }

    /// Every term's number, sorted by the term's UTF-8 bytes (as the shards are named): 4 bytes a
    /// term, where the terms as strings with their numbers took 32.
    func sortedTerms() -> [Int32] {
        bytes.withUnsafeBufferPointer { all in
            (0..<Int32(count)).sorted { left, right in
                UnsafeBufferPointer(rebasing: all[Int(starts[Int(left)])..<Int(starts[Int(left) + 1])])
                    .lexicographicallyPrecedes(UnsafeBufferPointer(rebasing: all[Int(starts[Int(right)])..<Int(starts[Int(right) + 1])]))
            }
        }
    }

    /// Term `number` itself.
    func text(of number: Int32) -> String {
        String(decoding: bytes[Int(starts[Int(number)])..<Int(starts[Int(number) + 1])], as: UTF8.self)
    }

    /// The length in bytes of the books' text of term `number`.
    func length(of number: Int32) -> Int { Int(lengths[Int(number)]) }

    /// The books' text of term `number`, appended to `data`.
    func appendPostings(of number: Int32, to data: inout Data) {
        var cell = Int(firstCell[Int(number)])
        var left = Int(stored[Int(number)])
        var value: UInt32 = 0, shift: UInt32 = 0, first = true
        var digits: [UInt8] = []
        while left > 0 {
            let take = min(left, Self.cellBytes)
            let start = (cell & (Self.cellsPerChunk - 1)) * Self.cellBytes
            for byte in cells[cell >> Self.chunkShift][start..<start + take] {
                value |= UInt32(byte & 0x7F) << shift
                if byte & 0x80 != 0 {
                    shift += 7
                    continue
                }
                if !first { data.append(UInt8(ascii: ",")) }
                first = false
                digits.removeAll(keepingCapacity: true)
                repeat {
                    digits.append(UInt8(ascii: "0") + UInt8(value % 10))
                    value /= 10
                } while value > 0
                data.append(contentsOf: digits.reversed())
                (value, shift) = (0, 0)
            }
            left -= take
            cell = Int(nextCell[cell >> Self.chunkShift][cell & (Self.cellsPerChunk - 1)])
        }
    }

    /// The same as a string (tests).
    func postings(of number: Int32) -> String {
        var data = Data()
        appendPostings(of: number, to: &data)
        return String(decoding: data, as: UTF8.self)
    }
}
