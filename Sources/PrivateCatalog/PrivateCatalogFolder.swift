import Foundation
import SnapshotStore
import Support

/// Where a snapshot's catalog for friends is kept: beside the snapshot, in
/// `PARENT/.DIR.private-catalog/`, never in the folder a user shares or zips.
///
/// It is sealed inside the staging folder (`DIR/.private-catalog`), so that the swap puts the
/// snapshot and its sealed copy in place together, and moved out right after the swap. A run
/// killed between the two leaves it inside, where `publish` finds it and the next run moves it.
///
/// A copy beside is `publish`'s only while it belongs to the snapshot in place: the folder it was
/// sealed from (device and inode, which the swap's renames keep) is noted in the mark's folder
/// beside the snapshot. A copy of another snapshot (a night without the password cut short after
/// its swap) is refused, never sent in place of tonight's, and the plain snapshot is not sent
/// either: the host keeps what it had until a night settles it.
package enum PrivateCatalogFolder {
    /// What `publish` finds for a snapshot.
    package enum Found: Equatable, Sendable {
        /// No catalog for friends: the snapshot itself is published.
        case none
        /// The sealed copy to publish, inside the snapshot or beside it.
        case sealed(URL)
        /// A copy without its `lock.json`: cut short or damaged.
        case incomplete(URL)
        /// A copy sealed from another snapshot than the one in place.
        case ofAnotherSnapshot(URL)
    }

    /// `PARENT/.DIR.private-catalog` for the snapshot folder `root` (with `--keep`, the layout's top).
    package static func beside(_ root: URL) -> URL {
        let root = root.standardizedFileURL
        return root.deletingLastPathComponent().appendingPathComponent(".\(root.lastPathComponent).private-catalog")
    }

    /// The note of which snapshot folder the copy beside was sealed from.
    static func sourceFile(_ root: URL) -> URL {
        SnapshotState.beside(root).appendingPathComponent("private-catalog-source.json")
    }

    private struct Source: Codable { var folder: String }

    static func source(_ root: URL) -> String? {
        // No note, or one that cannot be read, makes the copy beside no snapshot's: `publish`
        // refuses it, and the next night's `settle` replaces or removes it.
        guard let data = try? Data(contentsOf: sourceFile(root)) else { return nil }
        return (try? JSONDecoder().decode(Source.self, from: data))?.folder
    }

    /// The catalog for friends of `snapshot`, the folder in place under `root`.
    package static func find(for snapshot: URL, root: URL) -> Found {
        let inside = snapshot.appendingPathComponent(PrivateCatalogWriter.folder)
        if exists(inside) { return complete(inside) ? .sealed(inside) : .incomplete(inside) }
        let beside = beside(root)
        guard exists(beside) else { return .none }
        guard let folder = SnapshotMark.identity(of: snapshot.resolvingSymlinksInPath()), source(root) == folder else {
            return .ofAnotherSnapshot(beside)
        }
        return complete(beside) ? .sealed(beside) : .incomplete(beside)
    }

    /// The sealed copy of `snapshot` whose files tonight's may link, if it is whole and its own.
    package static func last(of snapshot: URL?, root: URL) -> URL? {
        guard let snapshot, case .sealed(let folder) = find(for: snapshot, root: root) else { return nil }
        return folder
    }

    /// After a swap, and before a night starts: the sealed copy inside `snapshot` moves beside it,
    /// in place of the last one; a copy beside that is not the snapshot's goes (the night was made
    /// without the password), unless the snapshot's files are `linkedFrom`'s, whose copy it was.
    package static func settle(snapshot: URL, root: URL, linkedFrom previous: URL? = nil) throws {
        let beside = beside(root)
        let inside = snapshot.appendingPathComponent(PrivateCatalogWriter.folder)
        let folder = SnapshotMark.identity(of: snapshot.resolvingSymlinksInPath())
        do {
            removeLeftovers(beside)
            if exists(inside) {
                // The copy inside came with the snapshot in the swap: it is this snapshot's. Named
                // as such first, so that a run killed before the rename leaves nothing wrong.
                try setAside(beside)
                try note(folder, root: root)
                try FileManager.default.moveItem(at: inside, to: beside)
                return
            }
            guard exists(beside) else { return }
            let noted = source(root)
            if noted != nil, noted == folder { return }
            if let previous, noted != nil, noted == SnapshotMark.identity(of: previous.resolvingSymlinksInPath()) {
                try note(folder, root: root)
                return
            }
            try setAside(beside)
            // Without a copy beside, a note left behind names nothing, and the next copy's note replaces it.
            try? FileManager.default.removeItem(at: sourceFile(root))
        } catch let error as SnapshotError {
            throw error
        } catch {
            throw SnapshotError(.notWritable(detail: "could not keep the private catalog beside the snapshot: \(SnapshotWriter.describe(error))"), path: beside.path)
        }
    }

    private static func note(_ folder: String?, root: URL) throws {
        guard let folder else { return }
        try SnapshotState.makePrivateFolder(SnapshotState.beside(root))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try SnapshotState.writePrivately(try encoder.encode(Source(folder: folder)), to: sourceFile(root))
    }

    /// Renamed out of the way in one step, then removed: a run killed meanwhile leaves a leftover
    /// the next one clears, never half a copy under the name `publish` reads.
    private static func setAside(_ beside: URL) throws {
        guard exists(beside) else { return }
        let leftover = beside.deletingLastPathComponent().appendingPathComponent(beside.lastPathComponent + ".old-\(UUID().uuidString.prefix(8))")
        try FileManager.default.moveItem(at: beside, to: leftover)
        // A leftover that cannot be removed now is cleared by the next run (`removeLeftovers`).
        try? FileManager.default.removeItem(at: leftover)
    }

    private static func removeLeftovers(_ beside: URL) {
        let parent = beside.deletingLastPathComponent()
        let prefix = beside.lastPathComponent + ".old-"
        // A parent that cannot be listed shows no leftover to clear, and a leftover that cannot be
        // removed is tried again by the next run: either only takes room meanwhile.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? [] where name.hasPrefix(prefix) {
            try? FileManager.default.removeItem(at: parent.appendingPathComponent(name))
        }
    }

    private static func exists(_ folder: URL) -> Bool {
        var info = stat()
        return lstat(folder.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    private static func complete(_ folder: URL) -> Bool {
        var info = stat()
        return lstat(folder.appendingPathComponent("lock.json").path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
