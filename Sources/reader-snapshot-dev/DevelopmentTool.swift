import ArgumentParser
import Foundation
import SampleServer
import SampleServerDoubles

/// What reader-snapshot's tests and benchmarks run besides the tool: the sample server with the
/// conditions they need (latency, the real server's costs, a capacity, faults, the hostile
/// library), two benchmarks, and a year of a timeline for a third. It is built beside the tool and never installed: the shipped tool
/// carries none of it.
@main
struct DevelopmentTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reader-snapshot-dev",
        abstract: "The sample server with the tests' conditions, and benchmarks, for reader-snapshot's development (not installed).",
        subcommands: [DevelopmentSampleServer.self, NotesBench.self, ThumbnailsBench.self, TimelineYear.self]
    )
}

struct DevelopmentSampleServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample-server",
        abstract: "Run the sample Reader server in the foreground, with the tests' conditions (Ctrl-C stops it).",
        discussion: "As 'reader-snapshot sample-server', and: --library hostile serves every kind of hostile input."
    )

    @OptionGroup var server: SampleServerArguments

    @Option(name: .long, help: ArgumentHelp("How long answers take on average, from the moment the request is read to the response (this server's own work included). Timers wake late: the server makes up for it, and prints the mean it met when it stops.", valueName: "ms"))
    var latencyMs: Int = 0

    @Option(name: .long, help: ArgumentHelp("Requests served at once, each for its latency; the rest wait in line, as behind one small Rails process (default: no limit).", valueName: "n"))
    var capacity: Int?

    @Flag(name: .long, help: "Answer as slowly as the real Reader server: a shelf's page 30 ms plus 3.4 ms a book on it, the list of books 10 ms plus 0.16 ms a book, a book's details 7 ms, a cover 1–3 ms, a 304 as slow as a 200, one request at a time unless --capacity says otherwise. Replaces --latency-ms.")
    var realistic = false

    @Option(name: .long, help: ArgumentHelp("The share of requests that fail, 0 to 1 (logins excepted).", valueName: "rate"))
    var faultRate: Double = 0

    @Option(name: .long, help: ArgumentHelp("The seed of the fault draws.", valueName: "s"))
    var faultSeed: UInt64 = 1

    @Option(name: .long, help: ArgumentHelp("Which faults, comma-separated: 500, 503, 429, reset, stall, truncated (default: all).", valueName: "list"))
    var faults: String?

    @Option(name: .long, help: ArgumentHelp("How long a stalled answer hangs.", valueName: "ms"))
    var stallMs: Int = 30_000

    func validate() throws {
        try server.check()
        guard (0...1).contains(faultRate) else { throw ValidationError("--fault-rate must be between 0 and 1.") }
        if let capacity, capacity < 1 { throw ValidationError("--capacity must be at least 1.") }
        if realistic && latencyMs > 0 { throw ValidationError("Use --realistic or --latency-ms, not both.") }
        guard latencyMs >= 0, stallMs >= 0 else { throw ValidationError("Times must not be negative.") }
        _ = try faultKinds()
    }

    func faultKinds() throws -> [Fault] {
        guard let faults else { return [] }
        return try faults.split(separator: ",").map { name in
            guard let fault = Fault(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("Unknown fault '\(name)': use 500, 503, 429, reset, stall, truncated.")
            }
            return fault
        }
    }

    func run() async throws {
        let sample = server.library == "hostile" ? try SampleLibrary.hostile() : try server.sampleLibrary()
        var options = ServerDoubles.Options()
        options.latency = .milliseconds(latencyMs)
        options.latencyOnAverage = true
        options.capacity = capacity ?? (realistic ? 1 : nil)
        options.costs = realistic ? .reader : nil
        options.faults = FaultPlan(rate: faultRate, seed: faultSeed, kinds: try faultKinds(), stall: .milliseconds(stallMs))
        let doubles = ServerDoubles(options)
        try await server.serve(sample, conditions: doubles)
        let held = doubles.heldAnswers
        if latencyMs > 0, held.answers > 0 {
            // For the benchmarks: the latency the crawl really met.
            let mean = Double(held.mean.components.attoseconds) / 1e15 + Double(held.mean.components.seconds) * 1000
            FileHandle.standardOutput.write(Data(String(format: "Answers: %d held, %.3f ms on average from request to answer (--latency-ms %d)\n",
                                                        held.answers, mean, latencyMs).utf8))
        }
    }
}
