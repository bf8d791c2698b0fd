import Foundation

/// When a snapshot was taken: seconds since 1970, and the same instant as ISO 8601 in UTC
/// ("2023-11-14T22:13:20Z"), as `library.json` and the pages write it. A value rather than a
/// string, so that no step parses the date back and no unreadable date can pass for 1970.
package struct SnapshotDate: Sendable, Equatable, CustomStringConvertible {
    package let seconds: Int
    package let text: String

    package init(seconds: Int) {
        self.seconds = seconds
        text = Self.format(seconds)
    }

    /// A date as `text` writes it; nil for anything else.
    package init?(parsing text: String) {
        let parts = text.split(whereSeparator: { "-T:Z".contains($0) }).compactMap { Int32($0) }
        guard parts.count == 6, text.hasSuffix("Z") else { return nil }
        var fields = tm()
        (fields.tm_year, fields.tm_mon, fields.tm_mday) = (parts[0] - 1900, parts[1] - 1, parts[2])
        (fields.tm_hour, fields.tm_min, fields.tm_sec) = (parts[3], parts[4], parts[5])
        self.init(seconds: Int(timegm(&fields)))
    }

    /// Now, or SOURCE_DATE_EPOCH when it is set (for reproducible output).
    package static func now(environment: [String: String] = ProcessInfo.processInfo.environment) -> SnapshotDate {
        if let epoch = environment["SOURCE_DATE_EPOCH"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
            return SnapshotDate(seconds: epoch)
        }
        return SnapshotDate(seconds: Int(Date().timeIntervalSince1970.rounded(.down)))
    }

    /// "2026-11-22": the day, which names a dated snapshot's folder.
    package var day: String { String(text.prefix(10)) }

    /// Whether `text` is written as `day` is ("2026-11-22"): four digits, a dash, two, a dash, two.
    package static func isDay(_ text: some StringProtocol) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 10 else { return false }
        return bytes.enumerated().allSatisfy { index, byte in
            index == 4 || index == 7 ? byte == UInt8(ascii: "-") : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }

    package var description: String { text }

    /// Made from the C library's calendar fields: Foundation's date formatter loads ICU's data,
    /// which then stays in a run's memory (6 MB of it).
    private static func format(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var fields = tm()
        guard gmtime_r(&time, &fields) != nil, (0...9999).contains(fields.tm_year + 1900) else {
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = TimeZone(identifier: "UTC")
            return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
        func digits(_ value: Int32, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return digits(fields.tm_year + 1900, 4) + "-" + digits(fields.tm_mon + 1, 2) + "-" + digits(fields.tm_mday, 2)
            + "T" + digits(fields.tm_hour, 2) + ":" + digits(fields.tm_min, 2) + ":" + digits(fields.tm_sec, 2) + "Z"
    }
}
