import Crypto
import Foundation
import Logging
import PrivateCatalog
import SnapshotStore
import Support

/// One publish: a snapshot's visitor files onto a static host, step by step. Nothing is deleted on
/// the host before every upload has succeeded, and nothing at all when the plan would delete more
/// than the limit: a wrong remote path must not empty a site.
package struct Publishing: Sendable {
    package struct Options: Sendable {
        /// Where the snapshot is: with `--keep`, `latest` is published; the record of this remote
        /// is kept in its private state.
        package var place: SnapshotPlace
        package var target: RemoteTarget
        /// The snapshot's formats, as publishing sees their files: what media type each is sent with.
        package var formats: [FormatFiles]
        /// The most files one publish deletes on the host without `force`.
        package var maxDeletes = 256
        package var force = false
        /// Plan, print, send nothing.
        package var dryRun = false
        /// List the host even when the record of the last publish may stand for its listing.
        package var checkHost = false
        /// Now, in seconds since 1970: how old the record's listing is.
        package var now = Int64(Date().timeIntervalSince1970)

        package init(place: SnapshotPlace, target: RemoteTarget, formats: [FormatFiles]) {
            self.place = place
            self.target = target
            self.formats = formats
        }
    }

    /// Why a publish of `outcome`'s plan is not made: it deletes more files than allowed.
    package func refusal(of outcome: Outcome) -> PublishError? {
        let deletions = outcome.plan.deletions
        guard deletions.count > options.maxDeletes && !options.force else { return nil }
        return PublishError(.tooManyDeletions(count: deletions.count, limit: options.maxDeletes, examples: deletions), path: options.target.description)
    }

    /// What a publish did (or, with `dryRun`, would do).
    package struct Outcome: Sendable {
        package var plan: PublishPlan
        /// The snapshot folder whose files were published.
        package var snapshot: URL
        package var uploaded: Int { plan.uploads }
        package var deleted: Int { plan.deletions.count }
        package var unchanged: Int { plan.unchanged.count }
        package var bytes: Int { plan.uploadBytes }
    }

    package static let defaultMaxDeletes = 256

    /// How long the record of a finished publish stands for the host's listing. Listing 21,318
    /// files on an S3 API took 4.6 s of an 8.5 s publish after one note was edited; a host whose
    /// files someone else changed is set right by the first publish after this, or `--check-host`.
    package static let hostCheckInterval: Int64 = 7 * 86_400

    package var options: Options
    package var logger: Logger

    package init(options: Options, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// Whether the last publish of this snapshot folder to `target` finished: a night that changed
    /// nothing need not publish again, unless the last publish was cut short.
    package static func lastPublishFinished(place: SnapshotPlace, target: RemoteTarget) -> Bool {
        PublishRecord.read(PublishRecord.file(for: target, in: place.stateFolder)).finished
    }

    package func run() async throws -> Outcome {
        let target = options.target
        guard let rclone = Rclone.find() else { throw PublishError(.rcloneMissing, path: target.description) }
        if target.isLocalFolder {
            try Self.checkFolder(target, apartFrom: options.place)
        } else {
            let known = try await rclone.remotes()
            guard known.contains(target.name) else {
                throw PublishError(.remoteUnknown(name: target.name, known: known), path: target.description)
            }
        }
        let plain = try VisitorFiles.snapshot(in: options.place)
        let snapshot = try VisitorFiles.published(from: plain, place: options.place)
        let sealed = snapshot != plain
        if sealed {
            logger.info("Publishing the private catalog: the host gets only its sealed files and the door that asks for the password")
        }
        let state = options.place.stateFolder
        var record = PublishRecord.read(PublishRecord.file(for: target, in: state))

        let local = try VisitorFiles.list(snapshot)
        let checked = try local.map { file in
            CheckedFile(file: file, md5: try record.knownChecksum(of: file) ?? Self.md5(of: snapshot.appendingPathComponent(file.path)))
        }
        // The host is asked what it has unless the last publish there finished, having listed it
        // less than a week ago: what it uploaded and deleted since is in the record, file by file.
        let remote: [String: RemoteFile]
        let listedAgo = record.listedAt.map { options.now - $0 }
        let trusted = !options.checkHost && record.finished && listedAgo.map { (0..<Self.hostCheckInterval).contains($0) } == true
        if trusted, let listedAgo {
            logger.debug("Compared with the record of the last publish to \(target), which listed it \(listedAgo) s ago (--check-host lists it now)")
            remote = record.entries.mapValues { RemoteFile(size: $0.size, md5: $0.md5) }
        } else {
            remote = try await rclone.list(target, withMD5: try await rclone.keepsMD5(target))
        }
        let plan = PublishPlan.make(local: checked, remote: remote, record: record, formats: options.formats)
        let outcome = Outcome(plan: plan, snapshot: snapshot)
        // A dry run shows its plan whatever it deletes: the caller prints it, then tells the refusal.
        if options.dryRun { return outcome }
        if let refusal = refusal(of: outcome) { throw refusal }

        // Under way: the files already there are recorded; the others as each batch succeeds.
        record.finished = false
        for file in plan.unchanged { record.entries[file.file.path] = Self.entry(file) }
        save(record)
        for wave in Wave.allCases {
            let batches = plan.batches.filter { $0.wave == wave }
            guard !batches.isEmpty else { continue }
            let count = batches.reduce(0) { $0 + $1.files.count }, bytes = batches.reduce(0) { $0 + $1.bytes }
            // A private catalog's top files are its door, not the plain catalog's lists.
            let words = sealed && wave == .entryPoints ? "the door (the page that asks for the password, its script, lock.json)" : wave.words
            logger.info("Uploading \(counted(count, "file", "files")): \(words) (\(Self.formatBytes(bytes)))")
            for batch in batches {
                try await rclone.copy(batch.files.map(\.file.path), from: snapshot, to: target, headers: batch.headers)
                for file in batch.files { record.entries[file.file.path] = Self.entry(file) }
                save(record)
            }
        }
        if !plan.deletions.isEmpty {
            logger.info("Deleting \(counted(plan.deletions.count, "file", "files")) the snapshot no longer has")
            try await rclone.delete(plan.deletions, at: target)
        }
        let paths = Set(local.map(\.path))
        record.entries = record.entries.filter { paths.contains($0.key) }
        record.finished = true
        if !trusted { record.listedAt = options.now }
        save(record)
        return outcome
    }

    /// A folder of this machine is published into only when it is there and apart from the
    /// snapshot: not it, not in it, and not around it, its private state or its history (the
    /// publish deletes what the snapshot does not have).
    static func checkFolder(_ target: RemoteTarget, apartFrom place: SnapshotPlace) throws {
        let folder = URL(fileURLWithPath: target.path).resolvingSymlinksInPath().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw PublishError(.folderMissing, path: target.path)
        }
        func within(_ inner: String, _ outer: String) -> Bool { inner == outer || inner.hasPrefix(outer == "/" ? "/" : outer + "/") }
        for kept in [place.root, place.stateFolder, place.gitDirectory] {
            let kept = kept.resolvingSymlinksInPath().path
            if within(folder, kept) || within(kept, folder) {
                throw PublishError(.folderOverlaps(snapshot: place.root.path), path: target.path)
            }
        }
    }

    private static func entry(_ file: CheckedFile) -> PublishRecord.Entry {
        PublishRecord.Entry(md5: file.md5, size: file.file.size, inode: file.file.inode, modified: file.file.modified)
    }

    /// The record is a help, not the truth (the host's listing is): a record that cannot be
    /// written costs the next publish some checksums, and is said once.
    private func save(_ record: PublishRecord) {
        do { try record.write() } catch {
            logger.warning("the record of this publish could not be written in \(record.file?.deletingLastPathComponent().path ?? "the private state"): the next publish compares everything again")
        }
    }

    /// The MD5 of a file, read a piece at a time, in lowercase hex as hosts give it.
    static func md5(of file: URL) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: file.path) else {
            throw PublishError(.unreadable(detail: String(cString: strerror(errno))), path: file.path)
        }
        // Closing a file that was only read loses nothing.
        defer { try? handle.close() }
        var hash = Insecure.MD5()
        while true {
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 1 << 20) } catch {
                throw PublishError(.unreadable(detail: "\(error)"), path: file.path)
            }
            guard let chunk, !chunk.isEmpty else { break }
            hash.update(data: chunk)
        }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }

    package static func formatBytes(_ bytes: Int) -> String {
        switch bytes {
        case ..<1024: return "\(bytes) B"
        case ..<(1024 * 1024): return String(format: "%.1f KB", Double(bytes) / 1024)
        default: return String(format: "%.1f MB", Double(bytes) / 1024 / 1024)
        }
    }
}
