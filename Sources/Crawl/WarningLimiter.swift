import LibraryArchive
import Logging
import Notes
import ReaderAPI
import SnapshotStore
import Support

/// The first few warnings of a kind, then a count: a big library with many gaps should not bury
/// the summary (every gap is listed in the snapshot).
final class WarningLimiter {
    static let limit = 10
    private let logger: Logger
    private let what: String
    private var count = 0

    init(logger: Logger, what: String) {
        self.logger = logger
        self.what = what
    }

    /// `news`: a gap the last snapshot did not list. A known gap that is still open is said at the
    /// info level: `--quiet` under cron prints nothing on a night that brought no news.
    func warn(_ message: String, news: Bool = true) {
        guard news else {
            logger.info("\(message)")
            return
        }
        count += 1
        if count <= Self.limit { logger.warning("\(message)") }
    }

    func finish() {
        if count > Self.limit { logger.warning("… and \(count - Self.limit) more \(what), listed in the snapshot") }
    }
}
