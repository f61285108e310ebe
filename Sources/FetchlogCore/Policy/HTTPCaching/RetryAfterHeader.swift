/// `Retry-After` as the log reads it (RFC 9110 §10.2.3): delay seconds or an HTTP date,
/// turned into the moment the upstream may be asked again, counted from when the answer was
/// recorded — a pure function of the event, so a replay plans the same wait.
package enum RetryAfterHeader {
    /// The longest wait taken from an upstream's word: a date far off is a mistake more
    /// often than a plan, and a sync should look again within a day.
    static let longest: Int64 = 24 * 3_600_000

    /// When the upstream may be asked again; nil when `value` is neither form.
    package static func until(_ value: String, at recorded: Timestamp) -> Timestamp? {
        let text = value.trimmingCharacters(in: .whitespaces)
        let wait: Int64
        if let seconds = Int64(text), seconds >= 0 {
            wait = seconds.multipliedReportingOverflow(by: 1000).overflow ? longest : seconds * 1000
        } else if let date = HTTPDate.parse(text, reference: recorded.milliseconds / 1000) {
            wait = date * 1000 - recorded.milliseconds
        } else {
            return nil
        }
        return recorded.adding(milliseconds: min(max(0, wait), longest))
    }
}
