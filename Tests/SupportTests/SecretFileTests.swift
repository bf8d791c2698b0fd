import Foundation
import Support
import TestSupport
import Testing

/// A secret's file (`--password-file`, `--share-password-file`): read only when its owner alone
/// can read it, and only its first line.
@Suite struct SecretFileTests {
    static func file(in folder: TemporaryFolder, _ text: String, mode: Int) throws -> String {
        let url = folder.path("secret-\(mode)-\(text.count)")
        try Data(text.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        return url.path
    }

    @Test func itsFirstLineIsReadWhenItsOwnerAloneCanReadIt() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(try SecretFile.firstLine(of: Self.file(in: folder, "pass word\r\nsecond line\n", mode: 0o600), named: "password file") == "pass word")
        #expect(try SecretFile.firstLine(of: Self.file(in: folder, "only\n", mode: 0o400), named: "password file") == "only")
    }

    @Test func anOpenAnEmptyOrAMissingFileIsRefusedInWordsThatNameIt() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let open = try Self.file(in: folder, "secret\n", mode: 0o644)
        let empty = try Self.file(in: folder, "\nsecond\n", mode: 0o600)
        let missing = folder.path("missing").path
        let refusals = [(open, "The share password file \(open) can be read by others; run: chmod 600 \(open)"),
                        (empty, "The share password file \(empty) is empty: its first line is the password."),
                        (missing, "Cannot read the share password file \(missing).")]
        for (path, said) in refusals {
            #expect(throws: SecretFile.Refusal.self) { try SecretFile.firstLine(of: path, named: "share password file") }
            do {
                _ = try SecretFile.firstLine(of: path, named: "share password file")
            } catch {
                #expect(error.description == said)
            }
        }
    }

    @Test func onlyTheGroupsReadBitIsAllowedAndOnlyDirectlyInTheCredentialsFolder() {
        #expect(SecretFile.isPrivate(path: "/home/a/password", permissions: 0o600, credentialsDirectory: nil))
        #expect(!SecretFile.isPrivate(path: "/home/a/password", permissions: 0o640, credentialsDirectory: nil))
        #expect(SecretFile.isPrivate(path: "/run/credentials/x.service/password", permissions: 0o440, credentialsDirectory: "/run/credentials/x.service"))
        #expect(SecretFile.isPrivate(path: "/run/credentials/x.service/password", permissions: 0o440, credentialsDirectory: "/run/credentials/x.service/"))
        #expect(!SecretFile.isPrivate(path: "/run/credentials/x.service/password", permissions: 0o460, credentialsDirectory: "/run/credentials/x.service"))
        #expect(!SecretFile.isPrivate(path: "/run/credentials/x.service/password", permissions: 0o444, credentialsDirectory: "/run/credentials/x.service"))
        #expect(!SecretFile.isPrivate(path: "/run/credentials/x.service/sub/password", permissions: 0o440, credentialsDirectory: "/run/credentials/x.service"))
        #expect(!SecretFile.isPrivate(path: "/etc/password", permissions: 0o440, credentialsDirectory: ""))
    }}

/// The programs the tool runs are looked for in one way: the PATH, or the usual folders.
@Suite struct ExecutableTests {
    @Test func aProgramOnThePathIsFoundAndOneThatIsNotIsNot() {
        let shell = Executable.find("sh")
        #expect(shell.map { FileManager.default.isExecutableFile(atPath: $0) && $0.hasSuffix("/sh") } == true, "\(String(describing: shell))")
        #expect(Executable.find("no-such-program-\(UInt32.random(in: 0...UInt32.max))") == nil)
        #expect(!Executable.searchPath.isEmpty)
    }
}
