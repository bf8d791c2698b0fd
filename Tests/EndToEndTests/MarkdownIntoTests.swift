import Foundation
import SampleServer
import TestSupport
import Testing
import Vault

/// `--markdown-into` the whole way: the built tool keeps the vault, and says what it kept.
@Suite(.serialized)
struct MarkdownIntoTests {
    /// The whole way: an export keeps the vault, the run says what it kept, and `--quiet` still says
    /// the conflict.
    @Test func anExportKeepsTheVaultAndSaysTheConflict() async throws {
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("snapshot"), vault = folder.path("vault")
        let first = try await EndToEndTests.export(server, to: output, extra: ["--markdown-into", vault.path, "--format", "html"])
        #expect(first.status == 2, "\(first.output)")
        let note = vault.appendingPathComponent("Reader/markdown/books/101-pride-and-prejudice.md")
        let written = try String(contentsOf: note, encoding: .utf8)
        #expect(written.contains("id: 101"))
        try Data((written + "\nMy own line.\n").utf8).write(to: note)
        server.server.update { library in
            library.updateBook(id: 101) { $0.comments += "<div>A line from the server.</div>" }
        }
        // A note deleted in the vault: named once, as a warning that --quiet prints; counted after.
        let deleted = try #require(try FileManager.default.contentsOfDirectory(atPath: note.deletingLastPathComponent().path).first { $0.hasPrefix("102-") })
        try FileManager.default.removeItem(at: note.deletingLastPathComponent().appendingPathComponent(deleted))
        let second = try await EndToEndTests.export(server, to: output, extra: ["--markdown-into", vault.path, "--quiet"])
        #expect(second.status == 2, "\(second.output)")
        #expect(second.stderr.contains("warning: 1 note you edited in "), "\(second.output)")
        #expect(second.stderr.contains("warning: Not written again, as you deleted them (--restore writes them): markdown/books/\(deleted)"), "\(second.output)")
        // The server's next version: a conflict again, in the run's change report too.
        server.server.update { library in
            library.updateBook(id: 101) { $0.comments += "<div>Another line from the server.</div>" }
        }
        let third = try await EndToEndTests.export(server, to: output, extra: ["--markdown-into", vault.path])
        await server.stop()
        #expect(third.stderr.contains("1 edited; 1 file in conflict with your edits"), "\(third.output)")
        #expect(third.stderr.contains("1 left out, as you deleted it (--restore writes it)") && !third.stderr.contains("Not written again"), "\(third.output)")
        #expect(try String(contentsOf: note, encoding: .utf8).hasSuffix("My own line.\n"))
        let beside = vault.appendingPathComponent("Reader/markdown/books/101-pride-and-prejudice.reader.md")
        #expect(try String(contentsOf: beside, encoding: .utf8).contains("A line from the server."))
        let refused = try await EndToEndTests.export(server, to: output, extra: ["--markdown-into", output.appendingPathComponent("inside").path])
        #expect(refused.status == 64 && refused.stderr.contains("outside the output folder"), "\(refused.output)")
    }
}
