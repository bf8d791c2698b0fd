import Testing
@testable import ReaderAPI

/// When the server is taken to have stopped answering: silence past the bound, and several
/// requests in a row unanswered; never for one slow request, never while anything answers.
struct ServerWatchTests {
    let start = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int64(seconds * 1000)) }

    @Test func refusalsPastTheBoundAreAnOutage() {
        var watch = ServerWatch(start: start)
        watch.answered(at: at(1))
        #expect(watch.unanswered(at: at(2), problem: "connection refused") == nil)
        #expect(watch.unanswered(at: at(10), problem: "connection refused") == nil)
        #expect(watch.unanswered(at: at(20.5), problem: "connection refused") == nil, "20 s after the start is 19.5 s after the last answer")
        let stopped = watch.unanswered(at: at(21.5), problem: "connection refused")
        #expect(stopped == ServerWatch.Stopped(silentFor: .milliseconds(20_500), unanswered: 4, lastProblem: "connection refused"))
        #expect(stopped?.description == "nothing heard from it for 20 s, 4 requests in a row: connection refused")
        // Once stopped, it stays stopped: an answer still in flight does not undo it.
        watch.answered(at: at(22))
        #expect(watch.stopped == stopped)
        #expect(watch.unanswered(at: at(23), problem: "timed out") == stopped)
    }

    @Test func oneSlowRequestIsNotAnOutage() {
        var watch = ServerWatch(start: start)
        // A single request that timed out after 30 s, then another after 60: two in a row.
        #expect(watch.unanswered(at: at(30), problem: "timed out") == nil)
        #expect(watch.unanswered(at: at(60), problem: "timed out") == nil)
        #expect(watch.stopped == nil)
    }

    @Test func anAnswerInBetweenStartsTheCountAgain() {
        var watch = ServerWatch(start: start)
        for second in stride(from: 1.0, through: 60, by: 3) {
            #expect(watch.unanswered(at: at(second), problem: "HTTP 503") == nil)
            #expect(watch.unanswered(at: at(second + 1), problem: "HTTP 503") == nil)
            // A crash page (500) is an answer: a healthy server's known failure.
            watch.answered(at: at(second + 2))
        }
        #expect(watch.stopped == nil)
        #expect(watch.unansweredInARow == 0)
    }

    @Test func aHangFoundWhenItsRequestsTimeOut() {
        var watch = ServerWatch(start: start)
        watch.answered(at: at(5))
        // Eight requests in flight when the server hangs, each timing out 10 s later.
        var stopped: ServerWatch.Stopped?
        for request in 0..<8 { stopped = watch.unanswered(at: at(15 + Double(request) * 0.01), problem: "timed out") }
        #expect(stopped == nil, "10 s of silence is under the bound")
        // Their retries time out 10 s later again.
        for request in 0..<3 { stopped = watch.unanswered(at: at(25.5 + Double(request) * 0.01), problem: "timed out") }
        #expect(stopped?.unanswered == 9)
        #expect(stopped?.lastProblem == "timed out")
    }

    @Test func aCrawlThatEndsOnUnansweredRequestsEndsOnAnOutage() {
        var watch = ServerWatch(start: start)
        watch.answered(at: at(3))
        #expect(watch.unanswered(at: at(4), problem: "connection refused") == nil)
        #expect(watch.unanswered(at: at(5), problem: "connection refused") == nil)
        #expect(watch.settle(at: at(6)) == nil, "two in a row may be a blip")
        #expect(watch.unanswered(at: at(6), problem: "connection refused") == nil)
        #expect(watch.settle(at: at(7)) == ServerWatch.Stopped(silentFor: .seconds(4), unanswered: 3, lastProblem: "connection refused"))
    }
}
