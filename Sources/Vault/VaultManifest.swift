import Foundation

/// What the vault's last sync wrote, file by file, so that the next one can tell the user's edits
/// from its own: `DIR/Reader/.reader-snapshot/vault.json`.
struct VaultManifest: Codable, Equatable {
    struct File: Codable, Equatable {
        enum CodingKeys: String, CodingKey {
            case path, serverPath = "server_path", written, server, deleted
        }

        /// Where the file is, from the vault's own folder; the user may have renamed it since.
        var path: String
        /// Where the snapshot has it: a `path` other than this one is a name the user chose.
        var serverPath: String
        /// The SHA-256 of the file as last written, or as last found the same as the server's.
        var written: String
        /// The SHA-256 of the server's version last seen: a conflict is reported once a version.
        var server: String
        /// Deleted by the user: not written again until `--restore`.
        var deleted = false
    }

    var schemaVersion = 1
    /// By book (`book:ID`), shelf (`shelf:ID`) or, for the rest, path: a book keeps its key when
    /// its title, and with it its file's name, changes.
    var files: [String: File] = [:]

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", files
    }

    static func read(from url: URL) -> VaultManifest? {
        // None, or one that cannot be read, starts the record anew and loses none of the user's
        // files: one already there stays theirs (the server's version goes beside it), and only
        // what they deleted comes back.
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(VaultManifest.self, from: data)
    }

    func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try encoder.encode(self).write(to: url, options: .atomic)
    }

    /// The key of the file at `path` in the Markdown tree.
    static func key(of path: String) -> String {
        for kind in ["books", "shelves"] where path.hasPrefix("markdown/\(kind)/") {
            let name = path.dropFirst("markdown/\(kind)/".count)
            let id = name.prefix { $0.isASCII && $0.isNumber }
            let rest = name.dropFirst(id.count)
            if !id.isEmpty, rest.hasPrefix("-") || rest == ".md" {
                return "\(kind == "books" ? "book" : "shelf"):\(id)"
            }
        }
        return path
    }
}
