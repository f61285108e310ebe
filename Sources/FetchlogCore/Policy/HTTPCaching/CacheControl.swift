/// The response directives of `Cache-Control` (RFC 9111 §5.2), read as a private cache
/// reads them.
///
/// Parsing follows the grammar `cache-directive = token [ "=" ( token / quoted-string ) ]`
/// over the list of all `Cache-Control` lines: names compare case-insensitively, an argument
/// may be a token or a quoted string for every directive (§5.2: recipients ought to accept
/// both, so `max-age="3600"` is 3600), and a member that does not fit the grammar
/// (`max-age =3600`, a space before `=`) is not a directive at all. Commas inside a quoted
/// string do not split (`ext="max-age=3600", max-age=1` holds one max-age, 1).
package struct CacheControl: Sendable, Equatable {
    /// A delta-seconds argument (RFC 9111 §1.2.2): valid, or present but unusable.
    package enum DeltaSeconds: Sendable, Equatable {
        /// Seconds, at most 2^31: §1.2.2 has a cache read anything larger (or overflowing)
        /// as 2147483648, "infinity", and never as a negative number.
        case seconds(Int64)
        /// Missing, negative, fractional, single-quoted…: §4.2.1 encourages a cache to
        /// treat a response with invalid freshness information as stale.
        case invalid
    }

    /// `max-age`, first occurrence (§4.2.1: with duplicates, use the first or treat as stale).
    package var maxAge: DeltaSeconds?
    /// `s-maxage`: parsed to be complete, but it binds shared caches only (§5.2.2.10).
    package var sMaxAge: DeltaSeconds?
    /// `no-cache`, qualified or not.
    package var noCache = false
    /// The field names of a qualified `no-cache="a, b"`. A client cache treats the qualified
    /// form as unqualified (§5.2.2.4 notes caches commonly do): dropping named fields from a
    /// reused response would hand the store a response the origin never sent.
    package var noCacheFields: [String] = []
    package var noStore = false
    package var mustRevalidate = false
    /// Binds shared caches only (§5.2.2.8); parsed to be complete.
    package var proxyRevalidate = false
    /// `private`: a private cache may store the response (§5.2.2.7).
    package var isPrivate = false
    package var privateFields: [String] = []
    /// `public`: storable, and heuristically cacheable when it has no explicit freshness.
    package var isPublic = false
    /// `immutable` (RFC 8246): only changes what a user-requested reload does; a client
    /// library never reloads a fresh response, so fresh already means "do not ask".
    package var immutable = false
    /// `must-understand` (§5.2.2.3): store only if the status code's rules are understood,
    /// and then `no-store` beside it is ignored.
    package var mustUnderstand = false
    /// `stale-while-revalidate=N` (RFC 5861 §3), seconds; nil when absent or invalid (an
    /// invalid permission grants nothing).
    package var staleWhileRevalidate: Int64?
    /// `stale-if-error=N` (RFC 5861 §4), seconds; nil when absent or invalid.
    package var staleIfError: Int64?

    /// The greatest delta-seconds value a cache keeps (RFC 9111 §1.2.2).
    package static let deltaSecondsCap: Int64 = 2_147_483_648

    package init() {}

    /// The directives of all `Cache-Control` lines of `headers`.
    package init(_ headers: [FieldLine]) {
        self.init(fieldValues: headers.fieldValues("Cache-Control"))
    }

    /// The directives of these `Cache-Control` field values, in order.
    package init(fieldValues: [String]) {
        var seen = Set<String>()
        for member in fieldValues.flatMap(HTTPList.members) {
            guard let (name, argument) = Self.directive(member) else { continue }
            // Duplicates: the first occurrence counts (RFC 9111 §4.2.1).
            let first = seen.insert(name).inserted
            switch name {
            case "max-age": if first { maxAge = Self.deltaSeconds(argument) }
            case "s-maxage": if first { sMaxAge = Self.deltaSeconds(argument) }
            case "no-cache":
                noCache = true
                if case .value(let fields) = argument { noCacheFields += HTTPList.members(fields) }
            case "no-store": noStore = true
            case "must-revalidate": mustRevalidate = true
            case "proxy-revalidate": proxyRevalidate = true
            case "private":
                isPrivate = true
                if case .value(let fields) = argument { privateFields += HTTPList.members(fields) }
            case "public": isPublic = true
            case "immutable": immutable = true
            case "must-understand": mustUnderstand = true
            case "stale-while-revalidate":
                if first, case .seconds(let s) = Self.deltaSeconds(argument) { staleWhileRevalidate = s }
            case "stale-if-error":
                if first, case .seconds(let s) = Self.deltaSeconds(argument) { staleIfError = s }
            default:
                break // §5.2.3: a cache ignores directives it does not recognise.
            }
        }
    }

    enum Argument: Equatable {
        case none
        case value(String)
        /// `=` followed by something that is neither a token nor one whole quoted string.
        case malformed
    }

    /// One list member as a directive: its lowercased name and argument; nil when the
    /// member does not start with a token followed by `=` or its end.
    static func directive(_ member: String) -> (String, Argument)? {
        let bytes = Array(member.utf8)
        var index = 0
        while index < bytes.count, isTokenCharacter(bytes[index]) { index += 1 }
        guard index > 0 else { return nil }
        let name = String(decoding: bytes[..<index], as: UTF8.self).asciiLowercased
        if index == bytes.count { return (name, .none) }
        guard bytes[index] == UInt8(ascii: "=") else { return nil }
        let rest = Array(bytes[(index + 1)...])
        if rest.first == UInt8(ascii: "\"") {
            guard let unquoted = unquote(rest) else { return (name, .malformed) }
            return (name, .value(unquoted))
        }
        guard !rest.isEmpty, rest.allSatisfy(isTokenCharacter) else { return (name, .malformed) }
        return (name, .value(String(decoding: rest, as: UTF8.self)))
    }

    /// The content of a quoted-string that spans all of `bytes` (RFC 9110 §5.6.4), escapes
    /// resolved; nil when it is unterminated or followed by anything.
    static func unquote(_ bytes: [UInt8]) -> String? {
        var content: [UInt8] = []
        var index = 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") {
                guard index + 1 < bytes.count else { return nil }
                content.append(bytes[index + 1])
                index += 2
            } else if byte == UInt8(ascii: "\"") {
                return index == bytes.count - 1 ? String(decoding: content, as: UTF8.self) : nil
            } else {
                content.append(byte)
                index += 1
            }
        }
        return nil
    }

    static func deltaSeconds(_ argument: Argument) -> DeltaSeconds {
        guard case .value(let text) = argument, let seconds = parseDeltaSeconds(text) else { return .invalid }
        return .seconds(seconds)
    }

    /// `1*DIGIT` (leading zeros allowed: `003600` is 3600), capped at 2^31; nil for anything
    /// else — a sign, a fraction, a letter, whitespace.
    package static func parseDeltaSeconds(_ text: String) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            // Past the cap, further digits cannot bring it back: keep the cap, never overflow.
            value = min(deltaSecondsCap, value * 10 + Int64(byte - UInt8(ascii: "0")))
        }
        return value
    }
}
