import Foundation
import Mustache
import Support

/// The door of a catalog for friends only: the files a visitor's browser gets in the clear,
/// before the password. They are the same for every library in one language and with one set of
/// templates: nothing of the library is in them, not even its title.
extension SiteRenderer {
    package func doorFiles() throws -> [String: Data] {
        func asset(_ name: String) throws -> Data {
            guard let source = templates.assets.first(where: { $0.path == name })?.source ?? TemplateSet.bundledDirectory?
                .appendingPathComponent("assets").appendingPathComponent(name),
                let data = try? Data(contentsOf: source) else { throw SnapshotError(.templatesMissing, path: "assets/" + name) }
            return data
        }
        // The same worker as the plain catalog's, told that it opens sealed files.
        let worker = String(decoding: try asset(WebApp.workerSource), as: UTF8.self)
        guard worker.contains(Self.plainWorker) else { throw SnapshotError(.templatesMissing, path: "assets/sw.js (\(Self.plainWorker))") }
        let page = try templates.render(context: DoorPage(), .html, template: "unlock")
        return [
            "index.html": Data(page.utf8),
            "unlock.js": try asset("unlock.js"),
            "unlock.css": try asset("style.css"),
            "sw.js": Data(worker.replacingOccurrences(of: Self.plainWorker, with: "const SEALED = true;").utf8),
        ]
    }

    /// Assets of the door alone, which the snapshot's pages never load.
    static let doorOnly: Set<String> = ["unlock.js"]

    /// The line of `assets/sw.js` that the private catalog's copy says otherwise.
    static let plainWorker = "const SEALED = false;"
}

/// The door's page has nothing of its own: its words are the language's.
final class DoorPage: MustacheParent, Sendable {
    func child(named name: String) -> Any? { name == "root" ? Text("") : nil }
}
