/// Where a snapshot is published: an rclone remote and a path on it, as `NAME:PATH`
/// (`s3site:my-bucket/books`, `dav:public/books`). The remote's credentials stay in rclone's
/// config or its `RCLONE_CONFIG_NAME_*` variables: reader-snapshot never sees them.
package struct RemoteTarget: Sendable, Equatable, CustomStringConvertible {
    /// The remote's name, as in rclone's config.
    package var name: String
    /// The path on it, without doubled or trailing slashes; empty for the remote's root.
    package var path: String

    /// Parses `NAME:PATH`. A name is rclone's: letters, digits, `_`, `-`, `.`, `+`, `@` and spaces,
    /// not starting with `-` or a space. A plain local path is refused: a typo in a cron line must
    /// not publish into a folder of this machine.
    package init?(_ text: String) {
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

    /// What rclone is given: `NAME:PATH`.
    package var description: String { "\(name):\(path)" }
}
