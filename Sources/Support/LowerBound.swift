extension RandomAccessCollection {
    /// In a collection sorted by `keyOf`, where the first element whose key is not below `key` is:
    /// the element with that key if there is one, else where it would go. A binary search, inlined
    /// where it is called: the render looks books up by id with it.
    @inlinable
    package func lowerBound<Key: Comparable>(of key: Key, by keyOf: (Element) -> Key) -> Index {
        var low = startIndex, count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if keyOf(self[middle]) < key {
                low = index(after: middle)
                count -= half + 1
            } else {
                count = half
            }
        }
        return low
    }
}
