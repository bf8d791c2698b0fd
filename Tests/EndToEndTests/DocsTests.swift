import Foundation
import TestSupport
import Testing

/// The console blocks of the README and of docs/, run as written (Tests/docs/run_console.py) with
/// the built tool first on the PATH: the Quick start starts the sample server on the port it
/// shows, exports it, and must print what the README says it prints. Each block runs in a network
/// namespace of its own, so that the port it names is free whatever the suites beside it opened.
@Suite struct DocsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theConsoleBlocksOfTheDocsRunAsWritten() async throws {
        let docs = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        let files = (["README.md"] + docs).map { Self.root.appendingPathComponent($0).path }
        let script = Self.root.appendingPathComponent("Tests/docs/run_console.py").path
        let (status, output) = try await ToolRunner.runChecker("/usr/bin/env", [
            "PATH=\(ToolRunner.productsDirectory.path):/usr/local/bin:/usr/bin:/bin", "python3", script] + files)
        #expect(status == 0 && output.contains(" blocks run, 0 differ, "), "\(output)")
        // The Quick start is one of them, run to its end.
        #expect(output.contains("README.md:") && output.contains("  $ kill %1"), "\(output)")
    }
}
