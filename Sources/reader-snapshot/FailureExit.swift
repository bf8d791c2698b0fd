import ArgumentParser
import History
import Logging
import Publish
import ReaderAPI
import Support

/// An error the tool knows, with the documented exit code it ends the run with.
protocol ExitingError: Error {
    var exitCode: Int32 { get }
    /// What the user can do about it, when there is something to say.
    var advice: String? { get }
}

extension ReaderAPIError: ExitingError {
    var exitCode: Int32 {
        switch reason {
        case .unauthorized: return ExitCodes.credentialsRejected
        case .invalidURL: return ExitCodes.badUsage
        case .notFound, .serverError, .unexpectedStatus, .notJSON, .undecodable, .tooLarge, .transport, .notAskedAgain, .stoppedAnswering:
            return ExitCodes.serverUnavailable
        }
    }

    var advice: String? {
        if isUnauthorized { return "Check the e-mail and password, or the api key and user id." }
        if mayNotBeReader {
            return "The --server address may not be a Reader server: check it, and the path Reader is served under if it has one (https://host/reader)."
        }
        return nil
    }
}

extension ServerStoppedAnswering: ExitingError {
    var exitCode: Int32 { ExitCodes.serverUnavailable }
    var advice: String? { "Nothing was published. The next run starts again once the server answers." }
}

extension UsageError: ExitingError {
    var exitCode: Int32 { ExitCodes.badUsage }
    var advice: String? { nil }
}

extension SnapshotError: ExitingError {
    var exitCode: Int32 {
        switch reason {
        case .templatesMissing, .templateSyntax, .templateNotFound, .languageMissing, .stringsSyntax: return ExitCodes.templatesBroken
        case .notWritable, .folderNotWritable: return ExitCodes.outputNotWritable
        case .unsupportedArchive, .unreadableArchive: return ExitCodes.badUsage
        }
    }

    var advice: String? { nil }
}

extension HistoryError: ExitingError {
    var exitCode: Int32 {
        switch reason {
        // A commit git could not make (a full disk, a damaged repository): the history not written.
        case .commitFailed: return ExitCodes.outputNotWritable
        case .bookNotFound, .bookNotInTimeline: return ExitCodes.bookNotInHistory
        case .noHistory, .noLibrary, .badDate, .notOurs: return ExitCodes.badUsage
        case .gitMissing, .gitFailed, .unreadableTimeline: return 1
        }
    }

    var advice: String? {
        if case .commitFailed = reason { return "The snapshot itself is published; the next run makes its commit." }
        return nil
    }
}

extension PublishError: ExitingError {
    var exitCode: Int32 {
        switch reason {
        case .rcloneMissing, .remoteUnknown, .folderMissing: return ExitCodes.publishNotSetUp
        case .folderOverlaps: return ExitCodes.badUsage
        case .tooManyDeletions: return ExitCodes.tooManyDeletions
        case .notASnapshot, .noLatestSnapshot, .privateCatalogIncomplete, .privateCatalogOfAnotherSnapshot: return ExitCodes.badUsage
        case .rcloneFailed, .unreadable: return ExitCodes.publishFailed
        }
    }
}

/// Turns an error into a message on standard error and the documented exit code.
func failureExit(for error: Error, logger: Logger) -> ExitCode {
    logger.error("\(error)")
    guard let error = error as? ExitingError else { return .failure }
    if let advice = error.advice { logger.error("\(advice)") }
    return ExitCode(error.exitCode)
}

/// A command's options resolved: a usage error stays one (told with the command's usage line);
/// any other failure (templates that cannot be loaded) is told with its own exit code.
func resolving<Value>(logger: Logger, _ body: () async throws -> Value) async throws -> Value {
    do {
        return try await body()
    } catch let error as ValidationError {
        throw error
    } catch {
        throw failureExit(for: error, logger: logger)
    }
}
