/// `Retry-After` as the log reads it (RFC 9110 §10.2.3): delay seconds or an HTTP date,
/// turned into the moment the upstream may be asked again, counted from when the answer was
/// recorded — a pure function of the event, so a replay plans the same wait.
package enum RetryAfterHeader {
    /// The longest wait taken from an upstream's word: a date far off is a mistake more
    /// often than a plan, and a sync should look again within a day.
    static let longest: Int64 = 24 * 3_600_000

    /// When the upstream may be asked again, at most a day after `recorded`; nil when
    /// `value` is neither form.
    package static func until(_ value: String, at recorded: Timestamp) -> Timestamp? {
        delay(value, at: recorded).map { recorded.adding(milliseconds: min($0, longest)) }
    }

    /// How long to wait from `now`, in milliseconds (0 for a date already past); nil when
    /// `value` is neither form. Seconds may carry a fraction (`1.5`), as some servers send.
    package static func delay(_ value: String, at now: Timestamp) -> Int64? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(text), seconds >= 0 {
            return seconds * 1000 >= Double(Int64.max) ? Int64.max : Int64(seconds * 1000)
        }
        guard let date = HTTPDate.parse(text, reference: now.milliseconds / 1000) else { return nil }
        return max(0, date * 1000 - now.milliseconds)
    }
}
