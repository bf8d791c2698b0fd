import Foundation
import SampleServer
import TestSupport
import Testing

/// `--metrics-file` as node_exporter's textfile collector reads it: written by a good night and by
/// a failed one, which keeps the last success.
@Suite(.serialized)
struct MetricsFileTests {
    /// The file's samples by name, each with its value (one series a name: one library a file).
    static func values(_ url: URL) throws -> [String: Double] {
        let text = try String(contentsOf: url, encoding: .utf8)
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let value = Double(parts[1]), let open = parts[0].firstIndex(of: "{") else { continue }
            values[String(parts[0][..<open])] = value
        }
        return values
    }

    @Test func aGoodNightAndAFailedOneEachWriteTheirMetrics() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        let metrics = folder.path("metrics/reader-snapshot.prom")

        // A folder that does not exist is a usage error before anything is asked of the server.
        let missing = try await EndToEndTests.export(server, to: output, extra: ["--metrics-file", metrics.path])
        #expect(missing.status == 64 && missing.stderr.contains("--metrics-file"), "\(missing.output)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
        try FileManager.default.createDirectory(at: metrics.deletingLastPathComponent(), withIntermediateDirectories: true)

        let before = Date().timeIntervalSince1970
        let good = try await EndToEndTests.export(server, to: output, extra: ["--metrics-file", metrics.path])
        await server.stop()
        #expect(good.status == 2, "\(good.output)")
        let night = try Self.values(metrics)
        #expect(night["reader_snapshot_run_exit_code"] == 2)
        #expect(night["reader_snapshot_books"] == 30)
        #expect(night["reader_snapshot_shelves"] == 6)
        #expect(night["reader_snapshot_books_with_notes"] == 26)
        #expect(night["reader_snapshot_books_without_details"] == 2)
        #expect(night["reader_snapshot_covers_missing"] == 3)
        #expect(night["reader_snapshot_run_covers_failed"] == 3)
        #expect((night["reader_snapshot_run_covers_fetched"] ?? 0) > 20)
        #expect((night["reader_snapshot_run_requests"] ?? 0) > 30)
        #expect((night["reader_snapshot_run_received_bytes"] ?? 0) > 10_000)
        let success = try #require(night["reader_snapshot_last_success_timestamp_seconds"])
        #expect(success >= before && success == night["reader_snapshot_run_end_timestamp_seconds"])
        let text = try String(contentsOf: metrics, encoding: .utf8)
        #expect(text.contains("output=\"\(output.path)\""), "\(text)")

        // The server is gone: exit 69, the file says so and keeps the last success and the snapshot's counts.
        let failed = try await EndToEndTests.export(server, to: output, extra: ["--metrics-file", metrics.path, "--connect-timeout", "0.5"])
        #expect(failed.status == 69, "\(failed.output)")
        let after = try Self.values(metrics)
        #expect(after["reader_snapshot_run_exit_code"] == 69)
        #expect(after["reader_snapshot_last_success_timestamp_seconds"] == success)
        #expect((after["reader_snapshot_run_start_timestamp_seconds"] ?? 0) > success)
        #expect(after["reader_snapshot_books"] == 30)
        #expect(after["reader_snapshot_run_covers_fetched"] == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: metrics.deletingLastPathComponent().path) == ["reader-snapshot.prom"])
    }
}
