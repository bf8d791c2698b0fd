import Foundation
import NIOConcurrencyHelpers

/// Whether the Reader server is still answering. Every request to its API reports here: an answer
/// of any kind shows it alive (a 500 too: a healthy server's crash page for a book on a deleted
/// shelf), while a refused connection, a timeout, a reset, or a proxy's 502–504 in front of a Rails
/// that is gone show nothing. Once nothing has come for `bound` and `unansweredInARow` requests in
/// a row came back unanswered, the server has stopped answering: the run ends there, rather than
/// retrying for minutes and publishing an outage as an ordinary night's gaps. A plain value: what
/// happens to it is decided here, and tested without a network.
package struct ServerWatch: Sendable, Equatable {
    /// Silence this long is an outage. A restart of Rails behind its proxy takes a few seconds, and
    /// a night should not fail for it; the bound leaves a run 10 s to notice and stop within 30 s
    /// of the outage (retries wait at most 8 s, so a request is always about to try again).
    package static let bound: Duration = .seconds(20)
    /// And this many requests in a row unanswered: one slow request alone is not an outage.
    package static let unansweredAtLeast = 3

    /// How a run found that the server stopped answering.
    package struct Stopped: Sendable, Equatable {
        /// How long nothing came from it.
        package var silentFor: Duration
        /// Requests in a row that came back unanswered.
        package var unanswered: Int
        /// The last of them, in words: "connection refused", "timed out", "HTTP 502".
        package var lastProblem: String

        /// "nothing heard from it for 21 s, 14 requests in a row: connection refused"
        package var description: String {
            "nothing heard from it for \(Int(silentFor.components.seconds)) s, \(unanswered) requests in a row: \(lastProblem)"
        }
    }

    package private(set) var lastAnswer: ContinuousClock.Instant
    package private(set) var unansweredInARow = 0
    private var lastProblem = ""
    /// Set once, and then every request fails at once without asking.
    package private(set) var stopped: Stopped?

    /// Watching from `start`: the run's first request counts its silence from there.
    package init(start: ContinuousClock.Instant) {
        lastAnswer = start
    }

    /// The server answered (any status but 502–504).
    package mutating func answered(at now: ContinuousClock.Instant) {
        guard stopped == nil else { return }
        lastAnswer = max(lastAnswer, now)
        unansweredInARow = 0
    }

    /// A request came back unanswered; gives what stopped the server, when this makes an outage.
    package mutating func unanswered(at now: ContinuousClock.Instant, problem: String) -> Stopped? {
        if let stopped { return stopped }
        unansweredInARow += 1
        lastProblem = problem
        let silence = now - lastAnswer
        if silence >= Self.bound && unansweredInARow >= Self.unansweredAtLeast {
            stopped = Stopped(silentFor: silence, unanswered: unansweredInARow, lastProblem: problem)
        }
        return stopped
    }

    /// At the end of a crawl: the last requests all went unanswered, however short the silence.
    /// Without this, a server that stops near the end of a crawl would leave its last books as an
    /// ordinary night's gaps.
    package mutating func settle(at now: ContinuousClock.Instant) -> Stopped? {
        if stopped == nil, unansweredInARow >= Self.unansweredAtLeast {
            stopped = Stopped(silentFor: now - lastAnswer, unanswered: unansweredInARow, lastProblem: lastProblem)
        }
        return stopped
    }
}

/// The client's watch, shared by its concurrent requests.
final class ServerWatchBox: Sendable {
    private let watch = NIOLockedValueBox(ServerWatch(start: .now))

    var stopped: ServerWatch.Stopped? { watch.withLockedValue { $0.stopped } }

    /// From now on: the login starts the silence's count afresh.
    func restart() { watch.withLockedValue { if $0.stopped == nil { $0 = ServerWatch(start: .now) } } }

    func answered() { watch.withLockedValue { $0.answered(at: .now) } }

    func unanswered(_ problem: String) -> ServerWatch.Stopped? { watch.withLockedValue { $0.unanswered(at: .now, problem: problem) } }

    func settle() -> ServerWatch.Stopped? { watch.withLockedValue { $0.settle(at: .now) } }
}

/// The server stopped answering during the crawl: the run ends with nothing written, and says how
/// far it got. Exit 69, as for a server that cannot be reached at all: an outage is not a night
/// with gaps.
package struct ServerStoppedAnswering: Error, Sendable, CustomStringConvertible {
    package var stopped: ServerWatch.Stopped
    /// Books read tonight (their details, or unchanged since the last snapshot).
    package var booksRead: Int
    /// Books the list named; nil when the list never came.
    package var booksListed: Int?
    /// Whether a last snapshot stays as it was (the export knows; nil: not said).
    package var lastSnapshotKept: Bool?

    package init(_ stopped: ServerWatch.Stopped, booksRead: Int, booksListed: Int?, lastSnapshotKept: Bool? = nil) {
        self.stopped = stopped
        self.booksRead = booksRead
        self.booksListed = booksListed
        self.lastSnapshotKept = lastSnapshotKept
    }

    package var description: String {
        let far = booksListed.map { "\(booksRead) of \($0) books read" } ?? "before the list of books came"
        let kept = switch lastSnapshotKept {
        case true?: "; the last snapshot is kept"
        case false?: "; nothing was written"
        case nil: ""
        }
        return "the server stopped answering during the crawl (\(far); \(stopped.description))\(kept)"
    }
}
