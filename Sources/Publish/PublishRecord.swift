import Crypto
import Foundation
import SnapshotStore

/// What was last published to one remote, kept in the snapshot's private state (never uploaded):
/// each file's checksum and size as uploaded, with the local inode and time it was taken from.
///
/// It does two jobs. A file whose inode, size and time are the recorded ones needs no new checksum
/// (the nightly snapshot links its unchanged files). And on a host that keeps no MD5 (WebDAV,
/// SFTP), a remote file of the recorded size is taken to hold the recorded bytes. An entry is
/// written only once rclone said its upload succeeded, so a publish cut short records nothing false.
package struct PublishRecord: Sendable {
    package struct Entry: Sendable, Equatable {
        package var md5: String
        package var size: Int
        package var inode: UInt64
        package var modified: Int64

        package init(md5: String, size: Int, inode: UInt64, modified: Int64) {
            self.md5 = md5
            self.size = size
            self.inode = inode
            self.modified = modified
        }
    }

    /// The record's file in the private state: one per remote.
    package var file: URL?
    /// False from the start of a publish until its last step succeeded.
    package var finished = false
    /// When a finished publish last listed the host and left it as recorded (seconds since 1970):
    /// until `Publishing.hostCheckInterval` later, the record stands for the host's listing.
    package var listedAt: Int64?
    package var entries: [String: Entry] = [:]

    static let header = "reader-snapshot publish record 1"

    package init(file: URL? = nil) {
        self.file = file
    }

    /// The record of `target`, in `state` (the snapshot's private state folder).
    package static func file(for target: RemoteTarget, in state: URL) -> URL {
        let digest = SHA256.hash(data: Data(target.description.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        return state.appendingPathComponent("published").appendingPathComponent("\(digest).tsv")
    }

    /// Reads the record.
    package static func read(_ file: URL) -> PublishRecord {
        var record = PublishRecord(file: file)
        // A missing or damaged record is empty: everything is compared with the host.
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return record }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard let first = lines.first else { return record }
        let head = first.split(separator: "\t")
        guard head.first.map(String.init) == header else { return record }
        record.finished = head.count > 1 && head[1] == "finished"
        if head.count > 2, head[2].hasPrefix("listed ") { record.listedAt = Int64(head[2].dropFirst("listed ".count)) }
        lines.removeFirst()
        for line in lines {
            let fields = line.split(separator: "\t", maxSplits: 4, omittingEmptySubsequences: false)
            guard fields.count == 5, let size = Int(fields[1]), let inode = UInt64(fields[2]), let modified = Int64(fields[3]) else { continue }
            record.entries[String(fields[4])] = Entry(md5: String(fields[0]), size: size, inode: inode, modified: modified)
        }
        return record
    }

    /// Writes the record aside and renames it into place, readable by the owner alone.
    package func write() throws {
        guard let file else { return }
        try SnapshotState.makePrivateFolder(file.deletingLastPathComponent())
        var text = Self.header + "\t" + (finished ? "finished" : "under way") + (listedAt.map { "\tlisted \($0)" } ?? "") + "\n"
        for (path, entry) in entries.sorted(by: { $0.key < $1.key }) {
            text += "\(entry.md5)\t\(entry.size)\t\(entry.inode)\t\(entry.modified)\t\(path)\n"
        }
        try SnapshotState.writePrivately(Data(text.utf8), to: file)
    }

    /// The checksum of `file`, from the record when the file is the one recorded.
    package func knownChecksum(of file: LocalFile) -> String? {
        guard let entry = entries[file.path], entry.size == file.size, entry.inode == file.inode, entry.modified == file.modified else { return nil }
        return entry.md5
    }
}
