import Logging
import Synchronization

/// The levels of Fetchlog's library loggers (labels `fetchlog.fetch`, `fetchlog.lmdb`,
/// `fetchlog.store`), which log through swift-log.
///
/// Each library logger is made with `LibraryLogging.logger(label:)`: the handler is the one
/// `LoggingSystem` gives (stderr unless the program bootstrapped another), at `level`. The
/// level starts at `.warning` so a program that never asks sees nothing from the library on
/// its output; a front end sets it from its `-v`/`--quiet`/`FETCHLOG_LOG_LEVEL` before
/// opening stores and fetchers (loggers take the level when they are made). nil leaves the
/// handler's own level.
public enum LibraryLogging {
    private static let storage = Mutex<Logger.Level?>(.warning)

    /// The level library loggers are made with; nil: the handler's own level.
    public static var level: Logger.Level? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    /// A logger with `label` at `level`.
    public static func logger(label: String) -> Logger {
        var logger = Logger(label: label)
        if let level { logger.logLevel = level }
        return logger
    }
}
