/// Runs `body` over `items` with at most `limit` calls in flight, and gives the results in the
/// items' order. The first error thrown cancels the rest and is rethrown.
package func concurrentMap<Item: Sendable, Result: Sendable>(
    _ items: [Item], limit: Int, _ body: @escaping @Sendable (Item) async throws -> Result
) async throws -> [Result] {
    guard !items.isEmpty else { return [] }
    return try await withThrowingTaskGroup(of: (Int, Result).self) { group in
        var results = [Result?](repeating: nil, count: items.count)
        var next = 0
        for _ in 0..<min(max(1, limit), items.count) {
            let index = next
            group.addTask { (index, try await body(items[index])) }
            next += 1
        }
        while let (index, result) = try await group.next() {
            results[index] = result
            if next < items.count {
                let index = next
                group.addTask { (index, try await body(items[index])) }
                next += 1
            }
        }
        return results.map { $0! }
    }
}

/// First in, first out, without moving the rest at each take.
package struct WorkQueue<Element> {
    private var items: [Element] = []
    private var head = 0

    package init() {}

    package var isEmpty: Bool { head == items.count }
    package var count: Int { items.count - head }

    package mutating func append(_ item: Element) {
        items.append(item)
    }

    package mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        defer {
            head += 1
            // Drop what was taken once it is most of the storage.
            if head > 1024, head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
        }
        return items[head]
    }
}

