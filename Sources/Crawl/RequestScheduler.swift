/// When the crawl's requests go out: how many are in flight against the level the server is found
/// to answer fastest at, and now and then one request alone, to learn how fast the server answers
/// with no queue (first when the list of books is in, as answers that waited behind it teach too
/// slow a time, then every few seconds).
///
/// A plain value: it is told what was sent and what came back, with the time since the crawl
/// began, and says what may go next. The list of every book is one long answer that goes beside
/// the level: the level is learnt from the many short ones.
struct RequestScheduler {
    enum Release: Equatable {
        /// Up to this many requests may go now.
        case upTo(Int)
        /// One request goes alone, with nothing else in flight.
        case alone
    }

    private enum Probe {
        case idle
        /// Waiting for the requests in flight to come back before one goes alone.
        case draining
        case alone
    }

    /// How long after a request alone the next one goes.
    static let probeInterval = 5.0

    private(set) var level: AdaptiveConcurrency
    /// Requests in flight, the list of books included.
    private(set) var inFlight = 0
    private var listingInFlight = false
    private var probe = Probe.idle
    private var nextProbe: Double?

    init(level: AdaptiveConcurrency) {
        self.level = level
    }

    /// Requests in flight that count against the level.
    private var counted: Int { inFlight - (listingInFlight ? 1 : 0) }

    /// What may be sent at `now`, with `queued` requests waiting.
    mutating func release(queued: Int, now: Double) -> Release {
        if case .idle = probe, level.mode == .adaptive, level.limit > 1, let due = nextProbe, now >= due {
            probe = .draining
        }
        switch probe {
        case .draining where counted == 0 && queued > 0:
            probe = .alone
            return .alone
        case .idle:
            return .upTo(max(0, min(queued, level.limit - counted)))
        case .draining, .alone:
            return .upTo(0)
        }
    }

    mutating func sent(_ count: Int = 1) {
        inFlight += count
    }

    mutating func listingSent() {
        inFlight += 1
        listingInFlight = true
    }

    /// The list of books came back: the first request alone goes as soon as the others are in.
    mutating func listingAnswered(now: Double) {
        inFlight -= 1
        listingInFlight = false
        nextProbe = now
    }

    /// A request came back after `seconds`, having taken `requests` requests (a cover behind a
    /// redirect takes two; one kept from the last run, none).
    mutating func answered(_ kind: AdaptiveConcurrency.RequestKind, seconds: Double, requests: Int, alone: Bool, now: Double) {
        inFlight -= 1
        if alone {
            probe = .idle
            nextProbe = now + Self.probeInterval
            if requests > 0 { level.recordAlone(kind, seconds: seconds / Double(requests)) }
        }
        switch kind {
        case .shelf, .detail: level.record(kind, seconds: seconds, at: now)
        case .cover: if requests > 0 { level.record(.cover, seconds: seconds / Double(requests), at: now) }
        }
    }

    /// Nothing is in flight and nothing else is awaited: whether the crawl is over (a probe that
    /// was waiting for the others is called off, and what it held back may go).
    mutating func isOverWhenIdle(queued: Int) -> Bool {
        if case .idle = probe { return true }
        probe = .idle
        return queued == 0
    }
}
