import Support

/// What went wrong talking to the Reader server. The request is named by method and path only: the
/// api key rides in the query and must never reach a message.
package struct ReaderAPIError: Error, Sendable, CustomStringConvertible {
    package enum Reason: Sendable, Equatable {
        /// 401: the e-mail and password, or the api key, were rejected.
        case unauthorized(message: String)
        /// 404 with the server's JSON error.
        case notFound(message: String)
        /// A 5xx answer, or a crash page.
        case serverError(status: Int)
        /// Any other status the API does not promise.
        case unexpectedStatus(status: Int, message: String)
        /// A 2xx answer whose body is not JSON.
        case notJSON(status: Int, contentType: String)
        /// JSON that does not have the shape of the contract; `path` names the field.
        case undecodable(path: String, detail: String)
        /// The body was larger than the limit.
        case tooLarge(limit: Int)
        /// Could not connect, timed out, connection reset.
        case transport(detail: String)
        /// The server URL or a URL it gave is not usable.
        case invalidURL(detail: String)
        /// Not asked for this run: it failed in the last ones, and waits its turn (`RetrySchedule`).
        case notAskedAgain(detail: String)
        /// The server stopped answering during the run (`ServerWatch`): nothing more is asked of it.
        case stoppedAnswering(ServerWatch.Stopped)
    }

    package var reason: Reason
    /// "GET /api/v1/books/7"
    package var request: String

    package init(_ reason: Reason, request: String) {
        self.reason = reason
        self.request = request
    }

    package var isUnauthorized: Bool {
        if case .unauthorized = reason { return true }
        return false
    }

    /// Whether the answer says the address is likely not a Reader server at all: the login (or,
    /// with an api key, the list of shelves, the first request then) answered with a status a
    /// Reader server never gives there (404, 405, 501), or with a page that is not JSON. A web
    /// server's default page, another application, or a path prefix left out all answer so.
    package var mayNotBeReader: Bool {
        guard request.hasSuffix("/api/v1/sessions") || request.hasSuffix(ReaderClient.shelvesPath) else { return false }
        switch reason {
        case .notFound, .notJSON: return true
        case .unexpectedStatus(let status, _), .serverError(let status): return [404, 405, 501].contains(status)
        default: return false
        }
    }

    /// The reason alone, without the request.
    package var reasonText: String {
        if case .invalidURL(let detail) = reason { return detail }
        return description
    }

    /// What went wrong, without the request: "the server failed (HTTP 500)".
    package var what: String {
        let text = description
        return text.hasPrefix(request + ": ") ? String(text.dropFirst(request.count + 2)) : text
    }

    package var description: String {
        switch reason {
        case .unauthorized(let message):
            return "\(request): the server rejected the credentials (401: \(message))"
        case .notFound(let message):
            return "\(request): not found (404: \(message))"
        case .serverError(let status):
            return "\(request): the server failed (HTTP \(status))"
        case .unexpectedStatus(let status, let message):
            return "\(request): unexpected HTTP \(status)\(message.isEmpty ? "" : ": \(message)")"
        case .notJSON(let status, let contentType):
            return "\(request): the answer is not JSON (HTTP \(status), \(contentType.isEmpty ? "no content type" : contentType))"
        case .undecodable(let path, let detail):
            return "\(request): unexpected JSON at \(path.isEmpty ? "the top level" : path): \(detail)"
        case .tooLarge(let limit):
            return "\(request): the answer is larger than \(limit) bytes"
        case .transport(let detail):
            return "\(request): \(detail)"
        case .invalidURL(let detail), .notAskedAgain(let detail):
            return "\(request): \(detail)"
        case .stoppedAnswering(let stopped):
            return "\(request): the server stopped answering (\(stopped.description))"
        }
    }
}
