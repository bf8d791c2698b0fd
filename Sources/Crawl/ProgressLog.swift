import Foundation
import LibraryArchive
import Logging
import Notes
import ReaderAPI
import SnapshotStore
import Support

/// One log line at every tenth of a long phase ("Book details: 2000 of 10000"), so that a run
/// over a big library shows it is moving without flooding a cron mail.
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private let label: String
    private var total: Int
    private let logger: Logger
    private var done = 0
    private var nextReport: Int

    /// Phases shorter than this say only their start and end.
    static let minimumTotal = 200

    private let live: LiveProgress?

    init(_ label: String, total: Int, logger: Logger, live: LiveProgress? = nil) {
        self.label = label
        self.total = total
        self.logger = logger
        self.live = live
        self.nextReport = max(1, total / 10)
        live?.begin(label, total: total)
    }

    /// More steps than first thought: a pipeline learns its work as it goes.
    func expect(_ more: Int) {
        guard more > 0 else { return }
        live?.expect(more)
        lock.withLock {
            total += more
            nextReport = max(nextReport, done + 1)
        }
    }

    func step() {
        live?.step()
        // The live line shows the count on a terminal; log lines are for logs.
        guard live == nil else { return }
        let report: (Int, Int)? = lock.withLock {
            done += 1
            guard total >= Self.minimumTotal, done >= nextReport, done < total else { return nil }
            nextReport = done + max(1, total / 10)
            return (done, total)
        }
        if let (done, total) = report { logger.info("\(label): \(done) of \(total)") }
    }
}
