/// What a night does with its snapshot, once the library is known: leave the last one as it
/// was, link it into a new dated folder, or render. Decided in one place, from plain facts, so
/// that the rule "a night with no change on the server rewrites no file and makes no commit" has
/// one home and its tests need no server and no disk.
package enum NightPlan: Equatable, Sendable {
    /// Nothing changed and the pages would come out the same: the snapshot stays as it was, and
    /// the staging folder is let go.
    case leaveAsItWas
    /// Nothing changed, but `--keep` wants tonight's dated folder: yesterday's files, linked.
    case linkLastSnapshot
    /// Something changed (or `--full`, or other templates): the pages are rendered, those whose
    /// inputs are as they were linked from the last snapshot when `reusingPages`.
    case render(reusingPages: Bool)

    /// The facts the decision is made from.
    package struct Facts: Equatable, Sendable {
        /// The library is the same as the last snapshot's (its books, shelves and gaps).
        package var libraryUnchanged: Bool
        /// Unchanged books and pages may be taken from the last snapshot (`--full` says no).
        package var reuseUnchanged: Bool
        /// There is a last snapshot to leave or link.
        package var hasLastSnapshot: Bool
        /// Its pages were made with the same templates, formats, site address and tool.
        package var sameRendering: Bool
        /// Every file the formats ask for is there in it.
        package var lastSnapshotIntact: Bool
        /// `--keep`: each night gets a dated folder of its own.
        package var dated: Bool

        package init(libraryUnchanged: Bool, reuseUnchanged: Bool, hasLastSnapshot: Bool, sameRendering: Bool,
                     lastSnapshotIntact: Bool, dated: Bool) {
            self.libraryUnchanged = libraryUnchanged
            self.reuseUnchanged = reuseUnchanged
            self.hasLastSnapshot = hasLastSnapshot
            self.sameRendering = sameRendering
            self.lastSnapshotIntact = lastSnapshotIntact
            self.dated = dated
        }
    }

    package static func decide(_ facts: Facts) -> NightPlan {
        guard facts.reuseUnchanged else { return .render(reusingPages: false) }
        if facts.libraryUnchanged, facts.hasLastSnapshot, facts.sameRendering, facts.lastSnapshotIntact {
            return facts.dated ? .linkLastSnapshot : .leaveAsItWas
        }
        return .render(reusingPages: true)
    }

    /// Whether tonight's files differ from the last snapshot's: only then is there anything for
    /// `--history` to commit.
    package var writesNewFiles: Bool {
        if case .render = self { return true }
        return false
    }
}
