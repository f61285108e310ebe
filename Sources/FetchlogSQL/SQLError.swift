import FetchlogSQLite

/// Why a statement was not answered: refused (it would change something, or is not a query),
/// not valid SQL (SQLite's message, with what exists for an unknown table or column), stopped
/// at its time limit or by Ctrl-C, grown past its byte cap, or naming a saved view that no longer compiles.
public struct SQLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure.
    public enum Kind: Sendable, Equatable {
        /// The statement would change something, or is not one a query may run: nothing ran.
        case refused
        /// SQLite could not compile or run it (its message says why).
        case invalid
        /// It ran past the time limit and was stopped.
        case timeLimit
        /// Interrupted (Ctrl-C, a cancelled task).
        case interrupted
        /// The answer grew past the bytes it may take (an API answer's cap, a saved view's
        /// bound): nothing past the cap was kept; ask for fewer rows or columns.
        case tooLarge
    }
    /// What kind of failure.
    public let kind: Kind
    /// What happened and what to do.
    public let message: String

    /// An error of `kind` saying `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
