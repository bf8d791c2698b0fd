import LibraryArchive
import Logging
import Notes
import ReaderAPI
import SnapshotStore
import Support

/// The first few warnings of a kind, then a count: a big library with many gaps should not bury
/// the summary (every gap is listed in the snapshot).
///
/// A gap the last snapshot listed too is said as a warning as well, and counted under the same
/// cap, but at the `notice` level, which `ConsoleLogHandler` prints as a warning and `--quiet`
/// leaves out: a re-run reads as the first run did, and under cron a night that brought no news
/// prints nothing.
final class WarningLimiter {
    static let limit = 10
    private let logger: Logger
    private let what: String
    /// The lines said, and of them the news.
    private var said = 0
    private var newsSaid = 0
    /// The warnings past the cap, and whether one of them was news.
    private var unsaid = 0
    private var newsUnsaid = false

    init(logger: Logger, what: String) {
        self.logger = logger
        self.what = what
    }

    /// `news`: a gap the last snapshot did not list. News has the cap to itself, so that under
    /// `--quiet` known gaps never keep a new one from being named; a known gap is said while the
    /// lines said are fewer than the cap.
    func warn(_ message: String, news: Bool = true) {
        guard news ? newsSaid < Self.limit : said < Self.limit else {
            unsaid += 1
            newsUnsaid = newsUnsaid || news
            return
        }
        said += 1
        if news { newsSaid += 1 }
        logger.log(level: news ? .warning : .notice, "\(message)")
    }

    func finish() {
        guard unsaid > 0 else { return }
        logger.log(level: newsUnsaid ? .warning : .notice, "… and \(unsaid) more \(what), listed in the snapshot")
    }
}
