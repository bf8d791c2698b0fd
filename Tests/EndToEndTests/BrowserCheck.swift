import Foundation
import TestSupport
import Testing

/// The browser checks in `Tests/browser/`, run with Debian's Python (which has Selenium) against
/// Chromium: each prints a line per problem and "… check: 1 passed, 0 failed" at the end.
enum BrowserCheck {
    /// Whether Chromium's driver is there. On Linux, where `make test` installs it, its absence is
    /// a failure; elsewhere the test is skipped.
    static func isAvailable() -> Bool {
        guard FileManager.default.fileExists(atPath: "/usr/bin/chromedriver") else {
            #if os(Linux)
            Issue.record("chromium-driver is missing: `make test` installs it (apt-get install chromium chromium-driver python3-selenium)")
            #endif
            return false
        }
        return true
    }

    /// The path of `Tests/browser/<script>`.
    static func script(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("browser/" + name).path
    }

    /// Runs `Tests/browser/<script>` with these arguments: its exit status and what it printed.
    static func run(_ name: String, _ arguments: [String]) async throws -> (Int32, String) {
        try await ToolRunner.runChecker("/usr/bin/python3", [script(name)] + arguments)
    }
}
