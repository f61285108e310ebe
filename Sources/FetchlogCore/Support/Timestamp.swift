import Foundation
import Synchronization

/// Milliseconds since the Unix epoch, UTC. Integral so replay is exact.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var milliseconds: Int64
    /// The time `milliseconds` after the epoch.
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }
    /// `date`, rounded to the millisecond.
    public init(_ date: Date) { milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// The time as a Foundation `Date`.
    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    /// Earlier first.
    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.milliseconds < b.milliseconds }

    /// `2026-11-22T07:10:00.000Z`: fixed width, always milliseconds, always UTC.
    public var iso8601: String {
        var seconds = milliseconds / 1000
        var ms = milliseconds % 1000
        if ms < 0 { ms += 1000; seconds -= 1 }
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(ms), 3))Z"
    }

    /// Parses ISO 8601 with or without fractional seconds, `Z` or an offset.
    public init?(iso8601 text: String) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { self.init(date); return }
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { self.init(date); return }
        return nil
    }

    /// The ISO 8601 text.
    public var description: String { iso8601 }
}

/// Where wall-clock time comes from: what events are stamped with and freshness is judged
/// by. The engine never reads the system clock directly. (Not `Clock`: that is the standard
/// library's protocol for measuring durations, which the engine uses too.)
public protocol WallClock: Sendable {
    /// The time now, as this clock tells it.
    func now() -> Timestamp
}

/// The system's wall clock.
public struct SystemClock: WallClock {
    /// The system clock.
    public init() {}
    /// The system's time now.
    public func now() -> Timestamp { Timestamp(Date()) }
}

/// A clock that says what it is told; for tests and `FETCHLOG_NOW`.
public final class FixedClock: WallClock, Sendable {
    private let current: Mutex<Timestamp>
    /// A clock reading `start` until set or advanced.
    public init(_ start: Timestamp) { current = Mutex(start) }
    /// The time it was told.
    public func now() -> Timestamp { current.withLock { $0 } }
    /// Makes the clock read `value` from now on.
    public func set(_ value: Timestamp) { current.withLock { $0 = value } }
    /// Moves the clock forward by `milliseconds`.
    public func advance(milliseconds: Int64) { current.withLock { $0.milliseconds += milliseconds } }
}
