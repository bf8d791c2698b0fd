// The bundled templates, as a resource bundle of their own: this folder is both what a user copies
// and restyles (html/, markdown/, assets/) and what the tool ships. SwiftPM needs one source file
// to make a target of it; this is that file. It is not needed in a copy.
import Foundation

public enum DefaultTemplates {
    static let bundleName = "reader-snapshot_DefaultTemplates"

    /// The folder holding html/, markdown/ and assets/, looked up beside the running executable
    /// (where SwiftPM builds it and `make install` puts it). Unlike `Bundle.module`, a missing
    /// bundle is an answer here, not a crash.
    public static var directory: URL? {
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            candidates.append(executable.deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL)
        for folder in candidates {
            for name in [bundleName + ".resources", bundleName + ".bundle/Contents/Resources", bundleName + ".bundle"] {
                let url = folder.appendingPathComponent(name)
                if FileManager.default.fileExists(atPath: url.appendingPathComponent("html").path) { return url }
            }
        }
        return nil
    }
}
