import Hummingbird

/// What a test or a benchmark puts between a request and the library's answer: latency, what the
/// real server's answers cost, faults, a server that hangs or goes. `SampleServerDoubles` has them,
/// for the tests and the development tool (`reader-snapshot-dev sample-server`); the plain server,
/// the one the shipped tool's `demo` and `sample-server` run, has none and answers at once.
public protocol AnswerConditions: Sendable {
    /// The answer to `request`: `next` gives the library's. `apiRequest` is the request's number
    /// among the API's (as `ServerCounters.apiRequests` counts them), nil for a cover.
    func answer(_ request: Request, context: BasicRequestContext, apiRequest: Int?, server: SampleServer,
                next: (Request, BasicRequestContext) async throws -> Response) async throws -> Response
}

/// Counts every request, and hands the Reader server's to the conditions, when there are any.
struct RequestCounter: RouterMiddleware {
    typealias Context = BasicRequestContext
    let server: SampleServer

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        let api = path.hasPrefix("/api/")
        var number = 0
        server.state.count { counters in
            counters.requests += 1
            if api { counters.apiRequests += 1 }
            number = counters.apiRequests
        }
        let response: Response
        // The Open Library double stands for another service: none of the Reader server's conditions.
        if let conditions = server.conditions, !path.hasPrefix("/openlibrary/") {
            response = try await conditions.answer(request, context: context, apiRequest: api ? number : nil, server: server, next: next)
        } else {
            response = try await next(request, context)
        }
        if response.status == .notModified { server.state.count { $0.notModified += 1 } }
        return response
    }
}
