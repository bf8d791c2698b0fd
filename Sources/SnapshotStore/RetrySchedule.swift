import Foundation

/// What failed in earlier runs, and when each is to be asked for again: the next run, then a day
/// later, then every week. A real library has books on deleted shelves whose details crash every
/// time and covers on hosts that are gone; asking for them every night costs the server and the
/// run for nothing. Kept in the state folder; `--full` asks for everything.
package struct RetrySchedule: Codable, Sendable, Equatable {
    package struct Failure: Codable, Sendable, Equatable {
        /// When it was last asked for, and failed (seconds since 1970, the run's date).
        package var lastTried: Int
        /// How many runs in a row it failed in.
        package var tries: Int
        /// What the last failure said.
        package var message: String
        /// A book's `updated_at` when its details failed: a book changed since is asked for at once.
        package var updatedAt: String?
        /// When it first failed, in this run of failures (seconds since 1970): what the snapshot
        /// says of it ("since 2026-11-25") stays the same while the schedule moves.
        package var since: Int?

        package init(lastTried: Int, tries: Int, message: String, updatedAt: String? = nil, since: Int? = nil) {
            self.lastTried = lastTried
            self.tries = tries
            self.message = message
            self.updatedAt = updatedAt
            self.since = since
        }

        enum CodingKeys: String, CodingKey { case lastTried = "last_tried", tries, message, updatedAt = "updated_at", since }

        /// When it first failed (a schedule written before `since` was kept: when it last did).
        package var firstFailed: Int { since ?? lastTried }

        /// When it is due again: after one failure, at once; after two, a day later; then a week.
        /// An hour's grace, so that a nightly run a few seconds early is not put off a day.
        package var due: Int {
            let wait = switch tries {
            case ...1: 0
            case 2: 86_400
            default: 7 * 86_400
            }
            return lastTried + max(0, wait - 3_600)
        }
    }

    /// Books' details, by id (as text: JSON keys are strings).
    package var details: [String: Failure] = [:]
    /// Covers, by the address a book gave.
    package var covers: [String: Failure] = [:]

    package init() {}

    package var isEmpty: Bool { details.isEmpty && covers.isEmpty }

    /// When the first failure is due again; nil when nothing failed.
    package var nextDue: Int? { (details.values.map(\.due) + covers.values.map(\.due)).min() }

    /// The failure that keeps a book's details from being asked for at `now`, if any.
    package func waitingDetails(of id: Int, updatedAt: String?, now: Int) -> Failure? {
        guard let failure = details[String(id)], failure.updatedAt == updatedAt, now < failure.due else { return nil }
        return failure
    }

    /// The failure that keeps a cover from being asked for at `now`, if any.
    package func waitingCover(_ url: String, now: Int) -> Failure? {
        guard let failure = covers[url], now < failure.due else { return nil }
        return failure
    }

    /// A failure of this run, counted on from `earlier` (the last run's schedule).
    package mutating func detailsFailed(_ id: Int, message: String, updatedAt: String?, now: Int, earlier: RetrySchedule) {
        let before = earlier.details[String(id)].flatMap { $0.updatedAt == updatedAt ? $0 : nil }
        // The book failed the night before too (even if it changed since): the gap is the same one.
        let since = earlier.details[String(id)]?.firstFailed ?? now
        details[String(id)] = Failure(lastTried: now, tries: (before?.tries ?? 0) + 1, message: message, updatedAt: updatedAt, since: since)
    }

    package mutating func coverFailed(_ url: String, message: String, now: Int, earlier: RetrySchedule) {
        let before = earlier.covers[url]
        covers[url] = Failure(lastTried: now, tries: (before?.tries ?? 0) + 1, message: message, since: before?.firstFailed ?? now)
    }

    /// "2026-11-23", in UTC.
    package static func day(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var fields = tm()
        guard gmtime_r(&time, &fields) != nil else { return String(seconds) }
        return String(format: "%04d-%02d-%02d", Int(fields.tm_year) + 1900, Int(fields.tm_mon) + 1, Int(fields.tm_mday))
    }

    /// What the run says of something not asked for this time (the run's output, never the snapshot).
    package static func notFetched(_ failure: Failure) -> String {
        "not fetched since \(day(failure.firstFailed)) (\(failure.message)); asked again from \(day(failure.due)), or with --full"
    }
}
