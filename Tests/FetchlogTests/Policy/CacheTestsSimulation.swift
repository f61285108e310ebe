// The cache-tests suite (Data/cache-tests/README.md) driven against the HTTP caching policy
// (Sources/FetchlogCore/Policy/HTTPCaching) as a private client cache would use it.
//
// This file names nothing of the test target but the policy's types, so a throwaway runner
// can compile it together with the policy sources alone (no package build); then the
// policy is in the same module and there is nothing to import.
#if canImport(FetchlogCore)
@testable import FetchlogCore
#endif
import Foundation

/// The suite's cases and a simulation of its harness: the suite's own runner sends each
/// case's requests through a proxy (or a browser) to a scripted origin and checks what
/// comes back. Here the "cache" in between is a small client cache built on the policy,
/// the origin is a function of the case's configuration, and the clock is a number: a
/// `pause_after` (the suite sleeps 3 s) advances it by exactly 3000 ms and nothing else
/// moves it — no sleeps, no wall clock, the same result on any machine.
enum CacheTestsSuite {
    enum Kind: String, Sendable { case required, optimal, check }

    /// A header value of the suite: text, or a magic number of seconds from the origin's
    /// "now" that the origin (for date fields) turns into an HTTP-date when it answers.
    enum MagicValue: Sendable, Equatable {
        case text(String)
        case offset(Int)
    }

    struct Field: Sendable {
        var name: String
        var value: MagicValue
        /// The third element of a response header: false means the harness does not
        /// check that the client received it (it is malformed on purpose, say).
        var checked = true
    }

    /// `expected_response_headers`: present, equal to a value, equal to another field,
    /// or an integer greater than a bound.
    enum HeaderExpectation: Sendable {
        case present(String)
        case equals(String, MagicValue)
        case sameAs(String, String)
        case greaterThan(String, Int)
    }

    /// JSON's distinction between a key that is absent and one set to null matters to
    /// the harness (`expected_status: null` means "any status").
    enum Presence<T: Sendable>: Sendable {
        case absent
        case null
        case value(T)
    }

    struct Request: Sendable {
        var method = "GET"
        var requestHeaders: [Field] = []
        var responseStatus: Int?
        var responseHeaders: [Field] = []
        var responseBody: Presence<String> = .absent
        var pauseAfter = false
        var disconnect = false
        var magicLocations = false
        var magicIMS = false
        var rfc850Date: Set<String> = []
        var expectedType: String?
        var expectedStatus: Presence<Int> = .absent
        var expectedResponseHeaders: [HeaderExpectation] = []
        var expectedResponseHeadersMissing: [(name: String, substring: String?)] = []
        var expectedRequestHeaders: [(name: String, value: String?)] = []
        var expectedResponseText: Presence<String> = .absent
        var checkBody: Bool?
        var filename: String?
        var queryArg: String?
        var setup = false
        var setupTests: Set<String> = []
        /// Keys this simulation does not model; their presence decides exclusions.
        var otherKeys: Set<String> = []
    }

    struct Case: Sendable {
        var suite: String
        var id: String
        var name: String
        var kind: Kind
        var browserOnly = false
        var cdnOnly = false
        var browserSkip = false
        var dependsOn: [String] = []
        var requests: [Request] = []
    }

    // MARK: Loading

    static func load(_ path: String) throws -> [Case] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let suites = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { throw LoadError.shape("top level") }
        var cases: [Case] = []
        for suite in suites {
            guard let suiteID = suite["id"] as? String, let tests = suite["tests"] as? [[String: Any]] else { throw LoadError.shape("suite") }
            for test in tests {
                guard let id = test["id"] as? String, let raw = test["requests"] as? [[String: Any]] else { throw LoadError.shape("test") }
                // The suite's results page counts a test without a kind as required.
                var c = Case(suite: suiteID, id: id, name: test["name"] as? String ?? id,
                             kind: Kind(rawValue: test["kind"] as? String ?? "required") ?? .required)
                c.browserOnly = test["browser_only"] as? Bool ?? false
                c.cdnOnly = test["cdn_only"] as? Bool ?? false
                c.browserSkip = test["browser_skip"] as? Bool ?? false
                c.dependsOn = test["depends_on"] as? [String] ?? []
                c.requests = try raw.map(request)
                cases.append(c)
            }
        }
        return cases
    }

    enum LoadError: Error { case shape(String) }

    private static let modelledKeys: Set<String> = [
        "request_method", "request_headers", "response_status", "response_headers", "response_body", "pause_after", "disconnect",
        "magic_locations", "magic_ims", "rfc850date", "expected_type", "expected_status", "expected_response_headers",
        "expected_response_headers_missing", "expected_request_headers", "expected_response_text", "check_body", "filename",
        "query_arg", "setup", "setup_tests",
    ]

    private static func request(_ json: [String: Any]) throws -> Request {
        var r = Request()
        r.method = json["request_method"] as? String ?? "GET"
        r.requestHeaders = try (json["request_headers"] as? [[Any]] ?? []).map(field)
        r.responseStatus = (json["response_status"] as? [Any])?.first.flatMap(integer)
        r.responseHeaders = try (json["response_headers"] as? [[Any]] ?? []).map(field)
        r.responseBody = presence(json, "response_body") { $0 as? String }
        r.pauseAfter = json["pause_after"] as? Bool ?? false
        r.disconnect = json["disconnect"] as? Bool ?? false
        r.magicLocations = json["magic_locations"] as? Bool ?? false
        r.magicIMS = json["magic_ims"] as? Bool ?? false
        r.rfc850Date = Set((json["rfc850date"] as? [String] ?? []).map { $0.lowercased() })
        r.expectedType = json["expected_type"] as? String
        r.expectedStatus = presence(json, "expected_status", integer)
        for item in json["expected_response_headers"] as? [Any] ?? [] {
            if let name = item as? String {
                r.expectedResponseHeaders.append(.present(name))
            } else if let list = item as? [Any], let name = list.first as? String {
                if list.count > 2, let op = list[1] as? String {
                    if op == "=", let other = list[2] as? String { r.expectedResponseHeaders.append(.sameAs(name, other)) }
                    else if op == ">", let bound = integer(list[2]) { r.expectedResponseHeaders.append(.greaterThan(name, bound)) }
                    else { throw LoadError.shape("expected header operator \(op)") }
                } else if list.count == 2 {
                    r.expectedResponseHeaders.append(.equals(name, try magic(list[1])))
                }
            }
        }
        for item in json["expected_response_headers_missing"] as? [Any] ?? [] {
            if let name = item as? String { r.expectedResponseHeadersMissing.append((name, nil)) }
            else if let list = item as? [String], list.count == 2 { r.expectedResponseHeadersMissing.append((list[0], list[1])) }
        }
        for item in json["expected_request_headers"] as? [Any] ?? [] {
            if let name = item as? String { r.expectedRequestHeaders.append((name, nil)) }
            else if let list = item as? [String], list.count == 2 { r.expectedRequestHeaders.append((list[0], list[1])) }
        }
        r.expectedResponseText = presence(json, "expected_response_text") { $0 as? String }
        r.checkBody = json["check_body"] as? Bool
        r.filename = json["filename"] as? String
        r.queryArg = json["query_arg"] as? String
        r.setup = json["setup"] as? Bool ?? false
        r.setupTests = Set(json["setup_tests"] as? [String] ?? [])
        r.otherKeys = Set(json.keys).subtracting(modelledKeys)
        return r
    }

    private static func field(_ list: [Any]) throws -> Field {
        guard list.count >= 2, let name = list[0] as? String else { throw LoadError.shape("header") }
        return Field(name: name, value: try magic(list[1]), checked: list.count > 2 ? (list[2] as? Bool ?? true) : true)
    }

    private static func magic(_ value: Any) throws -> MagicValue {
        if let text = value as? String { return .text(text) }
        if let number = integer(value) { return .offset(number) }
        throw LoadError.shape("header value \(value)")
    }

    private static func integer(_ value: Any) -> Int? {
        if let int = value as? Int { return int }
        if let number = value as? NSNumber { return number.intValue }
        return nil
    }

    private static func presence<T>(_ json: [String: Any], _ key: String, _ convert: (Any) -> T?) -> Presence<T> {
        guard let value = json[key] else { return .absent }
        if value is NSNull { return .null }
        return convert(value).map { .value($0) } ?? .null
    }

    // MARK: Which cases apply to a private client cache

    /// Why a case does not apply to a private client cache (a library that fetches REST
    /// resources with GET and keeps its own responses), or nil when it applies.
    static func exclusion(_ c: Case) -> String? {
        let requestFields = Set(c.requests.flatMap { $0.requestHeaders.map { $0.name.lowercased() } })
        if c.cdnOnly {
            return "CDN only: CDN-Cache-Control (RFC 9213) targets CDNs; a private cache ignores it"
        }
        if c.browserSkip, ["cc-freshness", "cc-response", "stale", "auth"].contains(c.suite) {
            return "shared caches only: s-maxage, proxy-revalidate, private and Authorization bind shared caches"
        }
        if requestFields.contains("if-none-match") || requestFields.contains("if-modified-since") {
            return "preconditions sent by the client: a cache answering (or forwarding) a downstream's conditional request; the client library is the downstream"
        }
        if requestFields.contains("cache-control") || requestFields.contains("pragma") || c.requests.contains(where: { $0.otherKeys.contains("cache") }) {
            return "request directives and reload modes (Cache-Control/Pragma in requests, fetch()'s cache option): a client library does not send them"
        }
        if requestFields.contains("range") {
            return "range requests: the client fetches whole representations; the policy stores no 206"
        }
        if c.requests.contains(where: { $0.method == "HEAD" }) {
            return "HEAD: the client sends no HEAD requests (no freshening by HEAD, RFC 9111 §4.3.5)"
        }
        if c.requests.contains(where: { $0.otherKeys.contains("interim_responses") }) {
            return "interim (1xx) responses: the HTTP client consumes them; they never reach the cache"
        }
        if c.requests.contains(where: { r in r.expectedResponseHeaders.contains { if case .present(let n) = $0 { return n.lowercased() == "warning" }; return false } }) {
            return "Warning generation: RFC 9111 obsoletes the Warning field (§5.5)"
        }
        if c.requests.contains(where: { $0.otherKeys.contains("response_pause") }) {
            return "Age on a response fresh from the network: passing a response through, not a caching decision"
        }
        return nil
    }

    // MARK: The simulation

    /// The simulation starts at 2025-01-01T00:00:00Z: before the suite's fixed "future"
    /// dates (2038, 2050, 2286) and within 50 years of the two-digit year of its RFC 850
    /// date (…-50), as the suite assumes when it runs.
    static let start: Int64 = 1_735_689_600_000
    /// The suite's `pause_after`: three seconds (test-engine/client/utils.mjs).
    static let pause: Int64 = 3000

    /// What the client got for one request.
    struct Delivered {
        var status: Int
        var headers: [FieldLine]
        var body: String

        func value(_ name: String) -> String? {
            let values = headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
            return values.isEmpty ? nil : values.joined(separator: ", ")
        }
    }

    /// What the origin saw, as the harness's server keeps it.
    struct ServerRecord {
        var requestNumber: Int
        var method: String
        var requestHeaders: [FieldLine]
        /// The header values the harness checks the client received: (name as configured, value).
        var checkedResponseHeaders: [(String, String)]
    }

    enum OriginAnswer {
        case response(status: Int, headers: [FieldLine], body: String)
        case disconnected
    }

    /// A stored response and its content (the policy judges the response; the content is
    /// what a reuse hands over).
    struct Entry {
        var response: CachedResponse
        var body: String
    }

    /// A failure of one case: what the harness would have reported, and whether it would
    /// count it as a failed setup step (the suite's `setup` / `setup_tests`).
    struct Failure: Error, CustomStringConvertible {
        var message: String
        var setup: Bool
        var description: String { setup ? "setup: \(message)" : message }
    }

    /// Runs one case; nil when every check of the harness passes.
    static func run(_ c: Case) -> Failure? {
        var simulation = Simulation(testCase: c)
        do {
            try simulation.run()
            return nil
        } catch let failure as Failure {
            return failure
        } catch {
            return Failure(message: "\(error)", setup: false)
        }
    }

    /// One case's run: its origin, its cache, its clock.
    struct Simulation {
        let testCase: Case
        let uuid: String
        var now = CacheTestsSuite.start
        var server: [ServerRecord] = []
        /// The configured response fields of each request the origin answered, magic values
        /// resolved (the harness's server resolves them in place, in the configuration).
        var resolved: [Int: [FieldLine]] = [:]
        var store: [String: [Entry]] = [:]
        var delivered: [Delivered] = []

        init(testCase: Case) {
            self.testCase = testCase
            uuid = "uuid-" + testCase.id
        }

        var requests: [Request] { testCase.requests }

        mutating func run() throws {
            for index in requests.indices {
                let response = handle(index)
                delivered.append(response)
                try checkResponse(index, response)
                if requests[index].pauseAfter { now += CacheTestsSuite.pause }
            }
            try checkServerRequests()
        }

        // MARK: Origin

        func key(_ r: Request) -> String {
            "/test/\(uuid)" + (r.filename.map { "/" + $0 } ?? "") + (r.queryArg.map { "?" + $0 } ?? "")
        }

        static let dateFields: Set<String> = ["date", "expires", "last-modified", "if-modified-since", "if-unmodified-since"]

        /// test-engine/lib/header-fixup.mjs: a date field with a number is that many seconds
        /// from the origin's now; Location fields become URLs under the request's path.
        static func fixup(_ field: Field, serverNow: Int64, base: String, request: Request) -> String {
            let lower = field.name.lowercased()
            var value: String
            switch field.value {
            case .text(let text): value = text
            case .offset(let seconds):
                if dateFields.contains(lower) {
                    value = httpDate(serverNow / 1000 + Int64(seconds), rfc850: request.rfc850Date.contains(lower))
                } else {
                    value = String(seconds)
                }
            }
            if request.magicLocations, lower == "location" || lower == "content-location" {
                value = value.isEmpty ? base : base + "/" + value
            }
            return value
        }

        static func httpDate(_ seconds: Int64, rfc850: Bool) -> String {
            let imf = HTTPDate.format(seconds)
            guard rfc850 else { return imf }
            // `Sun, 06 Nov 1994 08:49:37 GMT` → `Sunday, 06-Nov-94 08:49:37 GMT`
            let long = ["Sun": "Sunday", "Mon": "Monday", "Tue": "Tuesday", "Wed": "Wednesday", "Thu": "Thursday", "Fri": "Friday", "Sat": "Saturday"]
            let parts = imf.split(separator: " ")
            return "\(long[String(parts[0].dropLast())]!), \(parts[1])-\(parts[2])-\(parts[3].suffix(2)) \(parts[4]) GMT"
        }

        /// test-engine/server/handle-test.mjs, for request number `number` (1-based, as the
        /// client's `Req-Num` field says) arriving now with these fields.
        mutating func origin(_ number: Int, method: String, headers: [FieldLine]) -> OriginAnswer {
            let config = requests[number - 1]
            let serverCount = server.count + 1
            var status = config.responseStatus ?? 200
            if let type = config.expectedType, type.hasSuffix("validated"), number >= 2 {
                // The validators of the previous *configured* response: resolved if the
                // origin answered that request, else as configured (a magic number was
                // never turned into a date then, and matches nothing).
                let previous = resolved[number - 1]
                    ?? requests[number - 2].responseHeaders.compactMap { f in if case .text(let t) = f.value { FieldLine(f.name, t) } else { nil } }
                let last = { (name: String) in previous.last { $0.name.lowercased() == name }?.value }
                let header = { (name: String) in headers.first { $0.name.lowercased() == name }?.value }
                status = 999 // "304 Not Generated": the harness expected a conditional request.
                if let lm = last("last-modified"), header("if-modified-since") == lm { status = 304 }
                if let etag = last("etag"), header("if-none-match") == etag { status = 304 }
            }
            let base = key(config).split(separator: "?").first.map(String.init) ?? ""
            var lines = [FieldLine("Server-Base-Url", base), FieldLine("Server-Request-Count", String(serverCount)),
                         FieldLine("Client-Request-Count", String(number)), FieldLine("Server-Now", String(now))]
            var checked: [(String, String)] = []
            var configured: [FieldLine] = []
            for field in config.responseHeaders {
                configured.append(FieldLine(field.name, Self.fixup(field, serverNow: now, base: base, request: config)))
                lines.append(configured.last!)
                if field.checked {
                    let all = lines.filter { $0.name.lowercased() == field.name.lowercased() }.map(\.value).joined(separator: ", ")
                    checked.removeAll { $0.0 == field.name }
                    checked.append((field.name, all))
                }
            }
            if !lines.contains(where: { $0.name.lowercased() == "content-type" }) { lines.append(FieldLine("Content-Type", "text/plain")) }
            // Node's server adds Date unless the response has one.
            if !lines.contains(where: { $0.name.lowercased() == "date" }) { lines.append(FieldLine("Date", HTTPDate.format(now / 1000))) }
            resolved[number] = configured
            server.append(ServerRecord(requestNumber: number, method: method, requestHeaders: headers, checkedResponseHeaders: checked))
            if config.disconnect { return .disconnected }
            var body = ""
            if status != 204, status != 304 {
                if case .value(let text) = config.responseBody, !text.isEmpty { body = text } else { body = uuid }
            }
            return .response(status: status, headers: lines, body: body)
        }

        // MARK: Client cache

        /// The client's fields for request `index`: as configured, with `magic_ims` dates
        /// taken from the previous response's origin time.
        func requestFields(_ index: Int) -> [FieldLine] {
            let config = requests[index]
            let previousNow = index > 0 ? delivered[index - 1].value("Server-Now").flatMap { Int64($0) } : nil
            return config.requestHeaders.map { field in
                if case .offset(let seconds) = field.value {
                    if config.magicIMS, field.name.lowercased() == "if-modified-since", let previousNow {
                        return FieldLine(field.name, Self.fixup(field, serverNow: previousNow, base: "", request: config))
                    }
                    return FieldLine(field.name, String(seconds))
                }
                return FieldLine(field.name, Self.fixup(field, serverNow: now, base: "", request: config))
            }
        }

        static let gatewayError = Delivered(status: 504, headers: [], body: "")

        /// What the client cache does for request `index`: reuse, revalidate or forward.
        mutating func handle(_ index: Int) -> Delivered {
            let config = requests[index]
            let number = index + 1
            let fields = requestFields(index)
            let key = key(config)
            guard config.method == "GET" else {
                // Unsafe methods are written through (§4.4) and may invalidate.
                let answer = origin(number, method: config.method, headers: fields)
                guard case .response(let status, let headers, let body) = answer else { return Self.gatewayError }
                if HTTPCachePolicy.invalidatesStoredResponses(method: config.method, status: status) {
                    store[key] = nil
                    for target in HTTPCachePolicy.invalidationCandidates(headers) where target.hasPrefix("/") {
                        store[target] = nil // A path: same origin by construction.
                    }
                }
                return Delivered(status: status, headers: headers, body: body)
            }
            // The most recently stored response that can answer (§4: the most recent wins).
            let entries = store[key] ?? []
            for position in entries.indices.reversed() {
                let entry = entries[position]
                switch entry.response.decision(for: fields, at: now) {
                case .unusable:
                    continue
                case .fresh:
                    return Delivered(status: entry.response.status, headers: entry.response.headersForReuse(at: now), body: entry.body)
                case .staleWhileRevalidate:
                    let served = Delivered(status: entry.response.status, headers: entry.response.headersForReuse(at: now), body: entry.body)
                    // The background revalidation: it reaches the origin now, and its
                    // answer updates the store, not this response.
                    _ = revalidate(key, position, entry, number: number, fields: fields, validators: entry.response.validators)
                    return served
                case .mustRevalidate(let validators):
                    return revalidate(key, position, entry, number: number, fields: fields, validators: validators)
                }
            }
            return forward(key, number: number, fields: fields)
        }

        /// A request with nothing stored that can answer it.
        mutating func forward(_ key: String, number: Int, fields: [FieldLine]) -> Delivered {
            switch origin(number, method: "GET", headers: fields) {
            case .disconnected:
                return Self.gatewayError
            case .response(let status, let headers, let body):
                keep(key, status: status, headers: headers, body: body, fields: fields)
                return Delivered(status: status, headers: headers, body: body)
            }
        }

        /// A conditional request (or a plain one, without validators) for a stored response.
        mutating func revalidate(_ key: String, _ position: Int, _ entry: Entry, number: Int, fields: [FieldLine],
                                 validators: ConditionalRequest) -> Delivered {
            let sentFields = fields + validators.headers
            let stale = Delivered(status: entry.response.status, headers: entry.response.headersForReuse(at: now), body: entry.body)
            switch origin(number, method: "GET", headers: sentFields) {
            case .disconnected:
                switch entry.response.staleOnError(.unreachable, at: now) {
                case .serve, .serveWhileDisconnected: return stale
                case .mustNotServe: return Self.gatewayError
                }
            case .response(let status, let headers, let body):
                if status == 304, !validators.isEmpty {
                    guard let updated = entry.response.updated(byNotModified: headers, requestHeaders: fields, requestTime: now, responseTime: now) else {
                        return Delivered(status: 502, headers: [], body: "") // A 304 for another representation.
                    }
                    store[key]?[position] = Entry(response: updated, body: entry.body)
                    return Delivered(status: updated.status, headers: updated.headers, body: entry.body)
                }
                if (500 ... 599).contains(status), case .serve = entry.response.staleOnError(.status(status), at: now) {
                    return stale
                }
                keep(key, status: status, headers: headers, body: body, fields: fields)
                return Delivered(status: status, headers: headers, body: body)
            }
        }

        /// Stores a full response when the policy allows, replacing the stored responses
        /// the same request would have selected (the new one supersedes them).
        mutating func keep(_ key: String, status: Int, headers: [FieldLine], body: String, fields: [FieldLine]) {
            let response = CachedResponse(status: status, headers: headers, requestMethod: "GET", requestHeaders: fields,
                                          requestTime: now, responseTime: now)
            guard response.isStorable else { return }
            var entries = store[key] ?? []
            entries.removeAll { $0.response.matchesVary(of: fields) }
            entries.append(Entry(response: response, body: body))
            store[key] = entries
        }

        // MARK: The harness's checks (test-engine/client/test.mjs)

        func isSetup(_ config: Request, _ member: String) -> Bool {
            config.setup || config.setupTests.contains(member)
        }

        func check(_ condition: Bool, _ setup: Bool, _ message: @autoclosure () -> String) throws {
            if !condition { throw Failure(message: message(), setup: setup) }
        }

        func checkResponse(_ index: Int, _ response: Delivered) throws {
            let config = requests[index]
            let number = index + 1
            let served = response.value("Server-Request-Count").flatMap { Int($0) }
            if let type = config.expectedType {
                let setup = isSetup(config, "expected_type")
                if type == "cached", !(response.status == 304 && served == nil) {
                    try check(served.map { $0 < number } ?? false, setup, "response \(number) does not come from cache")
                }
                if type == "not_cached" {
                    try check(served == number, setup, "response \(number) comes from cache")
                }
            }
            switch config.expectedStatus {
            case .value(let status):
                try check(response.status == status, isSetup(config, "expected_status"), "response \(number) status is \(response.status), not \(status)")
            case .null:
                break
            case .absent:
                if let status = config.responseStatus {
                    try check(response.status == status, true, "response \(number) status is \(response.status), not \(status)")
                } else if response.status == 999 {
                    try check(false, isSetup(config, "expected_type"), "request \(number) should have been conditional, but it was not")
                } else {
                    try check(response.status == 200, true, "response \(number) status is \(response.status), not 200")
                }
            }
            let headersSetup = isSetup(config, "expected_response_headers")
            for expectation in config.expectedResponseHeaders {
                switch expectation {
                case .present(let name):
                    try check(response.value(name) != nil, headersSetup, "response \(number) \(name) header not present")
                case .sameAs(let name, let other):
                    try check(response.value(name) != nil && response.value(name) == response.value(other), headersSetup,
                              "response \(number) header \(name) is \(response.value(name) ?? "absent"), should match \(other)")
                case .greaterThan(let name, let bound):
                    let value = response.value(name).flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                    try check(value.map { $0 > bound } ?? false, headersSetup,
                              "response \(number) header \(name) is \(response.value(name) ?? "absent"), should be bigger than \(bound)")
                case .equals(let name, let magic):
                    let serverNow = response.value("Server-Now").flatMap { Int64($0) } ?? now
                    let expected = Self.fixup(Field(name: name, value: magic), serverNow: serverNow, base: "", request: config)
                    try check(response.value(name) == expected, headersSetup,
                              "response \(number) header \(name) is \"\(response.value(name) ?? "absent")\", not \"\(expected)\"")
                }
            }
            let missingSetup = isSetup(config, "expected_response_headers_missing")
            for (name, substring) in config.expectedResponseHeadersMissing {
                if let substring {
                    // The harness's own check of this form never fires (it indexes the
                    // Headers object); this one does: the value must not contain it.
                    try check(!(response.value(name)?.contains(substring) ?? false), missingSetup,
                              "response \(number) header \(name) still has value \"\(substring)\"")
                } else {
                    try check(response.value(name) == nil, missingSetup, "response \(number) includes unexpected header \(name)")
                }
            }
            try checkBody(config, number, response)
        }

        func checkBody(_ config: Request, _ number: Int, _ response: Delivered) throws {
            if config.checkBody == false { return }
            if case .value(let text) = config.expectedResponseText {
                try check(response.body == text, isSetup(config, "expected_response_text"), "response \(number) body is \"\(response.body)\", not \"\(text)\"")
            } else if case .null = config.expectedResponseText {
                return
            } else if case .value(let text) = config.responseBody {
                try check(response.body == text, true, "response \(number) body is \"\(response.body)\", not \"\(text)\"")
            } else if response.status != 204, response.status != 304, config.method != "HEAD" {
                try check(response.body == uuid, true, "response \(number) body is \"\(response.body)\", not the test's identifier")
            }
        }

        /// The harness's comparison of the requests the origin saw with the configuration:
        /// a "cached" request must not have reached it (and takes no slot), a validated one
        /// must have carried the validator, and the fields the origin sent (the checked
        /// ones) must be what the client received.
        func checkServerRequests() throws {
            var slot = 0
            for (index, config) in requests.enumerated() {
                let number = index + 1
                let setup = isSetup(config, "expected_type")
                if config.expectedType == "cached" { continue }
                let record = slot < server.count ? server[slot] : nil
                if config.expectedType == "not_cached" {
                    try check(record?.requestNumber == number, setup, "response \(number) comes from cache (\(record.map { String($0.requestNumber) } ?? "none") on server)")
                }
                var validators: [String] = []
                if config.expectedType == "etag_validated" { validators.append("if-none-match") }
                if config.expectedType == "lm_validated" { validators.append("if-modified-since") }
                slot += 1
                for name in validators {
                    try check(record != nil, setup, "request \(number) wasn't sent to server")
                    try check(record!.requestHeaders.contains { $0.name.lowercased() == name }, setup, "request \(number) doesn't have \(name) header")
                }
                let requestSetup = isSetup(config, "expected_request_headers")
                for (name, value) in config.expectedRequestHeaders {
                    let received = record?.requestHeaders.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
                    let joined = (received?.isEmpty ?? true) ? nil : received!.joined(separator: ", ")
                    if let value {
                        try check(joined == value, requestSetup, "request \(number) header \(name) is \"\(joined ?? "absent")\", not \"\(value)\"")
                    } else {
                        try check(joined != nil, requestSetup, "request \(number) \(name) header not present")
                    }
                }
                for (name, value) in record?.checkedResponseHeaders ?? [] where name.lowercased() != "date" {
                    let received = delivered[index].value(name)
                    try check(received == value, true, "response \(number) header \(name) is \"\(received ?? "absent")\", not \"\(value)\"")
                }
            }
        }
    }

    // MARK: Counting

    struct Summary {
        var excluded: [(id: String, reason: String)] = []
        var applicable: [(id: String, kind: Kind, failure: Failure?)] = []

        var required: [(id: String, kind: Kind, failure: Failure?)] { applicable.filter { $0.kind == .required } }
        var requiredPassing: Int { required.filter { $0.failure == nil }.count }
        var allPassing: Int { applicable.filter { $0.failure == nil }.count }

        func passing(_ kind: Kind) -> Int { applicable.filter { $0.kind == kind && $0.failure == nil }.count }
        func count(_ kind: Kind) -> Int { applicable.filter { $0.kind == kind }.count }

        /// Every count and every failure, for a failure message and the runner.
        var report: String {
            var lines = ["required \(requiredPassing)/\(required.count), optimal \(passing(.optimal))/\(count(.optimal)), "
                + "check \(passing(.check))/\(count(.check)); all applicable \(allPassing)/\(applicable.count); excluded \(excluded.count)"]
            let reasons = Dictionary(grouping: excluded, by: \.reason).mapValues(\.count)
            lines += reasons.keys.sorted().map { "  excluded \(reasons[$0]!): \($0)" }
            for kind in [Kind.required, .optimal, .check] {
                for item in applicable where item.kind == kind {
                    if let failure = item.failure { lines.append("  \(kind.rawValue) \(item.id): \(failure)") }
                }
            }
            return lines.joined(separator: "\n")
        }
    }

    static func summarize(_ cases: [Case]) -> Summary {
        var summary = Summary()
        for c in cases {
            if let reason = exclusion(c) {
                summary.excluded.append((c.id, reason))
            } else {
                summary.applicable.append((c.id, c.kind, run(c)))
            }
        }
        return summary
    }
}
