import Foundation
import TestSupport
import Testing

/// `--server` pointing at the wrong thing: an https:// address for a server that speaks plain
/// http on that port, and a web server that is not Reader. Each is told in a sentence a user
/// can act on, with no name of the libraries underneath.
@Suite(.serialized)
struct WrongServerTests {
    static let login = "/api/v1/sessions"

    static func export(_ server: String, in folder: TemporaryFolder, _ more: [String] = ["--retries", "0"]) async throws -> ToolRun {
        try await ToolRunner.run(["export", "--server", server, "--email", "a@b", "--output", folder.path("out").path] + more,
                                 environment: ["READER_PASSWORD": "secret-pass"])
    }

    @Test func httpsToAPlainHTTPPortSaysSoInWords() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let run = try await CannedServer.with([Self.login: CannedAnswer(body: "{}")]) { url in
            // With the retries a login has by default: a handshake that fails is not tried again.
            // The handshake is bounded by the connect timeout, and this server answers from inside
            // the test process: under CI's load it once took over 5 s, four times in a row.
            try await Self.export(url.replacingOccurrences(of: "http://", with: "https://"), in: folder, ["--connect-timeout", "60"])
        }
        #expect(run.status == 69, "\(run.output)")
        #expect(run.stderr.contains("error: POST /api/v1/sessions: the server did not answer in TLS, as https:// asks: it may speak plain http on that port (then give its http:// address)"),
                "\(run.output)")
        for libraryWord in ["NIOSSL", "BoringSSL", "handshakeFailed", "WRONG_VERSION_NUMBER", ".build"] {
            #expect(!run.output.contains(libraryWord), "\(run.output)")
        }
        // A handshake that fails fails again: it is not tried five times.
        #expect(!run.output.contains("tries in"), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("out").path))
    }

    /// A web server's answers to the login that a Reader server never gives: the run says the
    /// address may not be a Reader server.
    @Test func aServerThatIsNotReaderIsNamedAsPerhapsNotReader() async throws {
        let page = "<html><body>Welcome to nginx!</body></html>"
        let answers: [(String, CannedAnswer?)] = [
            ("HTTP 501", CannedAnswer(status: .notImplemented, contentType: "text/html", body: page)),
            ("HTTP 405", CannedAnswer(status: .methodNotAllowed, contentType: "text/html", body: page)),
            ("the answer is not JSON (HTTP 200, text/html)", CannedAnswer(contentType: "text/html", body: page)),
            // No route for the login at all: the server's own 404.
            ("HTTP 404", nil),
        ]
        for (said, answer) in answers {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let run = try await CannedServer.with(answer.map { [Self.login: $0] } ?? [:]) { url in try await Self.export(url, in: folder) }
            #expect(run.status == 69, "\(said): \(run.output)")
            #expect(run.stderr.contains("error: POST /api/v1/sessions: ") && run.stderr.contains(said), "\(said): \(run.output)")
            #expect(run.stderr.contains("error: The --server address may not be a Reader server: check it, and the path Reader is served under if it has one (https://host/reader)."),
                    "\(said): \(run.output)")
        }
        // A Reader server that refuses the password is a Reader server: no such hint.
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let refused = try await CannedServer.with([Self.login: CannedAnswer(status: .unauthorized, body: #"{"error":"Invalid email or password"}"#)]) { url in
            try await Self.export(url, in: folder)
        }
        #expect(refused.status == 77, "\(refused.output)")
        #expect(!refused.stderr.contains("may not be a Reader server"), "\(refused.output)")
    }
}
