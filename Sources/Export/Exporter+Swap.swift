import Foundation
import LibraryArchive
import Logging
import PrivateCatalog
import Publish
import SnapshotStore

/// What a made snapshot carries to its swap besides its files, and keeps once it is in place: a
/// night's state (`NightMade`), or for `render` nothing but the library it rendered.
protocol MadeContents: Sendable {
    /// Whether the night has set its state aside before the swap: a failed step discards it.
    static var setsStateAside: Bool { get }
    /// What is kept once the snapshot is in place.
    func keep(in output: Exporter.Output, logger: Logger) throws
}

extension Exporter.NightMade: MadeContents {
    static var setsStateAside: Bool { true }

    /// The state for the next night.
    func keep(in output: Exporter.Output, logger: Logger) throws {
        try state.write(to: output.place.stateFolder, library: outcome.library)
    }
}

extension LibraryFile: MadeContents {
    static var setsStateAside: Bool { false }
    /// `render` keeps no state: a copy is made again from its `library.json` whenever asked.
    func keep(in output: Exporter.Output, logger: Logger) throws {}
}

extension Exporter {
    /// From the made snapshot on, `export` and `render` run the same steps: the catalog for
    /// friends sealed from the pages just made (`--share-password-file`, on a night that rendered:
    /// a linked night links its sealed files too), then the swap (`swapIntoPlace`).
    static func sealIfAsked<Kept>(_ made: consuming Made<Kept>, steps: inout StepRunner, logger: Logger) async throws -> Made<Kept> {
        let made = made
        guard made.rendered, let key = made.site.privateCatalog else { return made }
        return try await steps.run("seal the private catalog", made) { try await seal($0, with: key, logger: logger) }
    }

    /// The new snapshot put in place, its catalog for friends moved beside it (before the dated
    /// snapshots are pruned: a linked night's copy is the previous snapshot's, `linkedFrom`),
    /// `latest` pointed at it, and what it keeps kept. The folder lock is held on: what follows the
    /// swap is this run's too.
    static func swapIntoPlace<Kept: MadeContents>(_ made: consuming Made<Kept>, linkedFrom previous: URL?, logger: Logger) throws -> Kept {
        let made = made
        let output = made.output
        try output.swap.swapIn()
        try PrivateCatalogFolder.settle(snapshot: output.target, root: output.place.root, linkedFrom: previous)
        try output.place.dated?.finish(publishing: output.target)
        try made.kept.keep(in: output, logger: logger)
        return made.kept
    }
}

extension Exporter {
    /// `--publish`, the night's last step: the snapshot in place uploaded, unless the night
    /// changed nothing and the last publish there finished (a night that changed nothing sends
    /// nothing). Nil when nothing was sent.
    func publish(_ swapped: Swapped, with options: Publishing.Options) async throws -> Publishing.Outcome? {
        if swapped.outcome.unchanged && Publishing.lastPublishFinished(place: options.place, target: options.target) {
            logger.info("Publish: nothing new since the last publish to \(options.target)")
            return nil
        }
        return try await Publishing(options: options, logger: logger).run()
    }
}
