import Foundation
import NIOConcurrencyHelpers

/// A value handed over once: whoever takes it holds the only reference. A `Task` keeps its value
/// for as long as anything refers to the task, so a big answer handed on through a task (the list
/// of 100,000 books is 20 MB) would otherwise live until the last reference to the task is gone.
package final class Handover<Value: Sendable>: Sendable {
    private let value: NIOLockedValueBox<Value?>

    package init(_ value: Value) { self.value = NIOLockedValueBox(value) }

    /// The value, the first time; nil after that.
    package func take() -> Value? {
        value.withLockedValue { value in
            defer { value = nil }
            return value
        }
    }
}
