import Foundation
import SampleServer
import Support
import TestSupport
import Testing

/// The packaged service hands the password over as a systemd credential. A newer systemd keeps
/// credentials on tmpfs as root's 0400 files read through an ACL, which shows as mode 0440: the
/// tool takes that mode inside $CREDENTIALS_DIRECTORY, and nowhere else.
@Suite(.serialized)
struct SystemdCredentialTests {
    @Test func aCredentialReadThroughSystemdsACLIsTakenAndTheSameModeElsewhereIsRefused() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let credentials = folder.path("credentials")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        let inside = credentials.appendingPathComponent("password")
        let outside = folder.path("password")
        for file in [inside, outside] {
            try Data("\(SampleLibrary.demoPassword)\n".utf8).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0o440], ofItemAtPath: file.path)
        }
        func export(_ file: URL, to name: String) async throws -> ToolRun {
            try await ToolRunner.run(["export", "--server", server.url, "--email", SampleLibrary.demoEmail, "--password-file", file.path,
                                      "--output", folder.path(name).path, "--connect-timeout", ToolRunner.connectTimeout, "--quiet"],
                                     environment: ["CREDENTIALS_DIRECTORY": credentials.path])
        }
        let credential = try await export(inside, to: "a")
        let plain = try await export(outside, to: "b")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: inside.path)
        let readable = try await export(inside, to: "c")
        await server.stop()
        #expect(credential.status == 2, "\(credential.output)")
        #expect(plain.status == 64 && plain.stderr.contains("can be read by others"), "\(plain.output)")
        #expect(readable.status == 64 && readable.stderr.contains("can be read by others"), "\(readable.output)")
        #expect(!(credential.output + plain.output + readable.output).contains(SampleLibrary.demoPassword))
    }
}

/// The summary counts in words a person would write: one book, one shelf.
@Suite(.serialized)
struct SummaryWordsTests {
    @Test func aLibraryOfOneBookOnOneShelfIsToldInTheSingular() async throws {
        var options = SampleServer.Options()
        options.loginDelay = .zero
        let server = try await SampleServer(library: try SampleLibrary.synthetic(books: 1, seed: 3, shelves: 1), options: options).start()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let first = try await EndToEndTests.export(server, to: folder.path("one"))
        let again = try await EndToEndTests.export(server, to: folder.path("one"))
        await server.stop()
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("Wrote 1 book on 1 shelf ("), "\(first.output)")
        #expect(again.output.contains("No changes: 1 book on 1 shelf in "), "\(again.output)")
    }
}
