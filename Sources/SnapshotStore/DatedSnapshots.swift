import Foundation
import LibraryArchive
import Support

/// `--keep N`: the output folder holds the last N snapshots as `snapshots/<date>/`, with `latest`
/// pointing at the newest and the state of incremental runs beside them. Unchanged files, covers
/// above all, are hard links to the previous night's, so 30 nights do not cost 30 copies.
package struct DatedSnapshots: Sendable {
    package let root: URL
    package let keep: Int

    package init(root: URL, keep: Int) {
        self.root = root.standardizedFileURL
        self.keep = max(1, keep)
    }

    package var snapshots: URL { root.appendingPathComponent("snapshots") }
    package var latest: URL { root.appendingPathComponent("latest") }

    /// "2026-11-22": one snapshot a day; a second run the same day replaces that day's.
    package func folder(for date: SnapshotDate) -> URL {
        snapshots.appendingPathComponent(date.day)
    }

    /// The newest snapshot, if there is one.
    package var newest: URL? {
        // No `latest` link: no dated snapshot has been made here yet.
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: latest.path) else { return nil }
        let url = root.appendingPathComponent(target).standardizedFileURL
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// Checks the folder holds nothing but dated snapshots, and makes it ready.
    package func prepare() throws {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: root.path, isDirectory: &isDirectory) {
            var contents: [String] = []
            // A folder whose names cannot be listed may hold anything: it is not taken for an empty one.
            if isDirectory.boolValue {
                do {
                    contents = try manager.contentsOfDirectory(atPath: root.path).filter { $0 != ".DS_Store" }
                } catch {
                    throw SnapshotError(.notWritable(detail: "what it holds cannot be listed (\(SnapshotWriter.describe(error))), so it cannot be told to be empty or to hold dated snapshots; make it readable, or choose another folder"), path: root.path)
                }
            }
            // A snapshot made without --keep would be buried under snapshots/ and never replaced again.
            if isDirectory.boolValue, !Self.holdsDatedSnapshots(root), Self.holdsPlainSnapshot(root) {
                throw SnapshotError(.notWritable(detail: "it holds a snapshot made without --keep; run without --keep to replace it, or choose another folder"), path: root.path)
            }
            guard isDirectory.boolValue, contents.isEmpty || Self.holdsDatedSnapshots(root) else {
                throw SnapshotError(.notWritable(detail: "with --keep, the output must be empty or hold earlier dated snapshots"), path: root.path)
            }
        }
        do {
            // Nothing of the state in the folder: the layout (`snapshots/`, `latest`) says what it
            // is. The empty state folder older versions made there goes (rmdir: only if empty).
            try manager.createDirectory(at: snapshots, withIntermediateDirectories: true)
            rmdir(root.appendingPathComponent(SnapshotState.folderName).path)
        } catch {
            throw SnapshotError(.notWritable(detail: SnapshotWriter.describe(error)), path: root.path)
        }
    }

    /// True when `folder` is the top of a `--keep` layout: it has a `snapshots/` folder, or the
    /// `latest` link (told by what is visible, so it holds wherever the state is kept).
    package static func holdsDatedSnapshots(_ folder: URL) -> Bool {
        var isDirectory: ObjCBool = false
        let snapshots = folder.appendingPathComponent("snapshots")
        if FileManager.default.fileExists(atPath: snapshots.path, isDirectory: &isDirectory), isDirectory.boolValue { return true }
        // A `latest` that is no link, or none, does not make the layout.
        return (try? FileManager.default.destinationOfSymbolicLink(atPath: folder.appendingPathComponent("latest").path)) != nil
    }

    /// True when `folder` holds one snapshot made without `--keep`: its mark (beside it, or the
    /// state folder older versions kept inside), or the first files of its site or archive, at its top.
    package static func holdsPlainSnapshot(_ folder: URL) -> Bool {
        SnapshotMark.marks(folder) || [SnapshotState.folderName, "index.html", "library.json"].contains {
            FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path)
        }
    }

    /// Points `latest` at `folder` in one step, then removes all but the newest `keep` snapshots.
    package func finish(publishing folder: URL) throws {
        let manager = FileManager.default
        let temporary = root.appendingPathComponent(".latest-\(UUID().uuidString.prefix(8))")
        do {
            try manager.createSymbolicLink(atPath: temporary.path, withDestinationPath: "snapshots/" + folder.lastPathComponent)
            guard rename(temporary.path, latest.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            // The error said is the link's: a temporary link left behind has a hidden name no run reads.
            try? manager.removeItem(at: temporary)
            throw SnapshotError(.notWritable(detail: "could not point latest at the new snapshot"), path: latest.path)
        }
        // A folder of snapshots that cannot be listed prunes nothing tonight: the next night's
        // `finish` tries again.
        let dated = ((try? manager.contentsOfDirectory(atPath: snapshots.path)) ?? [])
            // Only folders named as this tool names a day's: anything else there is not ours to delete.
            .filter { SnapshotDate.isDay($0) }
            .sorted()
        for old in dated.dropLast(keep) where old != folder.lastPathComponent {
            // One that cannot be removed is among the next night's old ones, and removed then.
            try? manager.removeItem(at: snapshots.appendingPathComponent(old))
        }
    }
}
