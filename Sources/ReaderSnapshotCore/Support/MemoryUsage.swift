import Foundation

/// The process's resident memory, for `--verbose` lines at the end of each step: what a big
/// library costs, and where.
enum MemoryUsage {
    /// "now 85 MB, peak 120 MB", or nil where /proc is not there to ask.
    static func summary() -> String? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        func megabytes(_ key: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }),
                  let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
            return kilobytes / 1024
        }
        guard let now = megabytes("VmRSS"), let peak = megabytes("VmHWM") else { return nil }
        return "memory now \(now) MB, peak \(peak) MB"
    }
}
