import Foundation
import NIOConcurrencyHelpers
import ShareCards
import SnapshotStore
import Support

/// The share cards a render's pages name. Each is linked from the last snapshot or drawn once;
/// once every page is written, any other card in `cards/` is taken out: the crawl draws books'
/// cards as their covers arrive, and a book whose cover changed after that (Open Library's, say)
/// names another card by the time its page is made.
final class RenderedCards: Sendable {
    private let writer: SnapshotWriter
    /// The cards' paths, hashed: 8 bytes a card at any size of library.
    private let named = NIOLockedValueBox(Set<UInt64>())

    init(writer: SnapshotWriter) {
        self.writer = writer
    }

    /// Names the card (nil: the page has none) and sees that its file is there.
    func write(_ card: ShareCard?) throws {
        guard let card else { return }
        let path = card.path
        named.withLockedValue { _ = $0.insert(FNV1a.hash(path)) }
        try card.write(into: writer, at: path)
    }

    /// Takes out the cards no page names; returns how many (cards drawn for nothing).
    @discardableResult
    func removeOthers() -> Int {
        // No cards folder, or one that cannot be listed: no card to take out.
        guard let folder = try? writer.url(for: ShareCard.folder),
              let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return 0 }
        var kept = 0, removed = 0
        let named = self.named.withLockedValue { $0 }
        for name in names {
            if named.contains(FNV1a.hash(ShareCard.folder + "/" + name)) { kept += 1; continue }
            // A card that cannot be taken out stays, named by no page.
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            removed += 1
        }
        if kept == 0 { _ = rmdir(folder.path) }
        return removed
    }
}
