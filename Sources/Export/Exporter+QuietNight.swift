import Crawl
import Crypto
import Foundation
import Logging
import ReaderAPI
import Site
import SnapshotStore
import Support

/// A quiet night known from its two answers (`QuietNight`): when it may be one, and keeping it.
extension Exporter {
    /// The quiet night, a step the night takes or not: planned once the last snapshot is read,
    /// when tonight may be a quiet one. It watches the crawl (its words, how many requests went out
    /// before it) and carries the last quiet night's record when it stands for tonight.
    struct QuietNightStep: Sendable {
        let recorder = LineRecorder()
        let requestsBefore: Int
        /// The last quiet night's record, when it stands for tonight: given the same two answers,
        /// the night is that one again.
        let standing: QuietNight?
    }

    /// The quiet night's step, when tonight may be a quiet one.
    func quietNightStep(_ loggedIn: borrowing LoggedIn) -> QuietNightStep? {
        let client = loggedIn.connections.client, last = loggedIn.last
        guard mayBeQuiet(loggedIn.output, last: last, renderedWith: RenderDigest.digest(settings.site)) else { return nil }
        let origin = SnapshotOrigin(server: client.server.description, userID: client.session?.userID)
        let standing = last.state.quietNight.flatMap { $0.stands(options: quietOptions(origin: origin), now: settings.date.seconds) ? $0 : nil }
        return QuietNightStep(requestsBefore: client.metrics.reading.requests, standing: standing)
    }

    /// What decides a night's crawl besides the server's two answers and the state: this build, the
    /// server and account, what the snapshot keeps (`ContentPolicy`, every value of it) and how its
    /// pages are made (the site's `rendering` and language). A quiet night's record stands for
    /// another night only under the same. The values are encoded as they are, so that an option
    /// added to either is in here without a line of its own.
    func quietOptions(origin: SnapshotOrigin) -> String {
        struct Options: Encodable {
            let build: String, server: String, userID: Int?, language: String
            let content: ContentPolicy
            let site: SiteIdentity.Rendering
        }
        let options = Options(build: RenderDigest.thisBuild, server: origin.server, userID: origin.userID,
                              language: settings.site.templates.language.tag, content: settings.content, site: settings.site.rendering)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding plain values does not fail; should it ever, no record matches tonight's.
        let data = (try? encoder.encode(options)) ?? Data(UUID().uuidString.utf8)
        return SHA256.hash(data: data).hexString
    }

    /// Whether tonight's crawl may be a quiet night's, again or for the first time: the last
    /// snapshot would be left as it was, or linked into tonight's dated folder, if the library is
    /// (it is there, intact, rendered the same way), its library is whole, of this account and
    /// this build, and no option adds to what the crawl finds (Open Library) or leaves out of what
    /// the server's answers are kept as (privacy).
    func mayBeQuiet(_ output: Output, last: LastSnapshot, renderedWith: String) -> Bool {
        guard last.library.standsIn != nil else { return false }
        let content = settings.content
        let leaves = NightPlan.decide(NightPlan.Facts(
            libraryUnchanged: true, reuseUnchanged: content.reuseUnchanged, hasLastSnapshot: output.swap.previous != nil,
            sameRendering: last.state.renderedWith == renderedWith, lastSnapshotIntact: last.intact, dated: output.place.dated != nil))
        return !leaves.writesNewFiles && !content.privacy.isActive && settings.openLibrary == nil
            && last.state.noteLimit == content.noteLimit && last.state.privacy == content.privacy.summary
            && !RenderDigest.thisBuild.isEmpty && last.state.writtenBy == RenderDigest.thisBuild
    }

    /// What a night that leaves the snapshot as it was (or links it) found, to keep for the next:
    /// when its crawl asked for the two lists alone, both answered 304, no cover came and nothing
    /// failed anew. Nil for any other night, and for a night that leaves the snapshot and its state
    /// as they were and found what is kept already.
    func quietNightFound(_ step: QuietNightStep, compared: borrowing Compared) -> QuietNight? {
        let client = compared.connections.client, state = compared.state, last = compared.last
        let decision = compared.outcome.decision
        guard !decision.writesNewFiles, let cache = client.cache, let origin = state.origin,
              let shelves = cache.notModifiedETag(ReaderClient.shelvesPath), let books = cache.notModifiedETag(ReaderClient.booksPath)
        else { return nil }
        let network = client.metrics.reading
        guard network.requests == step.requestsBefore + 2, network.coversDownloaded == 0, network.thumbnailsMade == 0,
              state.retry == last.state.retry
        else { return nil }
        let found = QuietNight(shelves: shelves, books: books, options: quietOptions(origin: origin), until: state.retry.nextDue,
                               lines: step.recorder.lines.map { QuietNight.Line(level: $0.level.rawValue, text: $0.text) },
                               coversReused: network.coversReused, coversFailed: network.coversFailed)
        // A linked night writes the state whole again, and the record with it.
        return decision == .leaveAsItWas && found == last.state.quietNight ? nil : found
    }

    /// Keeps what the quiet night found, in the state folder.
    static func keep(_ quiet: QuietNight, in folder: URL, logger: Logger) throws {
        try quiet.write(to: folder)
        logger.debug("Kept for the next night: the shelves and the list of books as they are now, and what the crawl said")
    }
}
