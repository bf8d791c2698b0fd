import Foundation

/// The published schemas the tests validate against. The project keeps no copy of what others
/// wrote: they are read from `../shared/schemas` beside the project's folder, and the checks that
/// need them are skipped, saying so, where that folder is absent (a clone outside this workspace).
package enum Schemas {
    package static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent() // TestSupport
        .deletingLastPathComponent().deletingLastPathComponent() // the project
        .deletingLastPathComponent().appendingPathComponent("shared/schemas").standardizedFileURL

    /// OPDS 1.2's RELAX NG schema (compact syntax), which includes Atom's.
    package static let opds12 = folder.appendingPathComponent("opds-1.2/opds.rnc")
    /// OPDS 2.0's JSON Schemas and the Readium ones they refer to.
    package static let opds20 = folder.appendingPathComponent("opds-2.0")

    package static var present: Bool {
        FileManager.default.fileExists(atPath: opds12.path) && FileManager.default.fileExists(atPath: opds20.appendingPathComponent("opds/feed.schema.json").path)
    }

    package static let absent = "\(folder.path) is absent: the OPDS feeds are not validated against the published schemas"
}
