import Crawl
import Enrich
import Foundation
import History
import Publish
import ReaderAPI
import Site
import SnapshotStore
import Support
import Vault

/// Everything one export needs, resolved once from the command line (`ExportArguments.resolve`)
/// and handed down as values: each step reads the part it needs and nothing copies it field by field.
package struct ExportSettings: Sendable {
    package var server: ServerAddress
    package var credentials: ReaderCredentials
    /// Where the snapshot goes, and its private state.
    package var place: SnapshotPlace
    /// What the pages are and what they are called.
    package var site: SiteIdentity
    /// What the snapshot holds of the library.
    package var content: ContentPolicy
    package var network: NetworkSettings
    /// The snapshot's date: now, or SOURCE_DATE_EPOCH.
    package var date: SnapshotDate
    /// `--history`: after each run that changed the snapshot, its text is committed, by this author.
    package var historyAuthor: HistoryRepository.Author?
    /// `--markdown-into`: the Markdown tree kept in a folder of the user's.
    package var vault: Vault?
    /// `--enrich openlibrary`: what Open Library knows, for books with an ISBN.
    package var openLibrary: OpenLibraryOptions?
    /// `--publish`: the snapshot uploaded, the night's last step, when it published something new
    /// or the last publish there did not finish.
    package var publish: Publishing.Options?

    package init(server: ServerAddress, credentials: ReaderCredentials, place: SnapshotPlace, site: SiteIdentity,
                 content: ContentPolicy = ContentPolicy(), network: NetworkSettings = NetworkSettings(),
                 date: SnapshotDate = .now()) {
        self.server = server
        self.credentials = credentials
        self.place = place
        self.site = site
        self.content = content
        self.network = network
        self.date = date
    }

    /// An export of the bundled sample server at `address` (`demo`): its Open Library double too, so
    /// that the demo shows enrichment and asks nothing of the network.
    package static func sample(at address: String, email: String, password: String, output: URL, site: SiteIdentity,
                               content: ContentPolicy) throws -> ExportSettings {
        var settings = ExportSettings(server: try ServerAddress(address), credentials: .password(email: email, password: password),
                                      place: SnapshotPlace(root: output, keep: nil), site: site, content: content)
        var openLibrary = OpenLibraryOptions()
        openLibrary.api = URL(string: address + "/openlibrary")!
        openLibrary.covers = openLibrary.api.appendingPathComponent("covers")
        openLibrary.interval = .milliseconds(50)
        settings.openLibrary = openLibrary
        return settings
    }

}

/// How the export talks to the Reader server.
package struct NetworkSettings: Sendable {
    /// The most requests in flight at once.
    package var concurrency = Crawler.defaultConcurrency
    /// Find the level in flight up to `concurrency` (the default), or keep it there.
    package var concurrencyMode: AdaptiveConcurrency.Mode = .adaptive
    /// How long one request may take before it is tried again.
    package var timeout: Duration = .seconds(30)
    package var connectTimeout: Duration = .seconds(5)
    package var retry = RetryPolicy()
    package var limits = ResponseLimits()

    package init() {}
}
