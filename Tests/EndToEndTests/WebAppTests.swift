import Foundation
import SampleServer
import TestSupport
import Testing

/// The catalog as a web app, over HTTP on loopback in headless Chromium (Tests/browser/check_offline.py):
/// installable, kept whole by its service worker and opened with the host gone, then brought up to
/// the next night's snapshot by fetching only what changed.
@Suite struct WebAppTests {
    @Test func theCatalogIsInstallableWorksOfflineAndFetchesOnlyWhatChanged() async throws {
        guard BrowserCheck.isAvailable() else { return }
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        let first = try await EndToEndTests.export(server, to: output, environment: ChangesPageTests.night(0))
        #expect(first.status == 2, "\(first.output)")
        let before = folder.path("before")
        try FileManager.default.copyItem(at: output, to: before)
        let book = try #require(try ChangesPageTests.books(output).first { !$0.title.isEmpty })
        server.server.update { $0.updateBook(id: book.id) { $0.comments += "<div>Edited for the offline copy.</div>" } }
        let second = try await EndToEndTests.export(server, to: output, environment: ChangesPageTests.night(1))
        #expect(second.status == 2, "\(second.output)")
        await server.stop()

        let (status, checked) = try await BrowserCheck.run("check_offline.py", [before.path, output.path])
        #expect(status == 0 && checked.contains("offline check: 1 passed, 0 failed"), "\(checked)")
    }

    /// `--offline-books 0`: a visitor's browser keeps the pages opened, not every book, until asked.
    @Test func belowTheBooksKeptForOfflineTheBrowserKeepsWhatIsOpenedUntilAsked() async throws {
        guard BrowserCheck.isAvailable() else { return }
        let server = try await EndToEndTests.startServer()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("library")
        let run = try await EndToEndTests.export(server, to: output, extra: ["--offline-books", "0"])
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        let (status, checked) = try await BrowserCheck.run("check_kept_as_opened.py", [output.path])
        #expect(status == 0 && checked.contains("kept-as-opened check: 1 passed, 0 failed"), "\(checked)")
    }
}

