/// Durations as people type them: a whole number and a unit (`45s`, `90m`, `12h`, `30d`, `2w`).
package enum DurationText {
    /// The duration in seconds; nil when it is not one.
    package static func seconds(_ text: String) -> Int? {
        guard let unit = text.last, let number = Int(text.dropLast()), number >= 0 else { return nil }
        let scale: Int
        switch unit {
        case "s": scale = 1
        case "m": scale = 60
        case "h": scale = 3600
        case "d": scale = 86_400
        case "w": scale = 604_800
        default: return nil
        }
        let (seconds, overflow) = number.multipliedReportingOverflow(by: scale)
        return overflow ? nil : seconds
    }
}
