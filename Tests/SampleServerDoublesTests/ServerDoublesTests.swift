import Foundation
import Hummingbird
import HummingbirdTesting
@testable import SampleServer
@testable import SampleServerDoubles
import TestSupport
import Testing

/// The tests' and benchmarks' conditions (`ServerDoubles`): a capacity with its queue, latency
/// counted from a request's arrival, a server that went, the answer timer, the real server's costs.
struct ServerDoublesTests {
    static func makeServer() throws -> SampleServer {
        var options = SampleServer.Options()
        options.loginDelay = .zero
        options.apiKey = String(repeating: "c0ffee", count: 6) + "abcd"
        options.conditions = ServerDoubles()
        return SampleServer(library: try SampleLibrary.bundled(), options: options)
    }

    /// `--capacity N`: N requests are worked on at once and the rest wait their turn.
    @Test(arguments: [1, 4])
    func capacityQueuesWhatItCannotServeAtOnce(capacity: Int) async throws {
        let key = String(repeating: "c0ffee", count: 6) + "abcd"
        var options = SampleServer.Options()
        options.apiKey = key
        // Long enough that a busy machine (the other suites run beside this one) cannot blur one
        // answer's wait into the next.
        options.conditions = ServerDoubles(.init(latency: .milliseconds(100), capacity: capacity))
        let server = SampleServer(library: try SampleLibrary.bundled(), options: options)
        let app = Application(router: server.makeRouter())
        try await app.test(.router) { client in
            let started = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for id in 101...104 {
                    group.addTask {
                        try await client.execute(uri: "/api/v1/books/\(id)?api_key=\(key)&user_id=1", method: .get) { response in
                            #expect(response.status == .ok)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let elapsed = ContinuousClock.now - started
            let longestQueue = await server.doubles.longestQueue
            if capacity == 1 {
                // Each holds the one slot for its latency: one after another, however busy the machine.
                #expect(elapsed >= .milliseconds(400), "four answers one after another: \(elapsed)")
            } else {
                // Not timed (other suites share these two cores): nobody had to wait for a slot.
                #expect(longestQueue == 0, "four answers at once")
            }
        }
    }

    /// `--latency-ms` counts from the moment the request was read off the connection (the server's
    /// own hops are part of its time to answer), and no client can shorten it with a stamp of its own.
    @Test func latencyCountsFromTheRequestsArrivalAndNoClientCanShortenIt() async throws {
        let key = String(repeating: "5ca1ab1e", count: 5)
        var options = SampleServer.Options()
        options.apiKey = key
        options.conditions = ServerDoubles(.init(latency: .milliseconds(80)))
        let server = SampleServer(library: try SampleLibrary.bundled(), options: options)
        try await server.makeApplication(host: "127.0.0.1", port: 0).test(.live) { client in
            // A stamp from 70 ms ago would leave 10 ms to wait, if it were believed.
            let forged = String(DispatchTime.now().uptimeNanoseconds - 70_000_000)
            for stamp in [nil, forged] {
                var headers: HTTPFields = [:]
                if let stamp { headers[ArrivalStamp.field] = stamp }
                let started = ContinuousClock.now
                try await client.execute(uri: "/api/v1/books/101?api_key=\(key)&user_id=1", method: .get, headers: headers) { response in
                    #expect(response.status == .ok)
                }
                let elapsed = ContinuousClock.now - started
                #expect(elapsed >= .milliseconds(80), "stamp \(stamp ?? "none"): answered after \(elapsed)")
            }
        }
    }

    /// A server that went (stopped, or hung until it stops) answers the requests it holds with
    /// nothing: the connection is cut. An error page would tell the tool the server still answers,
    /// and an outage test on a busy machine would then count its silence from the last of them.
    @Test func aServerThatWentAnswersNothingNotEvenAnErrorPage() async throws {
        let server = try Self.makeServer()
        let key = String(repeating: "c0ffee", count: 6) + "abcd"
        server.doubles.hang()
        try await server.makeApplication(host: "127.0.0.1", port: 0).test(.live) { client in
            let stopping = Task {
                try await Task.sleep(for: .milliseconds(200))
                server.state.setStopping()
            }
            var status: HTTPResponse.Status?
            do {
                try await client.execute(uri: "/api/v1/books/101?api_key=\(key)&user_id=1", method: .get) { response in
                    status = response.status
                }
            } catch {
                // Cut off: the test client has no answer to give.
            }
            try await stopping.value
            #expect(status == nil, "a server that went answered \(status.map { "\($0.code)" } ?? "")")
        }
    }

    /// Answers are held for the latency: for tests, never less; for benchmarks (`--latency-ms`), on
    /// average, the timer set early by the lateness it has seen, never by more than half the latency.
    @Test(arguments: [false, true])
    func answersAreHeldForTheLatency(onAverage: Bool) async throws {
        let timer = AnswerTimer(onAverage: onAverage)
        let latency = Duration.milliseconds(4)
        for _ in 0..<20 {
            let arrival = ContinuousClock.now
            try await timer.wait(from: arrival, until: arrival + latency)
            let held = ContinuousClock.now - arrival
            #expect(held >= (onAverage ? latency / 2 : latency), "held \(held)")
        }
        #expect(timer.answered.answers == 20)
        // A timer never wakes exactly on time: with `onAverage` the lateness seen sets it early.
        if onAverage {
            #expect(timer.currentLead > .zero && timer.currentLead <= latency / 2, "\(timer.currentLead)")
        } else {
            #expect(timer.currentLead == .zero)
        }
    }

    /// --realistic: each answer costs what it costs the real server, by what it holds.
    @Test func realisticCostsGrowWithWhatAnAnswerHolds() throws {
        let library = try SampleLibrary.bundled()
        let costs = ServerCosts.reader
        let shelf = try #require(library.shelves.first)
        let onShelf = library.bookCount(onShelf: shelf.id)
        #expect(onShelf > 1)
        #expect(costs.cost(of: "/api/v1/shelves/\(shelf.id)", in: library) == costs.shelfBase + costs.shelfPerBook * onShelf)
        #expect(costs.cost(of: "/api/v1/books", in: library) == costs.booksBase + costs.booksPerBook * library.books.count)
        #expect(costs.cost(of: "/api/v1/shelves", in: library) == .milliseconds(11))
        let crashing = try #require(library.books.first { library.shelf(id: $0.shelfID) == nil })
        #expect(costs.cost(of: "/api/v1/books/\(crashing.id)", in: library) == costs.detailCrash)
        #expect(costs.cost(of: "/api/v1/books/\(library.books[0].id)", in: library) == costs.detail)
        #expect(costs.cost(of: "/rails/active_storage/blobs/redirect/x/y.jpg", in: library) == costs.coverRedirect)
        #expect(costs.cost(of: "/api/v1/sessions", in: library) == .zero, "the login's delay is its own")
        // A 304 takes the same path through the server, so the same time: the cost depends on the path alone.
    }
}
