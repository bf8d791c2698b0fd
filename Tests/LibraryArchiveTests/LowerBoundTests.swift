import Support
import Testing

/// The binary search the cover addresses, page digests and offline versions look their keys up with.
@Suite struct LowerBoundTests {
    @Test func findsWhereTheFirstKeyNotBelowIsForEveryKeyAndLength() {
        for length in 0...9 {
            // Keys with repeats and gaps: 0, 2, 2, 4, 6, 6, …
            let sorted = (0..<length).map { ($0 + $0 % 2) * 2 / 2 }
            for key in -1...(length + 2) {
                let expected = sorted.firstIndex { $0 >= key } ?? sorted.endIndex
                #expect(sorted.lowerBound(of: key) { $0 } == expected, "\(sorted), \(key)")
            }
        }
        // A slice keeps its own indices.
        let slice = [1, 3, 5, 7, 9][2...]
        #expect(slice.lowerBound(of: 6) { $0 } == 3 && slice.lowerBound(of: 0) { $0 } == 2 && slice.lowerBound(of: 10) { $0 } == 5)
    }
}
