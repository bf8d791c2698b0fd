import Foundation

extension Exporter {
    /// Now, or SOURCE_DATE_EPOCH when it is set, as ISO 8601 in UTC: "2023-11-14T22:13:20Z". Made
    /// from the C library's calendar fields: Foundation's date formatter loads ICU's data, which
    /// then stays in a run's memory (6 MB of it).
    package static func timestamp(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let seconds: Int
        if let epoch = environment["SOURCE_DATE_EPOCH"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
            seconds = epoch
        } else {
            seconds = Int(Date().timeIntervalSince1970.rounded(.down))
        }
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

    /// Seconds since 1970 of a timestamp as `timestamp()` writes it ("2023-11-14T22:13:20Z").
    package static func seconds(of timestamp: String) -> Int? {
        let parts = timestamp.split(whereSeparator: { "-T:Z".contains($0) }).compactMap { Int32($0) }
        guard parts.count == 6 else { return nil }
        var fields = tm()
        (fields.tm_year, fields.tm_mon, fields.tm_mday) = (parts[0] - 1900, parts[1] - 1, parts[2])
        (fields.tm_hour, fields.tm_min, fields.tm_sec) = (parts[3], parts[4], parts[5])
        return Int(timegm(&fields))
    }
}
