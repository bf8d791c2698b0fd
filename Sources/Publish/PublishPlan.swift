import Support

/// A file as the host has it, from rclone's listing.
package struct RemoteFile: Sendable, Equatable {
    package var size: Int
    /// The MD5 the host keeps (an S3 ETag), or nil where it keeps none.
    package var md5: String?

    package init(size: Int, md5: String?) {
        self.size = size
        self.md5 = md5
    }
}

/// A local file with its checksum taken.
package struct CheckedFile: Sendable, Equatable {
    package var file: LocalFile
    package var md5: String

    package init(file: LocalFile, md5: String) {
        self.file = file
        self.md5 = md5
    }
}

/// What a publish does, decided from plain facts before anything is sent: which files go up, in
/// which wave and with which headers, which are already there, and which are deleted last.
package struct PublishPlan: Sendable {
    /// A group of files rclone uploads in one call: one wave, one set of headers.
    package struct Batch: Sendable, Equatable {
        package var wave: Wave
        package var headers: ContentHeaders
        package var files: [CheckedFile]
        package var bytes: Int { files.reduce(0) { $0 + $1.file.size } }
    }

    /// The uploads, wave by wave; within a wave, one batch per set of headers.
    package var batches: [Batch] = []
    /// The files the host has already, byte for byte.
    package var unchanged: [CheckedFile] = []
    /// Files on the host that the snapshot no longer has, deleted after every upload.
    package var deletions: [String] = []

    package var uploads: Int { batches.reduce(0) { $0 + $1.files.count } }
    package var uploadBytes: Int { batches.reduce(0) { $0 + $1.bytes } }

    package init() {}

    /// Compares the snapshot's files with the host's. A file goes up when the host lacks it, has
    /// another size, or another MD5; where the host keeps no MD5, when the record of the last
    /// publish does not vouch for these bytes. A hidden file on the host is never deleted: none
    /// is ever uploaded, so it is not the snapshot's.
    package static func make(local: [CheckedFile], remote: [String: RemoteFile], record: PublishRecord, formats: [FormatFiles]) -> PublishPlan {
        var plan = PublishPlan()
        var grouped: [Wave: [ContentHeaders: [CheckedFile]]] = [:]
        for checked in local {
            let path = checked.file.path
            if let there = remote[path], there.size == checked.file.size,
               (there.md5.map { $0.lowercased() == checked.md5 } ?? (record.entries[path].map { $0.md5 == checked.md5 && $0.size == there.size } ?? false)) {
                plan.unchanged.append(checked)
                continue
            }
            grouped[ContentHeaders.wave(for: path, formats: formats), default: [:]][ContentHeaders(for: path, formats: formats), default: []].append(checked)
        }
        for wave in Wave.allCases {
            for (headers, files) in (grouped[wave] ?? [:]).sorted(by: { ($0.key.contentType, $0.key.cacheControl) < ($1.key.contentType, $1.key.cacheControl) }) {
                plan.batches.append(Batch(wave: wave, headers: headers, files: files.sorted { $0.file.path < $1.file.path }))
            }
        }
        let paths = Set(local.map(\.file.path))
        plan.deletions = remote.keys.filter { !paths.contains($0) && !VisitorFiles.isHidden($0) }.sorted()
        return plan
    }
}
