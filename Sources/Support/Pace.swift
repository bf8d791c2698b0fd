/// At most one request an interval, whoever asks: Open Library asks for no more than one a second.
package actor Pace {
    private let interval: Duration
    private var next: ContinuousClock.Instant?

    package init(interval: Duration) {
        self.interval = interval
    }

    /// Returns when the next request may go; each caller takes the next free turn.
    package func wait() async {
        let now = ContinuousClock.now
        let turn = max(now, next ?? now)
        next = turn + interval
        // A cancelled wait ends early: the request that follows finds its task cancelled.
        if turn > now { try? await Task.sleep(until: turn, clock: .continuous) }
    }
}
