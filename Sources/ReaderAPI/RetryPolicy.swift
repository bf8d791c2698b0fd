import Foundation
import Support

/// How transient failures are retried: exponential backoff with jitter, a bounded number of times.
package struct RetryPolicy: Sendable {
    /// Retries after the first attempt.
    package var retries: Int
    package var baseDelay: Duration
    package var maximumDelay: Duration
    /// The longest Retry-After that is honoured; a longer one is cut to this.
    package var maximumRetryAfter: Duration

    package init(retries: Int = 4, baseDelay: Duration = .milliseconds(250), maximumDelay: Duration = .seconds(8),
                maximumRetryAfter: Duration = .seconds(60)) {
        self.retries = retries
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.maximumRetryAfter = maximumRetryAfter
    }

    package static let none = RetryPolicy(retries: 0)

    /// The wait before retry number `attempt` (1-based): base × 2^(attempt-1), at most the maximum,
    /// then a random 50–100% of it, so that clients that failed together do not retry together.
    package func delay(beforeRetry attempt: Int, retryAfter: Duration? = nil) -> Duration {
        if let retryAfter { return min(retryAfter, maximumRetryAfter) }
        let exponent = min(max(attempt - 1, 0), 20)
        let full = min(baseDelay * (1 << exponent), maximumDelay)
        return full * Double.random(in: 0.5...1.0)
    }

    /// Retry-After in seconds (an HTTP date is rare from Rails; it is treated as absent).
    package static func parseRetryAfter(_ value: String?) -> Duration? {
        // Double() also reads "inf" and "1e300": only a finite, sane number of seconds counts.
        guard let value, let seconds = Double(value.trimmingCharacters(in: .whitespaces)), seconds.isFinite, seconds >= 0 else { return nil }
        return .milliseconds(Int64(min(seconds, 86_400) * 1000))
    }
}
