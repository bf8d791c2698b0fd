/// This release of reader-snapshot, written in this one place: `--version`, `--verbose` runs and
/// the pages' generator tag all say it, so that a bug report can quote it.
package enum ToolVersion {
    package static let current = "0.1.0"
    /// What the pages' `<meta name="generator">` says (`{{site.generator}}`).
    package static var generator: String { "reader-snapshot " + current }
}
