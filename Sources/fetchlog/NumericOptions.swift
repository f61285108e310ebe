import ArgumentParser
import FetchlogCore
import Foundation

/// The numbers the command line takes (issue 44): every numeric option reads its value
/// through one of these, so `inf`, `nan`, a negative, a number past the option's range or
/// no number at all is a usage error (exit 64) naming the option and its range — never a
/// trap later (`Duration.milliseconds(Int64(1e19 * 1000))` is SIGILL). The shell parses its
/// commands with the same parsers, so it refuses them alike.
///
///     @Option(help: "…", transform: Bounded.seconds("--timeout")) var timeout: Double?
///
/// ArgumentParser reports a refusal as "The value 'inf' is invalid for '--timeout
/// <seconds>': --timeout takes seconds from 0.001 to 86400".
enum Bounded {
    /// Timeouts, deadlines and caps: a millisecond to a day.
    static let secondsRange: ClosedRange<Double> = 0.001 ... 86_400
    /// A TCP port: 0 picks a free one.
    static let portRange: ClosedRange<Int> = 0 ... 65_535
    /// The longest `--retain` and `--older-than` take: 100 years of 365 days.
    static let longestDuration = 36_500 * 86_400

    /// What an option's refusal says: "--timeout takes seconds from 0.001 to 86400".
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    /// A number of seconds in `range` (a decimal: 0.5, 10, 1e2), for `name`.
    static func seconds(_ name: String, _ range: ClosedRange<Double> = secondsRange) -> @Sendable (String) throws -> Double {
        { text in try checkedSeconds(text, name, range) }
    }

    static func checkedSeconds(_ text: String, _ name: String, _ range: ClosedRange<Double> = secondsRange) throws -> Double {
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw Refusal(description: "\(name) takes seconds from \(number(range.lowerBound)) to \(number(range.upperBound))")
        }
        return value
    }

    /// A whole number in `range`, for `name`; `unit` says what it counts ("bytes").
    static func whole<T: FixedWidthInteger & Sendable>(_ name: String, _ range: ClosedRange<T>, _ unit: String = "")
        -> @Sendable (String) throws -> T {
        { text in try checkedWhole(text, name, range, unit) }
    }

    static func checkedWhole<T: FixedWidthInteger>(_ text: String, _ name: String, _ range: ClosedRange<T>, _ unit: String = "") throws -> T {
        guard let value = T(text), range.contains(value) else {
            throw Refusal(description: "\(name) takes \(unit.isEmpty ? "a whole number" : unit) from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// A seq: a whole number from `lowest` (0 is the empty store), for `name`.
    static func seq(_ name: String, from lowest: UInt64 = 0) -> @Sendable (String) throws -> UInt64 {
        { text in try checkedSeq(text, name, from: lowest) }
    }

    static func checkedSeq(_ text: String, _ name: String, from lowest: UInt64 = 0) throws -> UInt64 {
        guard let value = UInt64(text), value >= lowest else {
            throw Refusal(description: "\(name) takes a seq, a whole number from \(lowest) to \(UInt64.max) (log stats shows the last)")
        }
        return value
    }

    /// `--retain` and `--older-than`: a number and a unit (30d, 12h, 90m, 45s, 2w), from 0s to
    /// 36500d; its seconds, or a usage error naming the range.
    static func durationText(_ text: String, _ name: String) throws -> Int {
        guard let seconds = DurationText.seconds(text), seconds <= longestDuration else {
            throw ValidationError("\(name) takes a duration from 0s to \(longestDuration / 86_400)d, a number and a unit, s m h d or w (30d, 12h), not '\(text)'")
        }
        return seconds
    }

    /// `seconds` as a Duration, to the millisecond: checked by `seconds(_:)` first, so it
    /// cannot overflow; a value that slipped past is clamped to the range, never trapped on.
    static func duration(seconds: Double) -> Duration {
        let clamped = seconds.isNaN ? secondsRange.lowerBound : min(max(seconds, secondsRange.lowerBound), secondsRange.upperBound)
        return .milliseconds(Int64((clamped * 1000).rounded()))
    }

    /// 0.001, 10, 86400: as people write them.
    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int64(value)) : String(value)
    }
}
