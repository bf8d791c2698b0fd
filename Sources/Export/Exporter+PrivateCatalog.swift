import Foundation
import Logging
import PrivateCatalog
import Site
import SnapshotStore
import Support

extension Exporter {
    /// Tonight's pages sealed into a catalog for friends (`--share-password-file`).
    static func seal<Kept>(_ made: consuming Made<Kept>, with key: CatalogKey, logger: Logger) async throws -> Made<Kept> {
        let made = made
        try await writePrivateCatalog(key: key, site: made.site, into: made.output.swap.writer, place: made.output.place, logger: logger)
        return made
    }

    /// `--share-password-file`: the catalog for friends only, sealed from the pages just written
    /// into `writer`'s folder, before it is swapped into place. The salt and the key's check are
    /// kept in the private state, so that the next night seals to the same bytes, or says why not.
    static func writePrivateCatalog(key: CatalogKey, site: SiteIdentity, into writer: SnapshotWriter, place: SnapshotPlace, logger: Logger) async throws {
        let stateFolder = place.stateFolder
        let lastSealed = PrivateCatalogFolder.last(of: writer.previous, root: place.root)
        let door = try SiteRenderer(site: site).doorFiles()
        if let last = CatalogKey.lastCheck(in: stateFolder), last != key.check {
            logger.warning("The share password changed: every file of the private catalog is sealed again, and visitors need the new password.")
        }
        let written = try await EveryCore.onThreadOfItsOwn("seal") {
            try PrivateCatalogWriter(key: key, doorFiles: door, formats: OutputFormat.files).write(snapshot: writer.root, previous: writer.previous, lastSealed: lastSealed)
        }
        do { try key.keep(in: stateFolder) } catch {
            throw SnapshotError(.notWritable(detail: SnapshotWriter.describe(error)), path: stateFolder.path)
        }
        logger.info("Private catalog: \(counted(written.files, "file", "files")) sealed (\(written.sealedAnew) tonight), kept beside the snapshot in \(PrivateCatalogFolder.beside(place.root).path), which publish sends instead of the snapshot; left out, as a visitor's software could not open them sealed: \(PrivateCatalogWriter.leftOutWords(site.formats.sorted().map(\.files)))")
    }
}
