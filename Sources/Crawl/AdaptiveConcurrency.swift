import LibraryArchive
import Notes
import ReaderAPI
import SnapshotStore
import Support

/// How many requests the crawl keeps in flight.
///
/// A real Reader server is one Rails process: past a few requests in flight, more only wait in its
/// queue, and the crawl gets slower, not faster. So the level is found while crawling, the way TCP
/// Vegas finds a sending rate: every answer's time is compared with the fastest seen for that kind
/// of request; the ratio tells how many requests are waiting at the server rather than being
/// worked on. Few waiting: one more in flight. Many waiting: one fewer.
///
/// On a busy machine every answer waits, server or not, and fewer in flight only slows the crawl.
/// So when answers come with the time they arrived, what gets done decides ("back off when latency
/// grows without gain"): a step down is tried for a few rounds and taken back if less got done, and
/// now and then a step up is tried the same way, so that a level left by mistake is found again.
/// `--concurrency` is the ceiling; `--fixed-concurrency` keeps it there.
package struct AdaptiveConcurrency: Sendable {
    package enum Mode: Sendable { case adaptive, fixed }

    /// What a request was: answers of different kinds take different times even with no queue.
    package enum RequestKind: Int, Sendable, CaseIterable {
        case shelf, detail, cover
    }

    package let ceiling: Int
    package let mode: Mode
    /// Requests to keep in flight now.
    package private(set) var limit: Int
    /// The highest level used, and how often the level moved (for --verbose and the benchmark).
    package private(set) var highest: Int
    package private(set) var changes = 0

    /// The fastest answer seen per kind, in seconds: the time of a request that did not wait.
    private var fastest: [Double?] = Array(repeating: nil, count: RequestKind.allCases.count)
    /// The time ratios (now ÷ fastest) of the answers since the level was last judged.
    private var ratios: [Double] = []
    /// The ratio of the last round judged.
    private var lastRatio = 1.0
    /// Growing by one an answer until the first sign of a queue, as TCP's slow start: reaching a
    /// generous server's level a round at a time costs a noticeable part of a small crawl.
    private var slowStart = true
    /// Rounds in a row that saw a queue: one alone is as likely the client's own pause (two cores,
    /// notes being converted) as the server's.
    private var queuedRounds = 0

    /// Answers per second at the level in force, over the rounds since it was set, and when the
    /// last round ended (only when answers come with their time).
    private var rate: (answersPerSecond: Double, rounds: Int)?
    private var roundEnded: Double?
    /// A level on trial: the level it came from and what got done there.
    private var trial: (from: Int, answersPerSecond: Double)?
    /// Rounds before the next trial.
    private var holdRounds = 0
    /// Whether the next trial is a step up (they take turns).
    private var nextTrialUp = true
    /// Rounds a trial lasts before it is judged.
    static let trialRounds = 3
    /// How much more a step up must get done to be kept.
    static let gainForMore = 1.05

    package init(ceiling: Int, mode: Mode = .adaptive) {
        self.ceiling = max(1, ceiling)
        self.mode = mode
        // Start with one: the first answers then come from a server with no queue, which gives
        // the time of a request that did not wait. Slow start reaches a generous level quickly.
        limit = mode == .fixed ? self.ceiling : 1
        highest = limit
    }

    /// Records an answer to a request sent with nothing else in flight: the time of a request that
    /// did not wait, unless the server was busy with something else.
    package mutating func recordAlone(_ kind: RequestKind, seconds: Double) {
        guard mode == .adaptive, seconds > 0 else { return }
        fastest[kind.rawValue] = min(fastest[kind.rawValue] ?? seconds, seconds)
    }

    /// Records one answer and its time; may move the level. `time` is when it arrived, in seconds on
    /// any steady clock: with it, trials of the level next to this one decide by what gets done.
    package mutating func record(_ kind: RequestKind, seconds: Double, at time: Double? = nil) {
        guard mode == .adaptive, seconds > 0 else { return }
        // A kind seen for the first time may already be queued behind the others: its time
        // without a queue is guessed from how much the known kinds wait now.
        let best = min(fastest[kind.rawValue] ?? seconds / lastRatio, seconds)
        fastest[kind.rawValue] = best
        // Slow start: one more in flight for each answer that did not wait (so the level doubles
        // every round trip), until answers start to wait or the ceiling is reached. Shelves differ
        // in size: a slow one is no sign of a queue.
        if slowStart {
            if seconds / best < 1.5 {
                limit = min(ceiling, limit + 1)
                changes += 1
                highest = max(highest, limit)
                if limit == ceiling { slowStart = false }
            } else if kind != .shelf {
                slowStart = false
            }
            if !slowStart { roundEnded = time }
            return
        }
        // Shelves are few and differ in size: their times say little about a queue.
        guard kind != .shelf else { return }
        ratios.append(seconds / best)
        // Judge once per round trip's worth of answers, never on one answer alone, and by the
        // middle one: a single stalled answer says little about the queue.
        guard ratios.count >= max(4, limit) else { return }
        let answers = ratios.count
        ratios.sort()
        let ratio = ratios[ratios.count / 2]
        ratios.removeAll(keepingCapacity: true)
        lastRatio = max(1, ratio)
        if let time, let start = roundEnded, time > start {
            let now = Double(answers) / (time - start)
            rate = rate.map { ((Double($0.rounds) * $0.answersPerSecond + now) / Double($0.rounds + 1), $0.rounds + 1) } ?? (now, 1)
        }
        roundEnded = time
        if holdRounds > 0 { holdRounds -= 1 }
        if let trial {
            guard let rate, rate.rounds >= Self.trialRounds else { return }
            self.trial = nil
            // A step down is kept if as much got done (a full server does as much with fewer in
            // flight, a busy machine less); a step up only if more got done.
            let needed = trial.answersPerSecond * (limit > trial.from ? Self.gainForMore : 1)
            if rate.answersPerSecond < needed {
                setLimit(trial.from)
                holdRounds = 32
            } else {
                holdRounds = 8
            }
            queuedRounds = 0
            return
        }
        // Vegas: in flight × (1 − fastest / now) of them were waiting.
        let waiting = Double(limit) * (1 - 1 / ratio)
        let few = max(1, 0.25 * Double(limit))
        // A small server is best kept with one waiting (it works while the next answer travels);
        // a bigger one with up to half as many waiting as in flight.
        let many = max(1.5, 0.5 * Double(limit))
        let timed = (rate?.rounds ?? 0) >= 2
        if waiting < few, limit < ceiling {
            setLimit(limit + 1)
        } else if timed, holdRounds == 0, nextTrialUp, limit < ceiling {
            nextTrialUp = false
            startTrial(at: limit + 1)
        } else if waiting > many, limit > 1, !timed || holdRounds == 0 {
            queuedRounds += 1
            if queuedRounds >= 2 {
                queuedRounds = 0
                nextTrialUp = true
                if timed { startTrial(at: limit - 1) } else { setLimit(limit - 1) }
            }
            return
        }
        queuedRounds = 0
        highest = max(highest, limit)
    }

    private mutating func startTrial(at level: Int) {
        if let rate { trial = (limit, rate.answersPerSecond) }
        setLimit(level)
    }

    private mutating func setLimit(_ level: Int) {
        limit = level
        changes += 1
        highest = max(highest, limit)
        rate = nil
    }
}
