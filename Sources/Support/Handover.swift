import Foundation

/// A value handed over once: whoever takes it holds the only reference. A `Task` keeps its value
/// for as long as anything refers to the task, so a big answer handed on through a task (the list
/// of 100,000 books is 20 MB) would otherwise live until the last reference to the task is gone.
package final class Handover<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value?

    package init(_ value: Value) { self.value = value }

    /// The value, the first time; nil after that.
    package func take() -> Value? {
        lock.withLock {
            defer { value = nil }
            return value
        }
    }
}
