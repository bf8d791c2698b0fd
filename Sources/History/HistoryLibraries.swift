import Foundation
import LibraryArchive

extension HistoryLog {
    /// Each night's `library.json`, oldest first, handed to `body` with its night, one night at a
    /// time: what `body` keeps of it is its own choice, and nothing here holds more than the night
    /// in hand. Nights whose commit left `library.json` as it was are not handed (nothing of the
    /// library changed), nor those kept without it (a night without the json format).
    ///
    /// Each night's file is written out of git into a scratch file of its own and opened; the
    /// file is then unlinked, so that a library `body` keeps reads its books from the open file
    /// while the next night's is written beside it, and nothing is left behind.
    package func eachLibrary(_ body: (Night, LibraryFile) throws -> Void) async throws {
        let nights = try await commits(newestFirst: false, touching: "library.json")
        guard !nights.isEmpty else { return }
        let scratch = try Self.scratchFolder()
        // A scratch folder that cannot be removed stays readable by its owner alone, as made.
        defer { try? FileManager.default.removeItem(at: scratch) }
        let git = Git(gitDirectory: repository.gitDirectory)
        for (number, night) in nights.enumerated() {
            let file = scratch.appendingPathComponent("library-\(number).json")
            try await git.run(["show", "\(night.commit):library.json"], writingTo: file)
            let library: LibraryFile
            do {
                // Once open, the library reads its books from the descriptor: the name goes at
                // once, the bytes with the library. A name that cannot be removed goes with the
                // scratch folder.
                defer { try? FileManager.default.removeItem(at: file) }
                library = try LibraryFile.read(from: file)
            }
            try body(night, library)
        }
    }
}
