import Foundation
import Logging
import Support

/// The crawl's progress in the books it fetches: one log line at every tenth of many ("Crawl: 2000
/// of 10000 books"), so that a run shows it is moving without flooding a cron mail, or the live
/// line on a terminal. The total is known once the list is in, and the books unchanged since the
/// last snapshot are not in it: a count of requests grew while the crawl learnt what to ask for,
/// and a quiet night counted thousands of covers it took from the last snapshot as work.
struct ProgressLog {
    private let label: String
    private let logger: Logger
    private let live: LiveProgress?
    private var nextReport = 0

    /// Fewer books to fetch than this say only the crawl's start and end.
    static let minimumTotal = 200

    init(_ label: String, logger: Logger, live: LiveProgress? = nil) {
        self.label = label
        self.logger = logger
        self.live = live
        live?.begin(label, total: 0)
    }

    /// Books done of `total` (nil before the list is in). At most one line a call, however far
    /// the count moved.
    mutating func update(done: Int, total: Int?) {
        guard let total else { return }
        let done = min(done, total)
        if let live {
            live.set(done: done, total: total)
            return
        }
        guard total >= Self.minimumTotal, done < total else { return }
        if nextReport == 0 { nextReport = max(1, total / 10) }
        guard done >= nextReport else { return }
        let tenth = max(1, total / 10)
        nextReport = (done / tenth + 1) * tenth
        logger.info("\(label): \(done) of \(total) books")
    }
}
