import Foundation
import LibraryArchive

/// `state.json` as written, and the one place where what older versions wrote is read: each
/// layout this version knows is made the current one as it is read (`migrated(from:folder:)`).
///
/// - 4, the current one: `origin` and `privacy` always written.
/// - 3: the same fields, but a state written before `origin` was kept named the server and account
///   in its `library.json` alone, and one written before `privacy` was kept said only, by its note
///   limit, whether its library was whole.
/// - 1 and 2 kept the covers inside `state.json`: not read. The night starts over and says why.
struct StateLayout: Codable {
    struct Response: Codable {
        var etag: String
        var file: String
    }

    static let current = 4
    static let oldestRead = 3

    var schemaVersion: Int
    var responses: [String: Response]
    var noteLimit: Int?
    var renderedWith: String?
    var writtenBy: String?
    var retry: RetrySchedule?
    var origin: SnapshotOrigin?
    var privacy: String?

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", responses, noteLimit = "note_limit", renderedWith = "rendered_with"
        case writtenBy = "written_by", retry, origin, privacy
    }

    /// Why a state of `version` cannot be read here, or nil when it can.
    static func refusal(of version: Int, file: URL) -> String? {
        if version > current {
            return "\(file.path) was written by a newer reader-snapshot (schema \(version); this version reads \(oldestRead) to \(current))"
        }
        if version < oldestRead {
            return "\(file.path) is of an older version's layout (schema \(version); this version reads \(oldestRead) to \(current))"
        }
        return nil
    }

    /// This state in the current layout. `folder` is the state's own, whose `library.json` a
    /// state of layout 3 may need.
    func migrated(folder: URL) -> StateLayout {
        var state = self
        if state.schemaVersion == 3 {
            // The library then named its server and account itself. One that cannot be read names
            // none: its books stand in for no book tonight, as the login finds when it reads it.
            if state.origin == nil, let library = try? SnapshotState.readLibrary(from: folder), let server = library.frame.server {
                state.origin = SnapshotOrigin(server: server, userID: library.frame.userID)
            }
            // A note limit was kept only with a whole library: no privacy option left anything out.
            if state.privacy == nil, state.noteLimit != nil { state.privacy = "" }
            state.schemaVersion = 4
        }
        return state
    }
}
