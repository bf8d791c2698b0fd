import Crawl
import Export
import LibraryArchive
import NIOCore
import NIOPosix
import Notes
import ReaderAPI
import Site
import SnapshotStore
import Support

@main
enum Main {
    static func main() async {
        // Swift's tasks run on the event loops that do the network I/O, so an answer resumes its
        // request's task where it arrived: no hop to another thread pool and back for every request.
        // It must be done before the first task runs.
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await ReaderSnapshot.main()
    }
}
