import Foundation

/// Runs the built `reader-snapshot` binary, as a user would, and captures what it printed.
package struct ToolRun {
    package var status: Int32
    package var stdout: String
    package var stderr: String
    package var output: String { stdout + stderr }
    /// When the tool ended, as its end was seen (not when the test got round to it).
    package var ended: ContinuousClock.Instant

    package init(status: Int32, stdout: String, stderr: String, ended: ContinuousClock.Instant = .now) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.ended = ended
    }
}

package enum ToolRunner {
    /// The folder the test bundle was built into, which holds the tool too (`swift build --build-tests`).
    package static var productsDirectory: URL {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        #endif
        return Bundle.main.bundleURL
    }

    package static var executable: URL { productsDirectory.appendingPathComponent("reader-snapshot") }

    /// The exports' `--connect-timeout` here. The sample's dead cover hosts are refused ports, which
    /// fail at once whatever it is. A live one, "object storage" on localhost, took over 3 s to
    /// connect now and then while the suite kept both cores busy (exports under six busy loops:
    /// one run in eight lost book 102's cover at 3 s, none of ten first runs at 10 s), and a test that
    /// asks for no retries then lost that cover.
    package static let connectTimeout = "10"

    /// Runs the tool and waits for it without holding a thread of the concurrency pool: the sample
    /// server it talks to runs in this process and needs those threads to answer.
    package static func run(_ arguments: [String], environment: [String: String] = [:], removing: [String] = [], stdin: String? = nil,
                    in directory: URL? = nil) async throws -> ToolRun {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for key in ["READER_SERVER", "READER_EMAIL", "READER_PASSWORD", "READER_API_KEY", "READER_USER_ID", "SOURCE_DATE_EPOCH"] {
            env.removeValue(forKey: key)
        }
        env.merge(environment) { _, new in new }
        for key in removing { env.removeValue(forKey: key) }
        process.environment = env
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        let outData = PipeReader(out), errData = PipeReader(err)
        let (status, ended): (Int32, ContinuousClock.Instant) = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { process in continuation.resume(returning: (process.terminationStatus, .now)) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
            try? input.fileHandleForWriting.close()
        }
        return ToolRun(status: status, stdout: String(decoding: outData.wait(), as: UTF8.self),
                       stderr: String(decoding: errData.wait(), as: UTF8.self), ended: ended)
    }

    /// Runs a checking program (a validator, the browser check) and gives its status and output.
    package static func runChecker(_ executable: String, _ arguments: [String]) async throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let reader = PipeReader(pipe)
        try process.run()
        await wait(for: process)
        return (process.terminationStatus, String(decoding: reader.wait(), as: UTF8.self))
    }

    /// Waits for a started process without blocking the concurrency pool.
    package static func wait(for process: Process) async {
        while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
    }
}

/// Reads a pipe to its end on a thread of its own, so that a chatty tool never stalls on a full pipe.
package final class PipeReader: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)
    package init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }
    package func wait() -> Data {
        done.wait()
        return data
    }
}

/// Where an export keeps the private state of the snapshot at `output`: beside it, as `.NAME.reader-snapshot`.
package func stateFolder(of output: URL) -> URL {
    output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).reader-snapshot")
}

/// A fresh folder under the system's temporary folder, removed by `remove()`.
package struct TemporaryFolder {
    package let url: URL
    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("reader-snapshot-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    package func remove() { try? FileManager.default.removeItem(at: url) }
    package func path(_ name: String) -> URL { url.appendingPathComponent(name) }
}

/// Where `--history` keeps the snapshot at `output`'s git directory: beside it, as the state is.
package func historyFolder(of output: URL) -> URL {
    output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).history.git")
}
