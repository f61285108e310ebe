import FetchlogLMDB
import Logging

/// The library's logging, for front ends that import only `Fetchlog`: the level of the
/// loggers labelled `fetchlog.fetch` (requests and outcomes: debug; retries and their wait:
/// info), `fetchlog.store` (checkpoints: info/debug; catch-up of other processes' appends:
/// debug) and `fetchlog.lmdb` (map growth: notice). Same as `LibraryLogging` in
/// FetchlogLMDB. Bodies, header values and other secrets are never logged.
package enum FetchlogLogging {
    /// The level library loggers are made with (`.warning` until a program sets it); nil:
    /// the `LoggingSystem` handler's own level. Set it before making stores and fetchers.
    package static var level: Logger.Level? {
        get { LibraryLogging.level }
        set { LibraryLogging.level = newValue }
    }

    /// A logger with `label` at `level` (what the library's own loggers are).
    package static func logger(label: String) -> Logger { LibraryLogging.logger(label: label) }
}
