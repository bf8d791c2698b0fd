import Foundation

/// The process's resident memory, for `--verbose` lines at the end of each step: what a big
/// library costs, and where.
enum MemoryUsage {
    /// Gives the allocator's free memory back to the system at the end of a step: the threads that
    /// made 100,000 books leave their arenas full of freed pieces, and the next step would stack on them.
    static func release() {
        #if os(Linux)
        _ = malloc_trim(0)
        #endif
    }

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

#if os(Linux)
@_silgen_name("malloc_trim")
private func malloc_trim(_ pad: Int) -> Int32
#endif
