/// Runs `body` over `items` with at most `limit` calls in flight, and gives the results in the
/// items' order. The first error thrown cancels the rest and is rethrown.
func concurrentMap<Item: Sendable, Result: Sendable>(
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
