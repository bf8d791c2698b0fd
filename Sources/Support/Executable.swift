import Foundation

/// Where the tool looks for the programs it runs (rclone, git): the PATH it was given, or the
/// usual folders when it has none (a cron job's environment may have no PATH at all).
package enum Executable {
    package static var searchPath: String { ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin" }

    /// The first executable file named `name` in the search path, found without starting
    /// anything; nil when there is none.
    package static func find(_ name: String) -> String? {
        for folder in searchPath.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
