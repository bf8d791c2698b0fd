import Foundation

/// The process's resident memory, for `--verbose` lines at the end of each step: what a big
/// library costs, and where.
package enum MemoryUsage {
    /// Gives the allocator's free memory back to the system at the end of a step: the threads that
    /// made 100,000 books leave their arenas full of freed pieces, and the next step would stack on them.
    package static func release() {
        #if os(Linux)
        _ = malloc_trim(0)
        #endif
    }

    /// Sets the allocator up for a long run, before its threads get busy.
    ///
    /// Big blocks (answers of megabytes, growing lists) are kept out of the heap. By default glibc
    /// raises its mmap threshold each time such a block is freed, so the next big one lands in the
    /// heap, where freed space is fragmented and cannot all be given back: the run's peak then
    /// depended on the order answers came in, by 20 MB at 100,000 books.
    ///
    /// Two arenas at most: glibc gives each busy thread an arena of its own (up to eight a core),
    /// and each keeps freed pieces the others cannot use. Two cost the first export of 100,000
    /// books 5 MB less at its peak (173 → 168 MB), and its time the same (docs/performance.md).
    package static func configureAllocator() {
        #if os(Linux)
        _ = mallopt(-3 /* M_MMAP_THRESHOLD, not exported to Swift */, 256 * 1024)
        _ = mallopt(-8 /* M_ARENA_MAX */, 2)
        #endif
    }

    /// "now 85 MB, peak 120 MB", or nil where /proc is not there to ask.
    package static func summary() -> String? {
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

@_silgen_name("mallopt")
private func mallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif
