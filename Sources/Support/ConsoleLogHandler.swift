import Foundation
import Logging

/// Plain log lines on standard error, for people and for cron mail: "warning: …", no timestamps,
/// no colour codes.
package struct ConsoleLogHandler: LogHandler {
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]
    /// The progress line to print above, on a terminal.
    let live: LiveProgress?

    package init(level: Logger.Level, live: LiveProgress? = nil) {
        self.logLevel = level
        self.live = live
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        let prefix: String
        switch event.level {
        case .trace, .debug: prefix = "debug: "
        case .info: prefix = ""
        // A warning the user was given before (a gap the last snapshot listed too): said as a
        // warning, but only at the info level, so that --quiet (the warning level) leaves it out.
        case .notice, .warning: prefix = "warning: "
        case .error, .critical: prefix = "error: "
        }
        let line = prefix + "\(event.message)\n"
        if let live {
            live.print(line)
        } else {
            // A line standard error cannot take has nowhere else to go.
            try? FileHandle.standardError.write(contentsOf: Data(line.utf8))
        }
    }
}
