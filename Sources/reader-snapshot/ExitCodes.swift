import ArgumentParser
import Crawl
import Export
import LibraryArchive
import Notes
import ReaderAPI
import Site
import SnapshotStore
import Support

/// The exit codes, documented in the README and in `--help`.
enum ExitCodes {
    static let complete: Int32 = 0
    /// The snapshot was published, but some book details or covers could not be fetched.
    static let publishedWithGaps: Int32 = 2
    /// Bad usage: ArgumentParser's own code for a validation error.
    static let badUsage: Int32 = 64
    /// The server could not be reached, or failed: nothing was published.
    static let serverUnavailable: Int32 = 69
    /// The output folder could not be written.
    static let outputNotWritable: Int32 = 73
    /// The e-mail and password, or the api key, were rejected.
    static let credentialsRejected: Int32 = 77
    /// The templates are missing or broken.
    static let templatesBroken: Int32 = 78

    static let helpText = """
    Exit codes:
      0   complete
      1   any other failure (the message says what)
      2   published with gaps (some book details or covers could not be fetched)
      64  bad usage
      69  server unreachable or failing (nothing published)
      73  output not writable
      77  credentials rejected
      78  templates missing or broken
    """
}
