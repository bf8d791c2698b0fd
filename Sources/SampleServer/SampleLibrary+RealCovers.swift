import Foundation
import NIOConcurrencyHelpers

extension SampleLibrary {
    /// The same library with covers of real sizes, as a real library has them: 1 in 4 books with no
    /// cover, the others photo-like JPEGs from 360 × 540 to 1216 × 1824 (a real library's 496 covers
    /// weighed 19 MB, up to 1216 × 1800 and 944 KB). The same seed gives the same bytes.
    public func withRealCovers(seed: UInt64) -> SampleLibrary {
        var random = SplitMix64(seed: seed)
        var plans: [(index: Int, width: Int, seed: Int)?] = []
        for index in books.indices {
            if random.next(4) == 0 {
                plans.append(nil)
                continue
            }
            // Mostly small covers, a few large: the real library's mean was 38 KB.
            let width = [360, 360, 400, 400, 450, 500, 600, 800, 1000, 1216][random.next(10)]
            plans.append((index, width, random.next(1 << 30)))
        }
        let made = plans.compactMap { $0 }
        let images = ConcurrentResults(count: made.count)
        DispatchQueue.concurrentPerform(iterations: made.count) { item in
            let plan = made[item]
            images.set(item, SampleCovers.jpeg(width: plan.width, height: plan.width * 3 / 2, seed: plan.seed) ?? Data())
        }
        var library = self
        var files = coverFiles
        let drawn = images.values
        for (item, plan) in made.enumerated() {
            let name = "real-\(books[plan.index].id).jpg"
            files[name] = drawn[item]
            library.books[plan.index].cover = .disk(file: name)
        }
        for (index, plan) in plans.enumerated() where plan.map({ _ in false }) ?? true { library.books[index].cover = nil }
        library.coverFiles = files
        return library
    }
}

/// Results filled in from several threads at once, each at its own place.
final class ConcurrentResults: Sendable {
    private let box: NIOLockedValueBox<[Data]>

    init(count: Int) { box = NIOLockedValueBox(Array(repeating: Data(), count: count)) }

    var values: [Data] { box.withLockedValue { $0 } }

    func set(_ index: Int, _ value: Data) { box.withLockedValue { $0[index] = value } }
}
