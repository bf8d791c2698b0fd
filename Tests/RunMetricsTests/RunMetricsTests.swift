import Foundation
import RunMetrics
import TestSupport
import Testing

/// The text format's sample lines, read back as a scraper reads them: name, labels, value.
func samples(_ text: String) -> [String: (labels: String, value: Double)] {
    var found: [String: (String, Double)] = [:]
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
        guard let open = line.firstIndex(of: "{"), let close = line.lastIndex(of: "}"),
              let value = Double(line[line.index(after: close)...].trimmingCharacters(in: .whitespaces)) else { continue }
        found[String(line[..<open])] = (String(line[line.index(after: open)..<close]), value)
    }
    return found
}

@Suite struct RunMetricsTests {
    static let started = Date(timeIntervalSince1970: 1_795_000_000)

    static func goodNight() -> RunMetrics {
        var metrics = RunMetrics(output: "/var/lib/reader-snapshot/books/library", started: started,
                                 ended: started.addingTimeInterval(42.5), exitCode: 2, version: "9.8.7")
        metrics.run.requests = 83
        metrics.run.receivedBytes = 136_089
        metrics.run.coversFetched = 24
        metrics.run.coversFailed = 3
        metrics.run.publishedFiles = 12
        var snapshot = RunMetrics.Snapshot()
        snapshot.books = 30
        snapshot.booksWithNotes = 26
        snapshot.booksWithoutDetails = 2
        snapshot.coversMissing = 3
        snapshot.shelves = 6
        metrics.snapshot = snapshot
        return metrics
    }

    @Test func aNightWithGapsIsASuccessAndSaysEveryCountWithItsHelpAndType() {
        let text = Self.goodNight().text
        let found = samples(text)
        let expected: [String: Double] = [
            "reader_snapshot_run_start_timestamp_seconds": 1_795_000_000,
            "reader_snapshot_run_end_timestamp_seconds": 1_795_000_042.5,
            "reader_snapshot_run_duration_seconds": 42.5,
            "reader_snapshot_run_exit_code": 2,
            "reader_snapshot_last_success_timestamp_seconds": 1_795_000_042.5,
            "reader_snapshot_run_requests": 83, "reader_snapshot_run_received_bytes": 136_089,
            "reader_snapshot_run_covers_fetched": 24, "reader_snapshot_run_covers_failed": 3,
            "reader_snapshot_run_published_files": 12, "reader_snapshot_run_deleted_files": 0,
            "reader_snapshot_books": 30, "reader_snapshot_books_with_notes": 26,
            "reader_snapshot_books_without_details": 2, "reader_snapshot_covers_missing": 3, "reader_snapshot_shelves": 6,
            "reader_snapshot_build_info": 1,
        ]
        #expect(Set(found.keys) == Set(expected.keys), "\(text)")
        for (name, value) in expected {
            #expect(found[name]?.value == value, "\(name): \(String(describing: found[name]))")
            #expect(found[name]?.labels.hasPrefix("output=\"/var/lib/reader-snapshot/books/library\"") == true)
            #expect(text.contains("# TYPE \(name) gauge\n"), "\(name)")
            #expect(text.contains("# HELP \(name) "), "\(name)")
        }
        #expect(found["reader_snapshot_build_info"]?.labels.contains("version=\"9.8.7\"") == true)
    }

    @Test func aFailedRunKeepsTheLastSuccessAndTheSnapshotInPlaceFromTheFileBefore() {
        let before = RunMetrics.Previous(text: Self.goodNight().text)
        #expect(before.lastSuccess == Self.started.addingTimeInterval(42.5))
        #expect(before.snapshot == Self.goodNight().snapshot)

        var failed = RunMetrics(output: "/var/lib/reader-snapshot/books/library", started: Self.started.addingTimeInterval(86_400),
                                ended: Self.started.addingTimeInterval(86_430), exitCode: 69, version: "9.8.7")
        failed.run.requests = 4
        failed.carryOver(from: before)
        let found = samples(failed.text)
        #expect(found["reader_snapshot_run_exit_code"]?.value == 69)
        #expect(found["reader_snapshot_last_success_timestamp_seconds"]?.value == 1_795_000_042.5)
        #expect(found["reader_snapshot_run_end_timestamp_seconds"]?.value == 1_795_086_430)
        #expect(found["reader_snapshot_books"]?.value == 30)
        #expect(found["reader_snapshot_run_requests"]?.value == 4)
        #expect(found["reader_snapshot_run_covers_fetched"]?.value == 0)

        // A success takes nothing over: its own end is the last success, its snapshot its own.
        var next = Self.goodNight()
        next.snapshot?.books = 31
        next.carryOver(from: before)
        #expect(samples(next.text)["reader_snapshot_books"]?.value == 31)

        // The first run ever, failed: no success to tell, no snapshot.
        var first = RunMetrics(output: "/x", started: Self.started, ended: Self.started, exitCode: 77, version: "1")
        first.carryOver(from: RunMetrics.Previous())
        let firstFound = samples(first.text)
        #expect(firstFound["reader_snapshot_last_success_timestamp_seconds"] == nil)
        #expect(firstFound["reader_snapshot_books"] == nil)
        #expect(firstFound["reader_snapshot_run_exit_code"]?.value == 77)
    }

    @Test func aLabelValueIsEscapedAndAFileNotOursGivesNothing() {
        let odd = RunMetrics(output: "/srv/\"books\"\\new\nline", started: Self.started, ended: Self.started, exitCode: 0, version: "1")
        #expect(odd.text.contains(#"output="/srv/\"books\"\\new\nline""#), "\(odd.text)")
        #expect(!odd.text.contains("\nline\""))
        let garbage = RunMetrics.Previous(text: "reader_snapshot_books{} -5\nreader_snapshot_last_success_timestamp_seconds NaN\n\u{0}\u{1}")
        #expect(garbage == RunMetrics.Previous())
    }

    @Test func theFileIsRenamedIntoPlace() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let url = folder.path("reader-snapshot.prom")
        try Data("reader_snapshot_books{output=\"/old\"} 12\nreader_snapshot_last_success_timestamp_seconds{output=\"/old\"} 1000\n".utf8).write(to: url)
        let file = MetricsFile(url)
        #expect(file.previous() == RunMetrics.Previous(lastSuccess: Date(timeIntervalSince1970: 1000), snapshot: {
            var snapshot = RunMetrics.Snapshot()
            snapshot.books = 12
            return snapshot
        }()))
        try file.write(Self.goodNight())
        #expect(try String(contentsOf: url, encoding: .utf8) == Self.goodNight().text)
        // Nothing else is left in the folder: the temporary file was the one renamed.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["reader-snapshot.prom"])
        #expect(throws: MetricsFileError.self) { try MetricsFile(folder.path("missing/x.prom")).checkFolder() }
        #expect(throws: MetricsFileError.self) { try MetricsFile(folder.path("missing/x.prom")).write(Self.goodNight()) }
    }

    /// Under a private umask (a service's `UMask=0077`) the file is still readable by the collector.
    /// The umask is set in a shell that then becomes the tool, not in this process: the other
    /// suites run beside this one and start the tool and git, which would inherit it. The run is a
    /// usage error (its password file is missing), which asks nothing of any server and still
    /// writes the file, as every run does.
    @Test func theFileIsReadableByTheCollectorWhateverTheUmask() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let url = folder.path("reader-snapshot.prom")
        let (status, said) = try await ToolRunner.runChecker("/bin/sh", [
            "-c", "umask 077; exec \"$0\" \"$@\"", ToolRunner.executable.path,
            "export", "--server", "http://reader.invalid", "--email", "reader@example.org", "--output", folder.path("library").path,
            "--password-file", folder.path("no-such-password").path, "--metrics-file", url.path,
        ])
        #expect(status == 64 && said.contains("password file"), "\(said)")
        #expect(samples(try String(contentsOf: url, encoding: .utf8))["reader_snapshot_run_exit_code"]?.value == 64)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
        #expect(mode == 0o644, "\(String(mode, radix: 8))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["reader-snapshot.prom"])
    }
}
