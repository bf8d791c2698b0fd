/// "1 book", "2 books": the tool's own messages (English; the pages have the languages' plurals).
package func counted(_ count: Int, _ one: String, _ many: String) -> String {
    "\(count) \(count == 1 ? one : many)"
}
