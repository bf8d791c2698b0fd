import Foundation
import Logging
import Support
import Vault

/// What `--markdown-into` did, said the way the run says everything: what needs the user's eye
/// (a conflict, a note kept for a book that is gone, a file found deleted) as a warning, which
/// `--quiet` still prints.
func reportVault(_ report: Vault.Report, in vault: Vault, logger: Logger) {
    var parts = ["\(report.written.count) written", "\(report.unchanged) as they were"]
    if !report.followed.isEmpty { parts.append("\(report.followed.count) followed to the names you gave them") }
    if !report.removed.isEmpty { parts.append("\(report.removed.count) removed with their books") }
    if !report.restored.isEmpty { parts.append("\(report.restored.count) restored") }
    let deleted = report.keptDeleted.count + report.stillDeleted
    if deleted > 0 { parts.append("\(deleted) left out, as you deleted \(deleted == 1 ? "it" : "them") (--restore writes \(deleted == 1 ? "it" : "them"))") }
    logger.info("Markdown kept in \(vault.root.path): \(parts.joined(separator: ", ")).")
    if !report.conflicts.isEmpty {
        logger.warning("""
            \(counted(report.conflicts.count, "note you edited", "notes you edited")) in \(vault.root.path) changed on the server too; yours are kept, \
            the server's versions are beside them: \(report.conflicts.joined(separator: ", "))
            """)
    }
    if !report.keptRemoved.isEmpty {
        logger.warning("Kept, as you edited them, though their books are gone from the server: \(report.keptRemoved.joined(separator: ", "))")
    }
    // Told as a warning the night it is found (cron mails it once, --quiet or not); counted above
    // every night after.
    if !report.keptDeleted.isEmpty {
        logger.warning("Not written again, as you deleted them (--restore writes them): \(report.keptDeleted.joined(separator: ", "))")
    }
}
