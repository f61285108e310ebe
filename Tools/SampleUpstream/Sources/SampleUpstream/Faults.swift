import Foundation

/// One injected fault: which requests it applies to and what goes wrong.
public struct Fault: Sendable, Equatable, Codable, CustomStringConvertible {
    /// `*` for every route, else a path prefix such as `/tvmaze/shows` (matched against the path
    /// without the query; a missing leading slash is added).
    public var match: String
    public var kind: FaultKind

    public init(match: String = "*", kind: FaultKind) {
        self.match = Fault.normalise(match)
        self.kind = kind
    }

    func applies(to path: String) -> Bool {
        match == "*" || path.hasPrefix(match)
    }

    static func normalise(_ match: String) -> String {
        let m = match.trimmingCharacters(in: .whitespaces)
        if m.isEmpty || m == "*" { return "*" }
        return m.hasPrefix("/") ? m : "/" + m
    }

    public var description: String {
        kind.description + (match == "*" ? "" : "@" + match)
    }

    // JSON shape: {"match": "/tvmaze/shows", "kind": "status", "status": 429, "retryAfter": 5}
    // {"kind": "slowDrip", "ms": 100}   {"kind": "redirect", "status": 302, "location": "http://127.0.0.1:9/x"}
    private enum CodingKeys: String, CodingKey { case match, kind, status, retryAfter, count, ms, location }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let match = try c.decodeIfPresent(String.self, forKey: .match) ?? "*"
        let name = try c.decode(String.self, forKey: .kind)
        let kind: FaultKind
        switch FaultKind.canonicalName(name) {
        case "status":
            kind = .status(try c.decode(Int.self, forKey: .status), retryAfter: try c.decodeIfPresent(Int.self, forKey: .retryAfter))
        case "failNext":
            kind = .failNext(try c.decodeIfPresent(Int.self, forKey: .count) ?? 1, status: try c.decodeIfPresent(Int.self, forKey: .status) ?? 503)
        case "latency":
            kind = .latency(milliseconds: try c.decode(Int.self, forKey: .ms))
        case "noAnswer": kind = .noAnswer
        case "resetMidBody": kind = .resetMidBody
        case "truncated": kind = .truncated
        case "malformedJSON": kind = .malformedJSON
        case "wrongContentType": kind = .wrongContentType
        case "htmlBody": kind = .htmlBody
        case "slowDrip":
            kind = .slowDrip(milliseconds: try c.decodeIfPresent(Int.self, forKey: .ms) ?? FaultKind.defaultDripMilliseconds)
        case "redirect":
            kind = .redirect(try c.decodeIfPresent(Int.self, forKey: .status) ?? 302, location: try c.decode(String.self, forKey: .location))
        case "dropAfterWrite": kind = .dropAfterWrite
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "unknown fault kind \(name)")
        }
        self.init(match: match, kind: kind)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(match, forKey: .match)
        try c.encode(kind.jsonName, forKey: .kind)
        switch kind {
        case .status(let code, let retryAfter):
            try c.encode(code, forKey: .status)
            try c.encodeIfPresent(retryAfter, forKey: .retryAfter)
        case .failNext(let count, let status):
            try c.encode(count, forKey: .count)
            try c.encode(status, forKey: .status)
        case .latency(let ms), .slowDrip(let ms):
            try c.encode(ms, forKey: .ms)
        case .redirect(let status, let location):
            try c.encode(status, forKey: .status)
            try c.encode(location, forKey: .location)
        default: break
        }
    }
}

public enum FaultKind: Sendable, Equatable, CustomStringConvertible {
    /// Always answer this status with a small JSON error body; `retryAfter` adds `Retry-After`.
    case status(Int, retryAfter: Int? = nil)
    /// The next `count` matching requests fail with `status`, then the route recovers.
    case failNext(Int, status: Int = 503)
    /// Delay before answering; adds up with other latency faults and combines with any other kind.
    case latency(milliseconds: Int)
    /// Hold the request without answering until the client gives up (capped so the server can stop).
    case noAnswer
    /// Headers with the full Content-Length, half the body, then an abortive close (TCP RST).
    case resetMidBody
    /// Headers with the full Content-Length, part of the body, then an orderly close (FIN).
    case truncated
    /// 200 with the first 60% of the body, and a Content-Length that matches what is sent.
    case malformedJSON
    /// The real body, labelled `Content-Type: text/html`.
    case wrongContentType
    /// 200 with `Content-Type: text/html` and a small HTML error page instead of the real body.
    case htmlBody
    /// The real headers (full Content-Length), then the body one byte every `milliseconds`:
    /// a server that never goes silent long enough for a read timeout, yet never finishes.
    case slowDrip(milliseconds: Int)
    /// Answer `status` (301, 302, 303, 307 or 308) with `Location: location` instead of the
    /// route: a redirect to another path, or to another server.
    case redirect(Int, location: String)
    /// A write (the catalog's notes) is applied, then the connection is reset before any of
    /// the answer is sent: the lost answer a client must retry with the same
    /// `Idempotency-Key`. A read it matches gets no answer either.
    case dropAfterWrite

    /// A slow drip's pace when none is given: 100 ms a byte (10 bytes/s).
    public static let defaultDripMilliseconds = 100

    var jsonName: String {
        switch self {
        case .status: "status"
        case .failNext: "failNext"
        case .latency: "latency"
        case .noAnswer: "noAnswer"
        case .resetMidBody: "resetMidBody"
        case .truncated: "truncated"
        case .malformedJSON: "malformedJSON"
        case .wrongContentType: "wrongContentType"
        case .htmlBody: "htmlBody"
        case .slowDrip: "slowDrip"
        case .redirect: "redirect"
        case .dropAfterWrite: "dropAfterWrite"
        }
    }

    /// Accepts both the JSON names and the text-spec names (`fail-next`, `reset`, ...).
    static func canonicalName(_ name: String) -> String? {
        switch name.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "") {
        case "status": "status"
        case "failnext": "failNext"
        case "latency", "delay": "latency"
        case "noanswer", "hang": "noAnswer"
        case "resetmidbody", "reset": "resetMidBody"
        case "truncated", "truncate": "truncated"
        case "malformedjson", "malformed": "malformedJSON"
        case "wrongcontenttype": "wrongContentType"
        case "htmlbody", "html": "htmlBody"
        case "slowdrip", "drip": "slowDrip"
        case "redirect": "redirect"
        case "dropafterwrite": "dropAfterWrite"
        default: nil
        }
    }

    /// The text-spec form, so a logged fault can be pasted back as a spec.
    public var description: String {
        switch self {
        case .status(let code, let retryAfter): "status=\(code)" + (retryAfter.map { ":\($0)" } ?? "")
        case .failNext(let count, let status): "fail-next=\(count)" + (status == 503 ? "" : ":\(status)")
        case .latency(let ms): "latency=\(ms)ms"
        case .noAnswer: "no-answer"
        case .resetMidBody: "reset-mid-body"
        case .truncated: "truncated"
        case .malformedJSON: "malformed-json"
        case .wrongContentType: "wrong-content-type"
        case .htmlBody: "html-body"
        case .slowDrip(let ms): "slow-drip=\(ms)ms"
        case .redirect(let status, let location): "redirect=" + (status == 302 ? "" : "\(status):") + location
        case .dropAfterWrite: "drop-after-write"
        }
    }
}

public struct FaultSpecError: Error, CustomStringConvertible, Equatable {
    public var spec: String
    public var reason: String
    public var description: String { "invalid fault spec '\(spec)': \(reason)" }
}

/// The compact text form used on command lines:
///
///     KIND[=VALUE][@MATCH]      several may be joined with commas
///
///     status=503@tvmaze/shows   status=429:5 (Retry-After 5 s)   fail-next=2   fail-next=2:500
///     latency=200ms  latency=1.5s  latency=200   no-answer   reset-mid-body (or reset)
///     truncated   malformed-json   wrong-content-type   html-body
///     slow-drip (a byte every 100 ms)   slow-drip=50ms
///     redirect=http://127.0.0.1:8081/brastlewark/data.json@brastlewark   redirect=307:/brastlewark/data.json
///     drop-after-write@catalog/notes (the write applied, the answer never sent)
///
/// MATCH is a path prefix (leading slash optional) or `*`; without `@MATCH` the fault applies to all.
/// A redirect's URL may hold `@` (userinfo) only when an `@MATCH` follows: the last `@` starts MATCH.
public enum FaultSpec {
    public static func parse(_ text: String) throws -> [Fault] {
        try text.split(separator: ",").map { try parseOne(String($0).trimmingCharacters(in: .whitespaces)) }
    }

    public static func parse(_ specs: [String]) throws -> [Fault] {
        try specs.flatMap { try parse($0) }
    }

    private static func parseOne(_ spec: String) throws -> Fault {
        func fail(_ reason: String) -> FaultSpecError { FaultSpecError(spec: spec, reason: reason) }
        var body = Substring(spec)
        var match = "*"
        // The last `@`: a redirect URL may carry userinfo (`redirect=http://u:p@host/x@/brastlewark`).
        // No other kind's value holds an `@`, so for them first and last are the same.
        let isRedirect = FaultKind.canonicalName(String(body.prefix { $0 != "=" && $0 != "@" })) == "redirect"
        if let at = isRedirect ? body.lastIndex(of: "@") : body.firstIndex(of: "@") {
            match = String(body[body.index(after: at)...])
            body = body[..<at]
            if match.isEmpty { throw fail("empty match after @") }
        }
        let parts = body.split(separator: "=", maxSplits: 1).map(String.init)
        guard let name = parts.first, let canonical = FaultKind.canonicalName(name) else {
            throw fail("unknown fault kind")
        }
        let value = parts.count > 1 ? parts[1] : nil
        func ints(_ v: String) throws -> [Int] {
            try v.split(separator: ":").map { s in
                guard let n = Int(s), n >= 0 else { throw fail("'\(s)' is not a non-negative integer") }
                return n
            }
        }
        let kind: FaultKind
        switch canonical {
        case "status":
            guard let v = value else { throw fail("status needs a code, e.g. status=503") }
            let n = try ints(v)
            guard (1...2).contains(n.count), (100...599).contains(n[0]) else { throw fail("expected CODE[:RETRY_AFTER]") }
            kind = .status(n[0], retryAfter: n.count > 1 ? n[1] : nil)
        case "failNext":
            let n = try ints(value ?? "1")
            guard (1...2).contains(n.count), n.count == 1 || (100...599).contains(n[1]) else { throw fail("expected COUNT[:STATUS]") }
            kind = .failNext(n[0], status: n.count > 1 ? n[1] : 503)
        case "latency":
            guard let v = value, let ms = parseDuration(v) else { throw fail("expected a duration such as 200ms or 1.5s") }
            kind = .latency(milliseconds: ms)
        case "noAnswer": kind = .noAnswer
        case "resetMidBody": kind = .resetMidBody
        case "truncated": kind = .truncated
        case "malformedJSON": kind = .malformedJSON
        case "htmlBody": kind = .htmlBody
        case "slowDrip":
            guard let ms = value.map(parseDuration) ?? FaultKind.defaultDripMilliseconds, ms >= 1 else {
                throw fail("expected the pause between bytes, such as 50ms (at least 1 ms)")
            }
            kind = .slowDrip(milliseconds: ms)
        case "redirect":
            guard var v = value, !v.isEmpty else { throw fail("redirect needs a location, e.g. redirect=http://127.0.0.1:8081/x") }
            var status = 302
            // `307:URL`: a status first, told apart from a URL's scheme by being three digits.
            if let colon = v.firstIndex(of: ":"), let code = Int(v[..<colon]), v.distance(from: v.startIndex, to: colon) == 3 {
                guard [301, 302, 303, 307, 308].contains(code) else { throw fail("a redirect status is 301, 302, 303, 307 or 308, not \(code)") }
                status = code
                v = String(v[v.index(after: colon)...])
            }
            kind = .redirect(status, location: v)
        case "dropAfterWrite": kind = .dropAfterWrite
        default: kind = .wrongContentType
        }
        if value != nil && !["status", "failNext", "latency", "slowDrip", "redirect"].contains(canonical) {
            throw fail("this fault takes no value")
        }
        return Fault(match: match, kind: kind)
    }

    private static func parseDuration(_ text: String) -> Int? {
        let t = text.lowercased()
        if t.hasSuffix("ms"), let v = Double(t.dropLast(2)), v >= 0 { return Int(v) }
        if t.hasSuffix("s"), let v = Double(t.dropLast(1)), v >= 0 { return Int(v * 1000) }
        if let v = Int(t), v >= 0 { return v }
        return nil
    }
}

/// Active faults plus the remaining budget of each `failNext`, which is consumed per request.
struct FaultPlan: Sendable {
    private(set) var faults: [Fault] = []
    private var remaining: [Int: Int] = [:]

    init(_ faults: [Fault] = []) { set(faults) }

    mutating func set(_ faults: [Fault]) {
        self.faults = faults
        remaining = [:]
        for (i, f) in faults.enumerated() {
            if case .failNext(let n, _) = f.kind { remaining[i] = n }
        }
    }

    /// Decide what happens to one request; consumes one unit of a matching `failNext`.
    mutating func decide(path: String) -> FaultDecision {
        var decision = FaultDecision()
        for (i, fault) in faults.enumerated() where fault.applies(to: path) {
            switch fault.kind {
            case .latency(let ms):
                decision.latencyMilliseconds += ms
                decision.applied.append(fault.description)
            case .failNext(_, let status):
                // Only the first failing rule decides; the others keep their budget.
                guard decision.failure == nil, let left = remaining[i], left > 0 else { continue }
                remaining[i] = left - 1
                decision.failure = .status(status, retryAfter: nil)
                decision.applied.append(fault.kind.description + " (\(left - 1) left)")
            case .status:
                guard decision.failure == nil else { continue }
                decision.failure = fault.kind
                decision.applied.append(fault.description)
            case .noAnswer, .resetMidBody, .truncated, .malformedJSON, .wrongContentType, .htmlBody, .slowDrip, .redirect, .dropAfterWrite:
                guard decision.failure == nil else { continue }
                decision.failure = fault.kind
                decision.applied.append(fault.description)
            }
        }
        return decision
    }
}

struct FaultDecision: Sendable {
    var latencyMilliseconds = 0
    /// Any kind other than latency and failNext (failNext is turned into `.status`).
    var failure: FaultKind?
    var applied: [String] = []
    var summary: String? { applied.isEmpty ? nil : applied.joined(separator: ", ") }
}
