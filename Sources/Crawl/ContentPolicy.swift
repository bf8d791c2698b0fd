import Notes
import Thumbnails

/// What a snapshot holds of the library, decided once from the command line: what privacy leaves
/// out, how much of a note the pages show, whether covers get thumbnails, and whether what has
/// not changed since the last snapshot is taken from it. The crawl, the render and the state
/// kept for the next night all read it from here.
package struct ContentPolicy: Sendable, Equatable, Encodable {
    package var privacy = Privacy()
    /// Notes longer than this are shown cut, with a notice; `library.json` keeps them whole.
    package var noteLimit = Self.defaultNoteLimit
    /// How much of a note the pages show unless told otherwise: the notes' own limit.
    package static let defaultNoteLimit = Note.defaultLimit
    /// Make covers' thumbnails (`--no-thumbnails` turns it off).
    package var thumbnails = true
    /// Take books whose `updated_at` has not moved from the last snapshot, and leave an unchanged
    /// snapshot as it is (`--full` turns both off).
    package var reuseUnchanged = true

    package init(privacy: Privacy = Privacy(), noteLimit: Int = Note.defaultLimit, thumbnails: Bool = true, reuseUnchanged: Bool = true) {
        self.privacy = privacy
        self.noteLimit = noteLimit
        self.thumbnails = thumbnails
        self.reuseUnchanged = reuseUnchanged
    }

    /// The covers' thumbnails' maker, or nil when there are none.
    package var thumbnailer: Thumbnailer? { thumbnails ? Thumbnailer() : nil }
}
