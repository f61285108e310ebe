/// One SQL value as SQLite holds it: its five storage classes.
public enum SQLiteValue: Sendable, Equatable, Hashable {
    /// `NULL`.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob([UInt8])
}
