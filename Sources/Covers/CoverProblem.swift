import Foundation
import Support

/// Why a cover is not in the snapshot.
package struct CoverProblem: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    /// The address itself is unusable (not a URL, not http): no later run can do better, and
    /// finding out costs nothing, so it is not put off to a later run.
    package var inTheAddress = false
    /// The host asked us to slow down (403 or 429 from Open Library): ask it nothing more this run.
    package var throttled = false
    /// Asking again soon would give the same: the host said 404 (or another final no), or the
    /// image itself was refused (not an image, too large, a decompression bomb, unreadable).
    package var lasting = false
    /// The image itself was refused: what it is, not where it is, is at fault.
    package var refusedImage = false
    package var description: String { message }

    package init(message: String, inTheAddress: Bool = false, throttled: Bool = false, lasting: Bool = false, refusedImage: Bool = false) {
        self.message = UntrustedText.displayable(message)
        self.inTheAddress = inTheAddress
        self.throttled = throttled
        self.lasting = lasting || refusedImage
        self.refusedImage = refusedImage
    }
}

/// Where covers come from when it is not the Reader server: Open Library's covers service, named
/// by the user and trusted like the server, whose covers by id never change, asked at its pace.
package struct CoverOrigin: Sendable {
    package var base: URL
    package var userAgent: String
    /// Waited on before each request.
    package var pace: Pace

    package init(base: URL, userAgent: String, pace: Pace) {
        self.base = base
        self.userAgent = userAgent
        self.pace = pace
    }

    func isSameOrigin(_ url: URL) -> Bool {
        url.scheme?.lowercased() == base.scheme?.lowercased() && url.host?.lowercased() == base.host?.lowercased() && url.port == base.port
    }
}
