import Foundation
import NIOConcurrencyHelpers
import Support

/// What one run asked of the network, for the summary and the benchmarks.
package final class ClientMetrics: Sendable {
    package struct Reading: Sendable, Equatable {
        package var requests = 0
        package var retries = 0
        /// Body bytes received, JSON and covers.
        package var bytesReceived = 0
        package var coverBytes = 0
        /// Answers 304 Not Modified.
        package var notModified = 0
        package var coversDownloaded = 0
        package var coversReused = 0
        package var coversFailed = 0
        /// Covers whose thumbnails were made this run (the others' were linked from the last snapshot).
        package var thumbnailsMade = 0
        /// Why no thumbnail could be made on this machine (libvips missing), when that happened.
        package var thumbnailsUnavailable: String?
    }

    private let value = NIOLockedValueBox(Reading())

    package init() {}

    package var reading: Reading { value.withLockedValue { $0 } }

    package func record(_ change: (inout Reading) -> Void) { value.withLockedValue { change(&$0) } }
}
