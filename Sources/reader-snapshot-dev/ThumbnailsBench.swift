import ArgumentParser
import Foundation
import LibraryArchive
import SampleServer
import Support
import Thumbnails

/// For `make bench`: the thumbnails of a folder of covers on every core, as the crawl makes them;
/// and the covers of real sizes to make them from (the sample server's, written out).
struct ThumbnailsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-thumbnails",
        abstract: "Measure covers' thumbnails over a folder of covers (for make bench)."
    )

    @Option(name: .long, help: ArgumentHelp("The folder of covers.", valueName: "dir"))
    var covers: String

    @Option(name: .long, help: ArgumentHelp("Write this many covers of real sizes into the folder first, and stop.", valueName: "n"))
    var make: Int?

    @Option(name: .long, help: ArgumentHelp("Write the thumbnails into this folder too, named after their cover and box (to compare two builds').", valueName: "dir"))
    var keep: String?

    func run() async throws {
        let folder = URL(fileURLWithPath: covers)
        if let make {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let library = try SampleLibrary.synthetic(books: make * 4 / 3 + 8, seed: 19).withRealCovers(seed: 19)
            var written = 0, bytes = 0
            for (name, data) in library.coverFiles.sorted(by: { $0.key < $1.key }) where name.hasPrefix("real-") && written < make {
                try data.write(to: folder.appendingPathComponent(name))
                written += 1
                bytes += data.count
            }
            print("\(written) covers, \(bytes / 1024) KB")
            return
        }
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).sorted { $0.path < $1.path }
        let thumbnailer = Thumbnailer()
        let kept = keep.map { URL(fileURLWithPath: $0) }
        if let kept { try FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true) }
        let clock = ContinuousClock()
        var made = 0, failed = 0, bytes = 0
        let elapsed = try await clock.measure {
            // As the crawl asks: many covers at once, the threads (one a core) taking them in turn.
            try await withThrowingTaskGroup(of: (URL, Result<[Thumbnailer.Made], ThumbnailProblem>).self) { group in
                for file in files { group.addTask { (file, await thumbnailer.make(from: file)) } }
                for try await (file, result) in group {
                    switch result {
                    case .success(let thumbnails):
                        made += 1
                        bytes += thumbnails.reduce(0) { $0 + $1.data.count }
                        // Named after their box, not their width: a cover narrower than a box keeps its own.
                        for (thumbnail, box) in zip(thumbnails, ThumbnailBox.all) {
                            guard let kept else { break }
                            let name = file.deletingPathExtension().lastPathComponent + "-\(box.width)." + (thumbnail.isPNG ? "png" : "jpg")
                            try thumbnail.data.write(to: kept.appendingPathComponent(name))
                        }
                    case .failure: failed += 1
                    }
                }
            }
        }
        let seconds = elapsed.seconds
        print(String(format: "%d covers thumbnailed in %.2f s (%.1f ms a cover, %d cores), %d failed, %d KB of thumbnails",
                     made, seconds, seconds * 1000 / Double(max(1, made)), EveryCore.count, failed, bytes / 1024))
    }
}
