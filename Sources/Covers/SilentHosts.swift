import Foundation
import NIOConcurrencyHelpers

/// Cover hosts whose connections time out, counted in a row: a connect timeout may be a host that
/// is gone, or this machine too busy to finish a handshake in time (a nightly job shares it with
/// others). The first few are tried again; a host silent that many times with no answer between
/// is taken as gone, and its later covers are not retried: a real library had 52 covers on a host
/// that no longer answers.
final class SilentHosts: Sendable {
    /// Timeouts in a row that are tried again before a host counts as gone.
    static let retried = 3

    private let timeoutsInARow = NIOLockedValueBox<[String: Int]>([:])

    /// The host gave an answer (any HTTP status): it is there.
    func answered(_ host: String) {
        // Every answer comes here: with no host timed out (most nights), nothing else is done.
        timeoutsInARow.withLockedValue { timeouts in
            guard !timeouts.isEmpty else { return }
            timeouts[host.lowercased()] = nil
        }
    }

    /// Records a connect timeout; whether another try is worth making.
    func timedOut(_ host: String) -> Bool {
        let key = host.lowercased()
        return timeoutsInARow.withLockedValue { timeouts in
            let count = timeouts[key, default: 0] + 1
            timeouts[key] = count
            return count <= Self.retried
        }
    }
}
