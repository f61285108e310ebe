/// HTTP-date (RFC 9110 §5.6.7) to and from seconds since the Unix epoch.
///
/// Three forms are read: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, the only one a
/// sender generates) and the obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and
/// asctime (`Sun Nov  6 08:49:37 1994`) forms a recipient must still accept. Names of days,
/// months and `GMT` match case-insensitively (RFC 9111 §4.2.1 asks a cache to), but the
/// layout is strict: a zone other than GMT, a missing comma, doubled spaces, a one-digit
/// hour or a two-digit year in IMF-fixdate make the date invalid, and an invalid `Expires`
/// means "already expired" (RFC 9111 §5.3) — guessing at a malformed date could make a
/// response fresh its origin never meant to be. The weekday is not checked against the
/// date: it adds nothing a cache needs.
package enum HTTPDate {
    /// Seconds since the epoch of `text`, or nil when it is not an HTTP-date.
    /// `reference` (seconds since the epoch, e.g. when the response arrived) resolves the
    /// two-digit years of the RFC 850 form: §5.6.7 reads a year more than 50 years ahead of
    /// it as the latest past year with those two digits. Passed in, never read from a clock,
    /// so a stored response parses the same way on every replay.
    package static func parse(_ text: String, reference: Int64) -> Int64? {
        let bytes = Array(text.utf8)
        return imfFixdate(bytes) ?? rfc850(bytes, reference: reference) ?? asctime(bytes)
    }

    /// `seconds` as IMF-fixdate.
    package static func format(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let weekday = Int((days % 7 + 11) % 7) // 1970-01-01 was a Thursday (index 4).
        return "\(shortDays[weekday]), \(two(day)) \(months[month - 1]) \(year) "
            + "\(two(Int(secondOfDay / 3600))):\(two(Int(secondOfDay / 60 % 60))):\(two(Int(secondOfDay % 60))) GMT"
    }

    static let shortDays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let longDays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    // `Sun, 06 Nov 1994 08:49:37 GMT`
    private static func imfFixdate(_ b: [UInt8]) -> Int64? {
        guard b.count == 29, oneOf(shortDays, b[0 ..< 3]) != nil, b[3] == comma, b[4] == space,
              let day = digits(b[5 ..< 7]), b[7] == space, let month = oneOf(months, b[8 ..< 11]), b[11] == space,
              let year = digits(b[12 ..< 16]), b[16] == space, let time = timeOfDay(b[17 ..< 25]), b[25] == space,
              word("GMT", b[26 ..< 29]) else { return nil }
        return instant(year: year, month: month + 1, day: day, time: time)
    }

    // `Sunday, 06-Nov-94 08:49:37 GMT`
    private static func rfc850(_ b: [UInt8], reference: Int64) -> Int64? {
        guard let commaIndex = b.firstIndex(of: comma), oneOf(longDays, b[..<commaIndex]) != nil else { return nil }
        let rest = b[(commaIndex + 1)...]
        guard rest.count == 23 else { return nil }
        let r = Array(rest)
        guard r[0] == space, let day = digits(r[1 ..< 3]), r[3] == dash, let month = oneOf(months, r[4 ..< 7]), r[7] == dash,
              let yy = digits(r[8 ..< 10]), r[10] == space, let time = timeOfDay(r[11 ..< 19]), r[19] == space,
              word("GMT", r[20 ..< 23]) else { return nil }
        let referenceYear = civil(fromDays: reference >= 0 ? reference / 86_400 : (reference - 86_399) / 86_400).year
        var year = referenceYear - referenceYear % 100 + yy
        if year > referenceYear + 50 { year -= 100 } else if year + 100 <= referenceYear + 50 { year += 100 }
        return instant(year: year, month: month + 1, day: day, time: time)
    }

    // `Sun Nov  6 08:49:37 1994`
    private static func asctime(_ b: [UInt8]) -> Int64? {
        guard b.count == 24, oneOf(shortDays, b[0 ..< 3]) != nil, b[3] == space, let month = oneOf(months, b[4 ..< 7]),
              b[7] == space else { return nil }
        let day: Int
        if b[8] == space, let single = digits(b[9 ..< 10]) { day = single } else if let double = digits(b[8 ..< 10]) { day = double } else { return nil }
        guard b[10] == space, let time = timeOfDay(b[11 ..< 19]), b[19] == space, let year = digits(b[20 ..< 24]) else { return nil }
        return instant(year: year, month: month + 1, day: day, time: time)
    }

    private static let space = UInt8(ascii: " "), comma = UInt8(ascii: ","), dash = UInt8(ascii: "-"), colon = UInt8(ascii: ":")

    private static func digits(_ slice: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in slice {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return slice.isEmpty ? nil : value
    }

    /// `HH:MM:SS`, two digits each; a second of 60 is a leap second (§5.6.7 allows it).
    private static func timeOfDay(_ slice: ArraySlice<UInt8>) -> Int64? {
        let t = Array(slice)
        guard t.count == 8, t[2] == colon, t[5] == colon, let h = digits(t[0 ..< 2]), let m = digits(t[3 ..< 5]),
              let s = digits(t[6 ..< 8]), h < 24, m < 60, s <= 60 else { return nil }
        return Int64(h * 3600 + m * 60 + s)
    }

    private static func word(_ expected: String, _ slice: ArraySlice<UInt8>) -> Bool {
        String(decoding: slice, as: UTF8.self).caseInsensitiveEquals(expected)
    }

    private static func oneOf(_ words: [String], _ slice: ArraySlice<UInt8>) -> Int? {
        let text = String(decoding: slice, as: UTF8.self)
        return words.firstIndex { $0.caseInsensitiveEquals(text) }
    }

    private static func instant(year: Int, month: Int, day: Int, time: Int64) -> Int64? {
        guard day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        return days(year: year, month: month, day: day) * 86_400 + time
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day count since 1970-01-01 (`civil_from_days`).
    private static func civil(fromDays count: Int64) -> (year: Int, month: Int, day: Int) {
        let z = count + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }

    private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
