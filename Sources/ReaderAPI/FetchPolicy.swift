import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import Support

/// The one set of rules for every request this tool makes, the API's JSON and covers alike: what
/// an HTTP status means, which failures may pass on another try, and the retries themselves.
package enum FetchPolicy {
    /// What an HTTP status says about the request.
    package enum Status: Equatable, Sendable {
        /// 2xx: the answer.
        case answer
        /// 304: what was kept still stands.
        case notModified
        /// 301, 302, 303, 307, 308.
        case redirect
        /// 429 (wait as Retry-After says) and 502–504: the server is busy or restarting.
        case busy(retryAfter: Duration?)
        /// 500 and the other 5xx: a crash page, retried only where a crash is not the expected
        /// answer (Rails' detail page of a book on a deleted shelf always crashes).
        case crash
        /// Any other: another try gives the same.
        case final
    }

    package static func status(_ code: Int, retryAfter: String?) -> Status {
        switch code {
        case 200..<300: return .answer
        case 304: return .notModified
        case 301, 302, 303, 307, 308: return .redirect
        case 429: return .busy(retryAfter: RetryPolicy.parseRetryAfter(retryAfter))
        case 502, 503, 504: return .busy(retryAfter: nil)
        case 500...: return .crash
        default: return .final
        }
    }

    /// How one try ended.
    package enum Try<Value, Failure: Error> {
        case done(Result<Value, Failure>)
        /// Failed in a way another try may mend, after `retryAfter` if the server said.
        case again(Failure, retryAfter: Duration? = nil)
    }

    /// A failure below HTTP, in words fit for a log.
    package struct Transport: Sendable, Equatable {
        /// No connection was made: refused, no answer within the connect timeout, or a name that
        /// does not resolve. For a cover host, a sign it is gone rather than busy (but see
        /// `connectTimedOut`).
        package var couldNotConnect: Bool
        package var description: String
        /// No connection within the connect timeout: the host may be gone, or this machine was too
        /// busy to finish the handshake in time. Unlike a refusal, another try may mend it.
        package var connectTimedOut = false
        /// Whether another try may mend it: a TLS handshake that failed fails the same again.
        package var mayPass = true
    }

    /// What went wrong below HTTP, told by the error's type (never by its text).
    package static func transport(_ error: Error, redactor: Redactor) -> Transport {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return Transport(couldNotConnect: true, description: "timed out", connectTimedOut: true)
            case .deadlineExceeded, .readTimeout: return Transport(couldNotConnect: false, description: "timed out")
            case .remoteConnectionClosed: return Transport(couldNotConnect: false, description: "the server closed the connection")
            default: break
            }
        }
        if let error = error as? NIOConnectionError {
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return Transport(couldNotConnect: true, description: "the host name does not resolve")
            }
            let refused = error.connectionErrors.contains { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }
            return Transport(couldNotConnect: true, description: refused ? "connection refused" : "could not connect")
        }
        if let error = error as? IOError, error.errnoCode == ECONNREFUSED {
            return Transport(couldNotConnect: true, description: "connection refused")
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return Transport(couldNotConnect: true, description: "timed out", connectTimedOut: true)
        }
        if let failure = TLSFailure(error) {
            // A handshake that failed fails again on the next try: nothing to retry.
            return Transport(couldNotConnect: true, description: failure.description, mayPass: false)
        }
        return Transport(couldNotConnect: false, description: UntrustedText.displayable(redactor.redact(String(describing: error))))
    }
}

extension ReaderClient {
    /// Tries `attempt` again, with growing waits, while it fails in a way that may pass and the
    /// retries last; the last failure is given when they run out.
    package func retrying<Value, Failure: Error & CustomStringConvertible>(
        _ attempt: () async throws -> FetchPolicy.Try<Value, Failure>
    ) async rethrows -> Result<Value, Failure> {
        var tries = 0
        while true {
            switch try await attempt() {
            case .done(let result):
                return result
            case .again(let failure, let retryAfter):
                guard tries < retry.retries, !Task.isCancelled else { return .failure(failure) }
                tries += 1
                metrics.record { $0.retries += 1 }
                let wait = retry.delay(beforeRetry: tries, retryAfter: retryAfter)
                logger?.debug("Retry \(tries) of \(retry.retries) in \(wait.formatted(.units(allowed: [.seconds, .milliseconds]))): \(failure)")
                // A cancelled wait ends early: the next attempt finds its task cancelled.
                try? await Task.sleep(for: wait)
            }
        }
    }
}
