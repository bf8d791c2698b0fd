/// A mistake in what the user asked for that only the server's answers reveal (an option naming a
/// shelf the library does not have): told like a bad option, exit 64, with nothing written.
package struct UsageError: Error, Sendable, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}
