/// Where a snapshot is published: an rclone remote and a path on it, as `NAME:PATH`
/// (`s3site:my-bucket/books`, `dav:public/books`), or a folder of this machine by its absolute
/// path (`/var/www/books`, a web server's or a USB stick's). The remote's credentials stay in
/// rclone's config or its `RCLONE_CONFIG_NAME_*` variables: reader-snapshot never sees them.
package struct RemoteTarget: Sendable, Equatable, CustomStringConvertible {
    /// The remote's name, as in rclone's config; empty for a folder of this machine.
    package var name: String
    /// The path on it, without doubled or trailing slashes; empty for the remote's root.
    package var path: String

    package var isLocalFolder: Bool { name.isEmpty }

    /// Parses `NAME:PATH`, or an absolute path. A name is rclone's: letters, digits, `_`, `-`, `.`,
    /// `+`, `@` and spaces, not starting with `-` or a space. A relative path is refused, and so is
    /// `/` itself: what a cron line names must not depend on where it runs.
    package init?(_ text: String) {
        if text.hasPrefix("/") {
            let parts = text.split(separator: "/", omittingEmptySubsequences: true)
            guard !parts.isEmpty, !parts.contains(".."), !parts.contains("."),
                  !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
            name = ""
            path = "/" + parts.joined(separator: "/")
            return
        }
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let name = String(text[..<colon])
        let path = String(text[text.index(after: colon)...])
        guard !name.isEmpty, name.count <= 64, !name.hasPrefix("-"), !name.hasPrefix(" "), !name.hasSuffix(" "),
              name.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.+@ ".unicodeScalars.contains($0) }),
              !path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }),
              !path.split(separator: "/").contains("..")
        else { return nil }
        self.name = name
        // A leading slash is kept: on SFTP it means the root, not the login's home folder.
        self.path = (path.hasPrefix("/") ? "/" : "") + path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
    }

    /// What rclone is given: `NAME:PATH`, or the folder's path.
    package var description: String { isLocalFolder ? path : "\(name):\(path)" }

    /// What rclone is asked about the remote itself (which hashes it keeps).
    package var backend: String { isLocalFolder ? path : "\(name):" }
}
