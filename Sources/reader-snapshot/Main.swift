import NIOCore
import NIOPosix

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
