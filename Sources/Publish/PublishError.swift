import Foundation
import SnapshotStore

/// Why a publish stopped, with the user-facing message in one place. Nothing is deleted on the
/// host once any of these has happened: deletions are the last step, after every upload succeeded.
package struct PublishError: Error, Sendable, CustomStringConvertible {
    package enum Reason: Sendable, Equatable {
        /// rclone is not on the PATH.
        case rcloneMissing
        /// The remote's name is not one rclone knows (no config section, no RCLONE_CONFIG_NAME_TYPE).
        case remoteUnknown(name: String, known: [String])
        /// A folder of this machine to publish into that is not there: it is not made, since a
        /// mistyped path would be.
        case folderMissing
        /// A folder of this machine to publish into that holds the snapshot, its private state or
        /// its history, or lies in them: its files not in the snapshot would be deleted.
        case folderOverlaps(snapshot: String)
        /// The folder is not a snapshot reader-snapshot wrote: publishing it could upload anything.
        case notASnapshot
        /// The dated snapshots' folder has no `latest` snapshot yet.
        case noLatestSnapshot
        /// The snapshot holds a private catalog without its `lock.json` (cut short, or damaged): the
        /// plain snapshot is not sent in its place.
        case privateCatalogIncomplete
        /// The catalog for friends beside the snapshot was sealed from another one.
        case privateCatalogOfAnotherSnapshot
        /// More files would be deleted on the host than `--max-deletes` allows.
        case tooManyDeletions(count: Int, limit: Int, examples: [String])
        /// rclone failed at a step (listing, uploading, deleting), in its own words.
        case rcloneFailed(step: String, status: Int32, said: String)
        /// A local file could not be read while its checksum was taken.
        case unreadable(detail: String)
    }

    package var reason: Reason
    /// The snapshot folder or the remote the error is about.
    package var path: String

    package init(_ reason: Reason, path: String) {
        self.reason = reason
        self.path = path
    }

    package var description: String {
        switch reason {
        case .rcloneMissing:
            return "publishing needs rclone, which is not on the PATH: install it (apt-get install rclone, brew install rclone)"
        case .remoteUnknown(let name, let known):
            let list = known.isEmpty ? "rclone knows no remote yet" : "rclone knows " + known.map { "\($0):" }.joined(separator: ", ")
            return "\(path): rclone has no remote named '\(name)' (\(list)): set one up with 'rclone config', or with RCLONE_CONFIG_\(Self.environmentName(name))_TYPE and its other variables (docs/publishing.md)"
        case .folderMissing:
            return "\(path): no such folder on this machine: make it first (publish makes none, so that a mistyped path publishes nowhere)"
        case .folderOverlaps(let snapshot):
            return "\(path): holds or lies in \(snapshot), what it publishes and what it keeps: a publish there would delete its own files. Choose a folder apart"
        case .notASnapshot:
            return "\(path): not a snapshot written by reader-snapshot (not marked as one beside it, in \(SnapshotState.beside(URL(fileURLWithPath: path)).path), nor holding a latest link): nothing is published from a folder it did not write"
        case .noLatestSnapshot:
            return "\(path): holds dated snapshots but no latest link yet: export first"
        case .privateCatalogIncomplete:
            return "\(path): this catalog for friends has no lock.json (cut short or damaged): nothing is published, and the plain snapshot is not sent in its place. Export again with --share-password-file"
        case .privateCatalogOfAnotherSnapshot:
            return "\(path): this catalog for friends was sealed from another snapshot than the one in place (a night cut short after its swap): nothing is published, and the plain snapshot is not sent in its place. Export again, and the next night settles it"
        case .tooManyDeletions(let count, let limit, let examples):
            let shown = examples.prefix(3).joined(separator: ", ")
            return "\(path): publishing would delete \(count) files there (\(shown)\(count > 3 ? ", …" : "")), more than --max-deletes \(limit) allows; nothing was uploaded or deleted. Check the remote path; if it is right, give a higher --max-deletes or --force"
        case .rcloneFailed(let step, let status, let said):
            let words = said.isEmpty ? "" : ": \(said)"
            return "\(path): rclone failed while \(step) (exit \(status))\(words)"
        case .unreadable(let detail):
            return "\(path): cannot read the snapshot: \(detail)"
        }
    }

    /// What the user can do, when there is more to say than the message.
    package var advice: String? {
        switch reason {
        case .rcloneFailed(let step, _, let said):
            if said.contains("LoadCustomCABundleError") {
                return "rclone 1.60 refuses S3 remotes while AWS_CA_BUNDLE is set: unset it for the publish (docs/troubleshooting.md)."
            }
            return step == "deleting" ? "Every file was uploaded; the next publish deletes what is left." : "Nothing was deleted on the host; the next publish goes on from where this one stopped."
        default:
            return nil
        }
    }

    /// How rclone spells a remote's name in its environment variables: upper case, `-` as `_`.
    static func environmentName(_ name: String) -> String {
        name.uppercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
    }
}
