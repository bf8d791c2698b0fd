import ArgumentParser
import Foundation
import Logging
import PrivateCatalog
import SampleServer
import TestSupport
import Testing
@testable import Export
@testable import reader_snapshot
import ShareCards
import Support
@testable import Site
@testable import SnapshotStore
@testable import Support

/// The export's command line, resolved once into the values its steps take: the environment is
/// read from the dictionary given, the place, the site's identity and the date come out as values.
@Suite struct ExportArgumentsTests {
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    static func resolve(_ arguments: [String], environment: [String: String] = [:]) async throws -> ExportSettings {
        try await ExportArguments.parse(arguments).resolve(environment: environment, logger: quiet)
    }

    @Test func settingsComeFromTheLineAndTheEnvironmentGiven() async throws {
        let settings = try await Self.resolve(
            ["--output", "/tmp/books", "--email", "me@example.org", "--keep", "3", "--no-notes", "--max-note-kb", "8",
             "--language", "de", "--site-url", "https://books.example.org/mine/", "--timeout", "2.5", "--full"],
            environment: ["READER_SERVER": "https://reader.example.com", "READER_PASSWORD": "secret", "SOURCE_DATE_EPOCH": "1700000000"])
        #expect(settings.server.description == "https://reader.example.com")
        guard case .password(let email, let password) = settings.credentials else { Issue.record("not a password"); return }
        #expect(email == "me@example.org" && password == "secret")
        #expect(settings.date == SnapshotDate(seconds: 1_700_000_000))
        #expect(settings.place.folder(for: settings.date).path == "/tmp/books/snapshots/2023-11-14")
        #expect(settings.place.gitDirectory.path == "/tmp/.books.history.git")
        #expect(settings.place.stateFolder.path == "/tmp/.books.reader-snapshot")
        #expect(settings.place.shown.path == "/tmp/books/latest")
        #expect(!settings.content.privacy.notes && settings.content.privacy.isActive)
        #expect(settings.content.noteLimit == 8 << 10 && !settings.content.reuseUnchanged)
        #expect(settings.network.timeout == .milliseconds(2500))
        #expect(settings.site.siteURL?.absoluteString == "https://books.example.org/mine/")
        // No --title: the pages' and the cards' name is the language's word for a library.
        #expect(settings.site.givenTitle == nil && settings.site.title == "Bibliothek")
        #expect(settings.site.drawsShareCards)
    }

    @Test func aPlainSnapshotKeepsItsHistoryAndStateWhereTheyWere() async throws {
        let settings = try await Self.resolve(["--output", "/srv/library", "--server", "http://127.0.0.1:9", "--email", "a@b.c",
                                               "--cache-dir", "/var/cache/rs", "--format", "markdown"],
                                              environment: ["READER_PASSWORD": "x"])
        #expect(settings.place.dated == nil && !settings.place.stateBesideRoot)
        #expect(settings.place.folder(for: settings.date).path == "/srv/library")
        #expect(settings.place.gitDirectory.path == "/srv/.library.history.git")
        #expect(settings.place.stateFolder.path == "/var/cache/rs")
        #expect(settings.site.formats == [.markdown] && !settings.site.drawsShareCards)
        #expect(settings.site.title == "Library")
    }

    /// Only the environment handed to `resolve` counts: the process's own is not read again.
    @Test(arguments: [
        ([String](), [String: String](), "Missing expected argument '--output <dir>'"),
        (["--output", "/tmp/x"], [:], "Give the Reader server"),
        (["--output", "/tmp/x", "--server", "https://r.example"], [:], "Give --email"),
        (["--output", "/tmp/x", "--server", "https://r.example", "--email", "a@b.c"], [:], "No password"),
        (["--output", "/tmp/x", "--email", "a@b.c"], ["READER_SERVER": "https://r.example", "READER_API_KEY": "k"], "An api key needs --user-id"),
        (["--output", "/tmp/x", "--server", "http://r.example", "--require-https", "--email", "a@b.c"], ["READER_PASSWORD": "p"], "--require-https"),
        (["--output", "/tmp/x", "--server", "https://r.example", "--email", "a@b.c", "--language", "../x"], ["READER_PASSWORD": "p"], "--language must be"),
        (["--output", "/tmp/x", "--server", "https://r.example", "--email", "a@b.c", "--format", "pdf"], ["READER_PASSWORD": "p"], "Unknown format 'pdf'"),
        (["--output", "/tmp/x", "--server", "https://r.example", "--email", "a@b.c", "--restore"], ["READER_PASSWORD": "p"], "--restore goes with --markdown-into"),
        (["--output", "/tmp/x", "--server", "https://r.example", "--email", "a@b.c", "--offline-books", "-1"], ["READER_PASSWORD": "p"], "--offline-books must be"),
        (["--output", "/tmp/x", "--server", "https://r.example", "--email", "a@b.c", "--lookup-online", "openlibrary.org"], ["READER_PASSWORD": "p"], "--lookup-online must be"),
        (["--output", "/tmp/x", "--server", "https://r.example", "--email", "a@b.c", "--lookup-online", "https://ol.example/?q=1"], ["READER_PASSWORD": "p"], "--lookup-online must be"),
    ])
    func aMistakeIsToldAsAUsageError(_ arguments: [String], _ environment: [String: String], _ message: String) async throws {
        do {
            _ = try await Self.resolve(arguments, environment: environment)
            Issue.record("resolved: \(arguments)")
        } catch let error as ValidationError {
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    /// `--offline-books` reaches the render in the site's identity, and pages rendered with another
    /// count are not taken for the last run's (the render digest says so); the default changes no
    /// digest.
    @Test func theBooksKeptForOfflineAreTheSitesAndChangeItsDigest() async throws {
        let line = ["--output", "/tmp/books", "--server", "https://r.example", "--email", "a@b.c"]
        let given = try await Self.resolve(line + ["--offline-books", "0"], environment: ["READER_PASSWORD": "p"])
        let plain = try await Self.resolve(line, environment: ["READER_PASSWORD": "p"])
        #expect(given.site.offlineBooks == 0 && plain.site.offlineBooks == 5_000)
        #expect(SiteRenderer(site: given.site).site.offlineBooks == 0)
        #expect(RenderDigest.digest(given.site) != RenderDigest.digest(plain.site))
        #expect(String(decoding: plain.site.renderedWith, as: UTF8.self)
                == #"{"formats":[\#(OutputFormat.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ","))],"offlineBooks":5000,"shareCards":true} en"#)
        let online = try await Self.resolve(line + ["--lookup-online", "https://openlibrary.org"], environment: ["READER_PASSWORD": "p"])
        #expect(online.site.lookupOnline?.absoluteString == "https://openlibrary.org/")
        #expect(RenderDigest.digest(online.site) != RenderDigest.digest(plain.site))
    }

    /// The render digest is made from the site's values as they are encoded: every stored value of
    /// `SiteIdentity.Rendering` is in its encoding (a value added later is too, with no line in
    /// the digest's code), and changing any one changes the digest.
    @Test func everyValueThatMakesThePagesIsInTheirDigest() async throws {
        var site = SiteIdentity(templates: try await TemplateSet.bundled(), siteURL: URL(string: "https://example.org/books/"),
                                givenTitle: "Our books")
        site.privateCatalog = try CatalogKey(password: try SharePassword("correct horse battery"), salt: Data(0..<16), iterations: 1_000)
        site.lookupOnline = URL(string: "https://openlibrary.org/")
        let stored = Mirror(reflecting: site.rendering).children.compactMap(\.label).map { $0.hasPrefix("_") ? String($0.dropFirst()) : $0 }
        let encoded = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(site.rendering)) as? [String: Any])
        #expect(Set(stored) == Set(encoded.keys), "a value of the pages' not in the digest")
        #expect(stored.count == 7)
        // The key is in it as its check alone.
        #expect(encoded["privateCatalog"] as? String == site.privateCatalog?.check)

        let before = RenderDigest.digest(site)
        let changes: [(String, (inout SiteIdentity) -> Void)] = [
            ("formats", { $0.formats.remove(.bibtex) }), ("siteURL", { $0.siteURL = nil }), ("shareCards", { $0.shareCards = false }),
            ("givenTitle", { $0.givenTitle = "Books" }), ("privateCatalog", { $0.privateCatalog = nil }),
            ("offlineBooks", { $0.offlineBooks = 10 }), ("lookupOnline", { $0.lookupOnline = nil }),
        ]
        #expect(Set(changes.map(\.0)) == Set(stored))
        for (name, change) in changes {
            var other = site
            change(&other)
            #expect(RenderDigest.digest(other) != before, "\(name) changes no digest")
        }
    }

    /// The catalog's name takes one route to the pages and to the cards the crawl draws.
    @Test func theTitleIsResolvedInThePagesLanguage() async throws {
        let german = try await TemplateSet.bundled(language: "de")
        #expect(SiteIdentity(templates: german).title == "Bibliothek")
        #expect(SiteIdentity(templates: german, givenTitle: "").title == "Bibliothek")
        #expect(SiteIdentity(templates: german, givenTitle: "Meine Bücher").title == "Meine Bücher")
        #expect(SiteIdentity(templates: try await TemplateSet.bundled()).title == "Library")
    }

    /// A password file saved on Windows ends its line with "\r\n": the password is what comes before.
    @Test(arguments: ["secret\n", "secret\r\n", "secret\r\nsecond line", "secret", "secret\nsecond line"])
    func aPasswordIsThePasswordFilesFirstLine(_ text: String) {
        #expect(SecretFile.firstLine(text) == "secret")
    }
}
