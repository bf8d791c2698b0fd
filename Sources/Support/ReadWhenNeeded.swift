import Foundation

/// A part of what the last run kept that is read where it is needed, not with the rest: the one
/// way a value here is half loaded. A big library's covers' records took a while to read (they
/// are read beside the login), its pages' digests were held through a crawl that never looks at
/// them, and a library of another account is read only for the change report.
package struct ReadWhenNeeded<Value: Sendable, Failure: Error>: Sendable {
    private enum Form: Sendable {
        case read(Value)
        case onDisk(URL, @Sendable (URL) throws(Failure) -> Value)
    }

    private var form: Form

    /// A value already had.
    package init(_ value: Value) { form = .read(value) }

    /// The value in `file`, read with `read` when it is asked for.
    package init(file: URL, read: @escaping @Sendable (URL) throws(Failure) -> Value) { form = .onDisk(file, read) }

    /// The value, read now when it is still on disk: each call reads it again, so a caller that
    /// needs it twice keeps what it gave (`init(_:)`).
    package func value() throws(Failure) -> Value {
        switch form {
        case .read(let value): return value
        case .onDisk(let file, let read): return try read(file)
        }
    }

    /// Where the value still is, when it has not been read.
    package var file: URL? {
        if case .onDisk(let file, _) = form { return file }
        return nil
    }
}
