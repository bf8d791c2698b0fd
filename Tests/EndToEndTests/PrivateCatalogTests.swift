import Foundation
import PrivateCatalog
import SampleServer
import Site
import TestSupport
import Testing

/// `--share-password-file`: the catalog for friends only, as the host gets it (moto's S3 on
/// loopback, through `publish`) and as a visitor's browser opens it (Tests/browser/check_private.py).
@Suite(.serialized)
struct PrivateCatalogTests {
    static let password = "a shelf for friends"

    static func passwordFile(in folder: TemporaryFolder, _ text: String = password, name: String = "share-password", mode: Int = 0o600) throws -> URL {
        let file = folder.path(name)
        try Data((text + "\n").utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
        return file
    }

    /// The private catalog's files by path, as written beside the snapshot.
    static func sealed(_ output: URL) -> [String: Data] {
        SiteInspector(root: PrivateCatalogFolder.beside(output)).contents()
    }

    static func key(from lock: Data?) throws -> CatalogKey {
        let data = try #require(lock)
        let fields = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let text = try #require(fields["salt"] as? String)
        let salt = try #require(Data(base64Encoded: text))
        let iterations = try #require(fields["iterations"] as? Int)
        #expect(iterations >= 600_000 && salt.count >= 16 && fields["kdf"] as? String == "PBKDF2-SHA-256")
        return try CatalogKey(password: try SharePassword(password), salt: salt, iterations: iterations)
    }

    static func inodes(_ folder: URL) -> [String: UInt64] {
        var found: [String: UInt64] = [:]
        for path in SiteInspector(root: folder).files() {
            var info = stat()
            if lstat(folder.appendingPathComponent(path).path, &info) == 0 { found[path] = UInt64(info.st_ino) }
        }
        return found
    }

    @Test func theHostGetsCiphertextThatOpensToThePlainSnapshotAndAQuietNightSendsNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("books")
        let share = try Self.passwordFile(in: folder)
        let server = try await EndToEndTests.startServer()
        let host = try await PublishHost.s3()
        do {
            let options = ["--share-password-file", share.path, "--publish", "\(host.remote):site/books"]
            let first = try await PublishCommandTests.exportBundled(to: output, extra: options, environment: host.environment, server: server)
            #expect(first.status == 2, "\(first.output)")
            #expect(first.stderr.contains("Publishing the private catalog"), "\(first.output)")
            // The sealed files first, the door last: a visitor let in finds every file there.
            let sealedWave = first.stderr.range(of: "the private catalog's sealed files"), door = first.stderr.range(of: "the door (the page that asks")
            #expect(sealedWave != nil && door != nil && sealedWave!.lowerBound < door!.lowerBound, "\(first.output)")
            #expect(first.stderr.contains("left out, as a visitor's software could not open them sealed: the Markdown, library.json"), "\(first.output)")
            #expect(!first.output.contains(Self.password), "the password is never printed")
            // The sealed copy is kept beside the snapshot: the folder a user shares holds nothing hidden.
            #expect(try FileManager.default.contentsOfDirectory(atPath: output.path).filter { $0.hasPrefix(".") } == [])
            #expect(first.stderr.contains("kept beside the snapshot in \(PrivateCatalogFolder.beside(output).path)"), "\(first.output)")

            // Every file the host holds opens, with the password, to the plain snapshot's bytes:
            // the same pages, assets, indexes and covers, under names that say nothing.
            let remote = try await host.files(under: "site/books")
            let plain = SiteInspector(root: output).contents()
            let key = try Self.key(from: remote["lock.json"])
            let shared = plain.keys.filter { !PrivateCatalogWriter.isLeftOut($0, formats: OutputFormat.files) }
            let names = Dictionary(uniqueKeysWithValues: shared.map { (SealedFile.name(of: $0, key: key), $0) })
            #expect(Set(remote.keys) == Set(names.keys).union(PrivateCatalogWriter.door), "the host holds the sealed files and the door, nothing else")
            for (name, sealed) in remote where name.hasPrefix(SealedFile.folder + "/") {
                let path = try #require(names[name])
                #expect(try SealedFile.open(sealed, path: path, key: key) == plain[path], "\(path)")
                #expect(sealed.count == SealedFile.sealedSize(of: plain[path]!.count), "\(path) is padded to its bucket")
                // Bound to its path: a host that swaps two files is found out.
                #expect { try SealedFile.open(sealed, path: path + "x", key: key) } throws: { refusedByTheTag($0) }
            }
            // What a visitor's software could not open is not there, sealed or not.
            for leftOut in ["library.json", "library.csv", "feed.xml", "opds/index.xml", "markdown/index.md"] {
                #expect(plain[leftOut] != nil && !names.values.contains(leftOut), "\(leftOut)")
            }
            #expect(shared.contains("lookup.html") && shared.contains("offline.json") && shared.contains { $0.hasPrefix("covers/") })

            // A quiet night: nothing rewritten, nothing sent.
            let before = Self.inodes(PrivateCatalogFolder.beside(output))
            let quiet = try await PublishCommandTests.exportBundled(to: output, extra: options, environment: host.environment, server: server)
            #expect(quiet.status == 2 && quiet.stderr.contains("Publish: nothing new since the last publish"), "\(quiet.output)")
            #expect(Self.inodes(PrivateCatalogFolder.beside(output)) == before, "a quiet night rewrites no sealed file")

            // One note edited: a handful of files sealed and sent again.
            server.server.update { library in
                library.updateBook(id: 101) { $0.comments = "<div class=\"trix-content\">\n  <div>Read again in winter.</div>\n</div>\n" }
            }
            let edited = try await PublishCommandTests.exportBundled(to: output, extra: options, environment: host.environment, server: server)
            let uploaded = try #require(PublishCommandTests.count("uploaded", in: edited.stderr), "\(edited.output)")
            let after = Self.inodes(PrivateCatalogFolder.beside(output))
            let resealed = Set(after.filter { before[$0.key] != $0.value }.keys)
            // The book's page, the lists and the search that show it, the timeline that tells it.
            #expect(uploaded > 0 && uploaded <= 12, "\(uploaded) uploaded: \(names.filter { resealed.contains($0.key) }.values.sorted()) \(edited.output)")
            #expect(after.filter { before[$0.key] != $0.value }.count == uploaded, "what was sealed anew is what was sent")
            let page = try #require(plain.keys.first { $0.hasPrefix("books/101-") })
            let now = try await host.files(under: "site/books")
            let sealedPage = try #require(now[SealedFile.name(of: page, key: key)])
            let opened = try SealedFile.open(sealedPage, path: page, key: key)
            #expect(String(decoding: opened, as: UTF8.self).contains("Read again in winter."))
            #expect(now == Self.sealed(output))
        } catch {
            await server.stop()
            await host.stop()
            throw error
        }
        await server.stop()
        await host.stop()
    }

    @Test func noWordOfTheLibraryIsInAnyPublishedByteOrName() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("books")
        let share = try Self.passwordFile(in: folder)
        let server = try await EndToEndTests.startServer()
        let run = try await EndToEndTests.export(server, to: output, extra: ["--share-password-file", share.path])
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        // The same library sealed under another salt (a catalog of its own, with its own state).
        let other = folder.path("other")
        let rendered = try await ToolRunner.run(["render", "--from", output.path, "--output", other.path, "--share-password-file", share.path])
        #expect(rendered.status == 0, "\(rendered.output)")

        // Every word of four letters or more of the titles, authors, shelves, notes and ISBNs.
        let json = try Data(contentsOf: output.appendingPathComponent("library.json"))
        let archive = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        var texts: [String] = (archive["shelves"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        for book in archive["books"] as? [[String: Any]] ?? [] {
            texts += ["title", "author", "isbn"].compactMap { book[$0] as? String }
            if let note = book["note"] as? [String: Any], let markdown = note["markdown"] as? String { texts.append(markdown) }
        }
        let words = Set(texts.flatMap { text in
            text.split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init).filter { $0.count >= 4 }
        })
        #expect(words.count > 200 && words.contains("Austen") && words.contains("9780141439518"), "\(words.count) words")

        // The door is the same for any library: it holds nothing of this one. Every other byte
        // published, names included, is searched. A word found by chance in random bytes (about
        // one chance in sixty for this library's 1 MB) is not found under a second salt too;
        // one the tool let through is.
        let first = Self.sealed(output), second = Self.sealed(other)
        for name in PrivateCatalogWriter.door where name != "lock.json" {
            #expect(first[name] != nil && first[name] == second[name], "\(name) is the same whatever the library")
        }
        #expect(first["lock.json"] != second["lock.json"], "each catalog has a salt of its own")
        // Nor does the door hold any whole title, author, shelf name or ISBN (its own words, such
        // as "catalog" or "password", may be among a note's).
        let names = texts.filter { $0.count >= 6 && !$0.contains("\n") }
        for name in PrivateCatalogWriter.door {
            let door = String(decoding: first[name] ?? Data(), as: UTF8.self)
            #expect(!door.isEmpty && names.allSatisfy { !door.contains($0) }, "\(name): \(names.filter { door.contains($0) })")
        }
        // lock.json is fixed words around a salt and a check.
        for lock in [first["lock.json"], second["lock.json"]] {
            let text = String(decoding: lock ?? Data(), as: UTF8.self)
            #expect(text.range(of: #"^\{"format":1,"kdf":"PBKDF2-SHA-256","iterations":[0-9]+,"salt":"[A-Za-z0-9+/=]+","check":"[0-9a-f]{32}"\}\n$"#,
                               options: .regularExpression) != nil, "\(text)")
        }
        // Every name is the HMAC of a path of the snapshot under the catalog's own key, and nothing
        // else. (Searched for words, 32 hex digits hold a word made of hex digits, like "1831",
        // a few times in a hundred by chance.)
        for (files, snapshot) in [(first, output), (second, other)] {
            let key = try Self.key(from: files["lock.json"])
            let paths = SiteInspector(root: snapshot).contents().keys.filter { !PrivateCatalogWriter.isLeftOut($0, formats: OutputFormat.files) }
            #expect(Set(files.keys) == Set(paths.map { SealedFile.name(of: $0, key: key) }).union(PrivateCatalogWriter.door))
        }
        func found(in files: [String: Data]) -> Set<String> {
            var found = Set<String>()
            for (name, bytes) in files where !PrivateCatalogWriter.door.contains(name) {
                for word in words where bytes.range(of: Data(word.utf8)) != nil { found.insert(word) }
            }
            return found
        }
        let leaked = found(in: first).intersection(found(in: second))
        #expect(leaked.isEmpty, "words of the library in the published files: \(leaked.sorted())")
        #expect(first.count > 300 && first.keys.allSatisfy { PrivateCatalogWriter.door.contains($0) || $0.range(of: #"^c/[0-9a-f]{32}$"#, options: .regularExpression) != nil })
    }

    @Test func aPasswordThatCannotBeTakenIsRefusedAndANewOneSealsEverythingAgain() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("books")
        let server = try await EndToEndTests.startServer()
        let short = try Self.passwordFile(in: folder, "short", name: "short")
        let open = try Self.passwordFile(in: folder, name: "open", mode: 0o644)
        let good = try Self.passwordFile(in: folder)
        let refusals: [([String], String)] = [
            (["--share-password-file", short.path], "at least 8 characters"),
            (["--share-password-file", open.path], "can be read by others; run: chmod 600"),
            (["--share-password-file", folder.path("missing").path], "Cannot read the share password file"),
            (["--share-password-file", good.path, "--format", "markdown"], "--format must include html"),
        ]
        for (options, said) in refusals {
            let run = try await EndToEndTests.export(server, to: output, extra: options)
            #expect(run.status == 64 && run.stderr.contains(said), "\(options): \(run.output)")
        }
        #expect(!FileManager.default.fileExists(atPath: output.path), "nothing is written for a refused password")

        let first = try await EndToEndTests.export(server, to: output, extra: ["--share-password-file", good.path])
        #expect(first.status == 2, "\(first.output)")
        let render = try await ToolRunner.run(["render", "--from", output.path, "--output", folder.path("copy").path, "--share-password-file", short.path])
        #expect(render.status == 64 && render.stderr.contains("at least 8 characters"), "\(render.output)")
        let before = Self.sealed(output)
        let changed = try Self.passwordFile(in: folder, "another shelf for friends", name: "changed")
        let second = try await EndToEndTests.export(server, to: output, extra: ["--share-password-file", changed.path])
        await server.stop()
        #expect(second.status == 2 && second.stderr.contains("The share password changed: every file of the private catalog is sealed again"), "\(second.output)")
        let after = Self.sealed(output)
        let files = after.keys.filter { $0.hasPrefix("c/") }.count
        #expect(second.stderr.contains("Private catalog: \(files) files sealed (\(files) tonight)"), "\(second.output)")
        #expect(Set(after.keys).intersection(before.keys) == Set(PrivateCatalogWriter.door), "every sealed name is new")
        #expect(after["lock.json"] != before["lock.json"])

        // A private catalog cut short is not published, and the plain snapshot not in its place.
        try FileManager.default.removeItem(at: PrivateCatalogFolder.beside(output).appendingPathComponent("lock.json"))
        let host = folder.path("host")
        try FileManager.default.createDirectory(at: host, withIntermediateDirectories: true)
        let publish = try await ToolRunner.run(["publish", output.path, host.path])
        #expect(publish.status == 64 && publish.stderr.contains("this catalog for friends has no lock.json"), "\(publish.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: host.path).isEmpty)
    }

    /// With `--keep`, a night that links yesterday's files keeps its catalog for friends; a night
    /// without the password removes it, and only then is the plain snapshot published.
    @Test func theCatalogForFriendsFollowsTheDatedSnapshotsAndGoesWithThePassword() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("books")
        let share = try Self.passwordFile(in: folder)
        let server = try await EndToEndTests.startServer()
        func night(_ number: Int, _ extra: [String]) async throws -> ToolRun {
            try await EndToEndTests.export(server, to: output, extra: ["--keep", "2", "--quiet"] + extra,
                                           environment: ["SOURCE_DATE_EPOCH": String(1_700_000_000 + number * 86_400)])
        }
        func publish(_ name: String) async throws -> (ToolRun, [String]) {
            let host = folder.path(name)
            try FileManager.default.createDirectory(at: host, withIntermediateDirectories: true)
            let run = try await ToolRunner.run(["publish", output.path, host.path])
            return (run, try FileManager.default.contentsOfDirectory(atPath: host.path).sorted())
        }
        let sealed = ["--share-password-file", share.path]
        let first = try await night(0, sealed)
        let linked = try await night(1, sealed)
        #expect(first.status == 2 && linked.status == 2, "\(first.output)\n\(linked.output)")
        let snapshots = try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("snapshots").path).sorted()
        #expect(snapshots.count == 2)
        for dated in snapshots {
            let hidden = try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("snapshots/\(dated)").path).filter { $0.hasPrefix(".") }
            #expect(hidden.isEmpty, "\(dated) holds \(hidden)")
        }
        let (sent, onHost) = try await publish("host-sealed")
        #expect(sent.status == 0 && sent.stderr.contains("Publishing the private catalog"), "\(sent.output)")
        #expect(onHost == ["404.html", "c", "index.html", "lock.json", "sw.js", "unlock.css", "unlock.js"], "\(onHost)")

        let plain = try await night(2, [])
        await server.stop()
        #expect(plain.status == 2, "\(plain.output)")
        #expect(!FileManager.default.fileExists(atPath: PrivateCatalogFolder.beside(output).path), "a night without the password removes the sealed copy")
        let (sentPlain, onPlainHost) = try await publish("host-plain")
        #expect(sentPlain.status == 0 && !sentPlain.stderr.contains("private catalog"), "\(sentPlain.output)")
        #expect(onPlainHost.contains("books") && onPlainHost.contains("library.json") && !onPlainHost.contains("lock.json"), "\(onPlainHost)")
    }

    @Test func inChromiumTheCatalogOpensWithThePasswordAloneAndWorksOffline() async throws {
        guard BrowserCheck.isAvailable() else { return }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.path("books")
        let share = try Self.passwordFile(in: folder)
        let server = try await EndToEndTests.startServer()
        let run = try await EndToEndTests.export(server, to: output, extra: ["--share-password-file", share.path])
        await server.stop()
        #expect(run.status == 2, "\(run.output)")
        // The same snapshot sealed under a new password, to serve at the same address later.
        let changedPassword = try Self.passwordFile(in: folder, "another shelf for friends", name: "changed")
        let changed = folder.path("resealed")
        let resealed = try await ToolRunner.run(["render", "--from", output.path, "--output", changed.path, "--share-password-file", changedPassword.path])
        #expect(resealed.status == 0, "\(resealed.output)")
        let (status, checked) = try await BrowserCheck.run("check_private.py", [
            PrivateCatalogFolder.beside(output).path, output.path, share.path,
            PrivateCatalogFolder.beside(changed).path, changedPassword.path])
        #expect(status == 0 && checked.contains("private check: 1 passed, 0 failed"), "\(checked)")
    }
}
