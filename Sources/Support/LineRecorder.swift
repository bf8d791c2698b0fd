import Foundation
import Logging
import NIOConcurrencyHelpers

/// Keeps what a logger says at the info level and above, as well as saying it: a quiet night's
/// crawl is kept so that the next night that finds the same can say it again (`QuietNight`).
package final class LineRecorder: Sendable {
    private let kept = NIOLockedValueBox<[(level: Logger.Level, text: String)]>([])

    package init() {}

    /// What was said, in order.
    package var lines: [(level: Logger.Level, text: String)] { kept.withLockedValue { $0 } }

    /// `logger`, saying what it says and keeping it here too.
    package func recording(_ logger: Logger) -> Logger {
        var recording = logger
        recording.handler = MultiplexLogHandler([logger.handler, Handler(recorder: self)])
        return recording
    }

    private struct Handler: LogHandler {
        let recorder: LineRecorder
        var logLevel: Logger.Level = .info
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let text = "\(event.message)"
            recorder.kept.withLockedValue { $0.append((event.level, text)) }
        }
    }
}
