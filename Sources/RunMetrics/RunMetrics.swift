import Foundation
import Prometheus

/// One export, as a monitor reads it: node_exporter's textfile collector takes the file
/// `--metrics-file` names (Prometheus' text format) and Prometheus alerts on it.
///
/// Every run writes it, a failed one too, so that a night that ended with 69 or 77 is seen and not
/// just missed. What a failed run cannot know, it takes from the file the run before it wrote: when
/// a run last succeeded, and what the snapshot still in place holds (a failed run leaves it as it was).
package struct RunMetrics: Sendable, Equatable {
    /// The snapshot's folder. It labels every series, so that the runs of several libraries can
    /// write their files into one textfile folder side by side.
    package var output: String
    package var started: Date
    package var ended: Date
    package var exitCode: Int32
    /// When a run last wrote its snapshot (exit 0, or 2: written with gaps, a normal night).
    package var lastSuccess: Date?
    /// What this run did; what it did not get to is 0.
    package var run = Run()
    /// What the snapshot in place holds: this run's when it wrote one, else the last run's.
    package var snapshot: Snapshot?
    package var version: String

    package struct Run: Sendable, Equatable {
        package var requests = 0
        package var receivedBytes = 0
        package var coversFetched = 0
        package var coversFailed = 0
        /// Files uploaded by `--publish`, and deleted from the host.
        package var publishedFiles = 0
        package var deletedFiles = 0
        package init() {}
    }

    package struct Snapshot: Sendable, Equatable {
        package var books = 0
        package var booksWithNotes = 0
        package var booksWithoutDetails = 0
        package var coversMissing = 0
        package var shelves = 0
        package init() {}
    }

    /// Exit 0 is a complete night and 2 a night with gaps: both wrote the snapshot.
    package static func isSuccess(_ code: Int32) -> Bool { code == 0 || code == 2 }

    package init(output: String, started: Date, ended: Date, exitCode: Int32, version: String) {
        self.output = output
        self.started = started
        self.ended = ended
        self.exitCode = exitCode
        self.version = version
        if Self.isSuccess(exitCode) { lastSuccess = ended }
    }

    /// A failed run takes the last success and the snapshot's counts from the last run's file.
    package mutating func carryOver(from previous: Previous) {
        guard !Self.isSuccess(exitCode) else { return }
        lastSuccess = lastSuccess ?? previous.lastSuccess
        snapshot = snapshot ?? previous.snapshot
    }

    /// The series, in the order they are listed in docs/nightly.md.
    var series: [(name: String, help: String, value: Double)] {
        var all: [(String, String, Double)] = [
            ("reader_snapshot_run_start_timestamp_seconds", "When the last run started (Unix time).", started.timeIntervalSince1970),
            ("reader_snapshot_run_end_timestamp_seconds", "When the last run ended (Unix time).", ended.timeIntervalSince1970),
            ("reader_snapshot_run_duration_seconds", "How long the last run took.", ended.timeIntervalSince(started)),
            ("reader_snapshot_run_exit_code", "The last run's exit code: 0 complete, 2 written with gaps, 69 server unreachable, 77 credentials rejected, 130 and 143 stopped (reader-snapshot --help lists them all).", Double(exitCode)),
            ("reader_snapshot_run_requests", "Requests the last run sent to the Reader server and the covers' hosts.", Double(run.requests)),
            ("reader_snapshot_run_received_bytes", "Bytes the last run received (answers and covers).", Double(run.receivedBytes)),
            ("reader_snapshot_run_covers_fetched", "Covers the last run downloaded.", Double(run.coversFetched)),
            ("reader_snapshot_run_covers_failed", "Covers the last run could not fetch.", Double(run.coversFailed)),
            ("reader_snapshot_run_published_files", "Files the last run uploaded to the static host (--publish).", Double(run.publishedFiles)),
            ("reader_snapshot_run_deleted_files", "Files the last run deleted from the static host (--publish).", Double(run.deletedFiles)),
        ]
        if let lastSuccess {
            all.append(("reader_snapshot_last_success_timestamp_seconds", "When a run last wrote the snapshot, exit code 0 or 2 (Unix time).", lastSuccess.timeIntervalSince1970))
        }
        if let snapshot {
            all += [
                ("reader_snapshot_books", "Books in the snapshot in place.", Double(snapshot.books)),
                ("reader_snapshot_books_with_notes", "Books with notes in the snapshot in place.", Double(snapshot.booksWithNotes)),
                ("reader_snapshot_books_without_details", "Books in the snapshot whose details could not be fetched.", Double(snapshot.booksWithoutDetails)),
                ("reader_snapshot_covers_missing", "Covers the snapshot lists as not fetched.", Double(snapshot.coversMissing)),
                ("reader_snapshot_shelves", "Shelves in the snapshot in place.", Double(snapshot.shelves)),
            ]
        }
        return all
    }

    /// The file's text, by swift-prometheus: `# HELP`, `# TYPE` and the value of each gauge. Every
    /// value is a gauge: each run writes its own, where a counter would have to grow across runs.
    /// One registry a series keeps them in the order listed (a registry's own order is its dictionary's).
    package var text: String {
        let labels = [("output", output)]
        var text = ""
        for series in series + [("reader_snapshot_build_info", "The reader-snapshot release that ran (always 1).", 1)] {
            let registry = PrometheusCollectorRegistry()
            let named = series.name == "reader_snapshot_build_info" ? labels + [("version", version)] : labels
            registry.makeGauge(name: series.name, labels: named, help: series.help).set(series.value)
            text += registry.emitToString()
            // The format ends every line with a newline; the registry leaves the last one out.
            if !text.hasSuffix("\n") { text += "\n" }
        }
        return text
    }

    /// What the last run's file said, as far as a failed run needs it.
    package struct Previous: Sendable, Equatable {
        package var lastSuccess: Date?
        package var snapshot: Snapshot?

        package init(lastSuccess: Date? = nil, snapshot: Snapshot? = nil) {
            self.lastSuccess = lastSuccess
            self.snapshot = snapshot
        }

        /// Reads the values of the text format's sample lines (`name{labels} value`). A file that is
        /// not ours, or is damaged, gives what could be read: at worst nothing, never an error.
        package init(text: String) {
            var values: [String: Double] = [:]
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                let name = line.prefix { $0 != "{" && $0 != " " }
                guard let last = line.split(separator: " ").last, let value = Double(last), value.isFinite else { continue }
                values[String(name)] = value
            }
            if let seconds = values["reader_snapshot_last_success_timestamp_seconds"] {
                lastSuccess = Date(timeIntervalSince1970: seconds)
            }
            // A count is a whole number from 0 up; anything else in the file is not taken.
            func count(_ name: String) -> Int? {
                guard let value = values[name], value >= 0, value < 1e15 else { return nil }
                return Int(value)
            }
            if let books = count("reader_snapshot_books") {
                var snapshot = Snapshot()
                snapshot.books = books
                snapshot.booksWithNotes = count("reader_snapshot_books_with_notes") ?? 0
                snapshot.booksWithoutDetails = count("reader_snapshot_books_without_details") ?? 0
                snapshot.coversMissing = count("reader_snapshot_covers_missing") ?? 0
                snapshot.shelves = count("reader_snapshot_shelves") ?? 0
                self.snapshot = snapshot
            }
        }
    }
}
