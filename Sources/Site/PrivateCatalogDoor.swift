import Crypto
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
                // An asset that is not there or cannot be read is a template set that is not
                // whole: so it is said, with the templates' exit code.
                let data = try? Data(contentsOf: source) else { throw SnapshotError(.templatesMissing, path: "assets/" + name) }
            return data
        }
        // The same worker as the plain catalog's, told that it opens sealed files.
        let worker = String(decoding: try asset(WebApp.workerSource), as: UTF8.self)
        guard worker.contains(Self.plainWorker) else { throw SnapshotError(.templatesMissing, path: "assets/sw.js (\(Self.plainWorker))") }
        let page = try templates.render(context: DoorPage(), .html, template: "unlock")
        // The host's page for an address it has no file for. It cannot load a script beside it
        // (it is served at any depth, and the file there is this page again), so its script is
        // written into it, and its policy allows that script alone, by its hash.
        let elsewhere = DoorPage(script: String(decoding: try asset("unlock-elsewhere.js"), as: UTF8.self))
        let elsewherePage = try templates.render(context: elsewhere, .html, template: "unlock-elsewhere")
        return [
            "index.html": Data(page.utf8),
            "404.html": Data(elsewherePage.utf8),
            "unlock.js": try asset("unlock.js"),
            "unlock.css": try asset("style.css"),
            "sw.js": Data(worker.replacingOccurrences(of: Self.plainWorker, with: "const SEALED = true;").utf8),
        ]
    }

    /// Assets of the door alone, which the snapshot's pages never load.
    static let doorOnly: Set<String> = ["unlock.js", "unlock-elsewhere.js"]

    /// The line of `assets/sw.js` that the private catalog's copy says otherwise.
    static let plainWorker = "const SEALED = false;"
}

/// The door's pages have nothing of the library: their words are the language's, and the page for
/// any other address has its script.
final class DoorPage: MustacheParent, Sendable {
    /// The page for any other address: its script, written into it, and that script's hash, which
    /// its policy allows it by.
    let script: String?
    let scriptHash: String?

    init(script: String? = nil) {
        self.script = script
        scriptHash = script.map { "sha256-" + Data(SHA256.hash(data: Data($0.utf8))).base64EncodedString() }
    }

    func child(named name: String) -> Any? {
        switch name {
        case "root": return Text("")
        case "script": return script.map(Text.init)
        case "scriptHash": return scriptHash.map(Text.init)
        default: return nil
        }
    }
}
