import ArgumentParser
import FetchlogCore
import FetchlogSQL

/// The command line's exit statuses, and the one place an error becomes one: every door
/// (a one-shot command, the shell's line, `query`, `log`) asks `of(_:)`, so the same error
/// exits with the same status whichever way it came.
enum ExitStatus {
    /// The command did not do what was asked (an upstream failure, a bad value, an SQL error).
    static let failure: Int32 = 1
    /// The store is damaged (`verify`, `log verify`): salvage or restore.
    static let damaged: Int32 = 2
    /// The store was refused before anything was read (not a store, foreign files, a newer
    /// format, a damaged file): nothing was touched.
    static let refused: Int32 = 3
    /// The command line itself was wrong (sysexits' EX_USAGE): an unknown command, a bad flag,
    /// a refused SQL statement.
    static let usage: Int32 = 64
    /// Another process does this already (a second `sync` on a store): try again later
    /// (sysexits' EX_TEMPFAIL). Not a failure: the running one does the work.
    static let busy: Int32 = 75
    /// Ctrl-C: cancelled, as a shell reports a process ended by SIGINT.
    static let interrupted: Int32 = 130

    /// What the command line says for `error`, and the status it exits with.
    static func of(_ error: any Error) -> CommandError {
        switch error {
        case let error as CommandError:
            return error
        case let error as StoreError:
            return CommandError(message: error.description, status: refusesTheStore(error) ? refused : failure)
        case let error as MaintenanceError:
            if case .cancelled(let reason) = error { return CommandError(message: reason, status: interrupted) }
            return .failed(error.description)
        case let error as SyncClaim.Held:
            return CommandError(message: error.description, status: busy)
        case let error as ClockSettingError:
            return .usage(error.description)
        case let error as ValidationError:
            // What the command line refuses after parsing (a bad value found late): a usage error.
            return .usage(error.message)
        case let error as SQLError:
            switch error.kind {
            case .interrupted: return CommandError(message: error.message, status: interrupted)
            case .refused: return CommandError(message: error.message, status: usage)
            default: return CommandError(message: error.message, status: failure)
            }
        default:
            return .failed("\(error)")
        }
    }

    /// A store the command line refused to open: what it found is not a store it can read.
    private static func refusesTheStore(_ error: StoreError) -> Bool {
        switch error {
        case .notADirectory, .foreignFiles, .lockFileWithoutData, .notLMDB, .truncatedDataFile, .foreignLMDB,
             .newerFormat, .damagedMetadata, .damagedFile, .danglingLink, .notAccessible:
            true
        default:
            false
        }
    }
}
