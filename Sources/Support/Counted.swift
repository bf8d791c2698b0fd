/// "1 book", "2 books": the tool's own messages (English; the pages have the languages' plurals).
package func counted(_ count: Int, _ one: String, _ many: String) -> String {
    "\(count) \(count == 1 ? one : many)"
}

/// "a, b and c" (or "a, b or c"): a list in the tool's own messages and help.
package func listed(_ words: [String], last: String = "and") -> String {
    guard let final = words.last else { return "" }
    return words.count == 1 ? final : words.dropLast().joined(separator: ", ") + " \(last) " + final
}
