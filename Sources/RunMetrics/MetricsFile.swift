import Foundation

/// The file `--metrics-file` names, written the way node_exporter's textfile collector expects:
/// into a temporary file beside it (a name not ending in `.prom`, which the collector skips), then
/// renamed over it, so that a scrape never reads half a file.
package struct MetricsFile: Sendable {
    package let url: URL

    package init(_ url: URL) { self.url = url }

    /// What the last run's file said; nothing when there is none yet.
    package func previous() -> RunMetrics.Previous {
        // A metrics file is a few kilobytes: anything much larger is not ours and is not read.
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
              let size = attributes[.size] as? Int, size < 1 << 20,
              // None, or one that cannot be read: the counters start from nothing, as on a first run.
              let data = try? Data(contentsOf: url) else { return RunMetrics.Previous() }
        return RunMetrics.Previous(text: String(decoding: data, as: UTF8.self))
    }

    /// Writes the run's metrics over the last run's, readable by all: node_exporter runs as a user
    /// of its own, and the file holds no secret (the snapshot's path and counts).
    package func write(_ metrics: RunMetrics) throws {
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw MetricsFileError(url: url, code: errno) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            // The mode is set whatever the umask: a private umask would hide the file from the collector.
            guard fchmod(descriptor, 0o644) == 0 else { throw MetricsFileError(url: url, code: errno) }
            try handle.write(contentsOf: Data(metrics.text.utf8))
            try handle.synchronize()
            try handle.close()
            guard rename(temporary.path, url.path) == 0 else { throw MetricsFileError(url: url, code: errno) }
        } catch {
            // The error thrown is the write's; the temporary file is unlinked whatever the close says.
            try? handle.close()
            unlink(temporary.path)
            throw error
        }
    }

    /// The folder the file goes in exists and can be written: checked before the run, so that a
    /// wrong path is a usage error and not a night without metrics.
    package func checkFolder() throws {
        let folder = url.deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw MetricsFileError(url: url, problem: "the folder \(folder) does not exist")
        }
        guard access(folder, W_OK) == 0 else {
            throw MetricsFileError(url: url, problem: "the folder \(folder) is not writable")
        }
    }
}

package struct MetricsFileError: Error, CustomStringConvertible {
    package let description: String

    init(url: URL, problem: String) {
        description = "--metrics-file \(url.path): \(problem)"
    }

    init(url: URL, code: Int32) {
        self.init(url: url, problem: String(cString: strerror(code)))
    }
}
