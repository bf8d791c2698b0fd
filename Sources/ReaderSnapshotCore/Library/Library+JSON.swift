import Foundation

extension Library {
    /// Sorted keys and a fixed layout: the same library gives the same bytes.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }

    public static func read(from url: URL) throws -> Library {
        let data = try Data(contentsOf: url)
        let library = try JSONDecoder().decode(Library.self, from: data)
        guard library.schemaVersion <= currentSchemaVersion else {
            throw SnapshotError(.unsupportedArchive(version: library.schemaVersion), path: url.path)
        }
        return library
    }
}
