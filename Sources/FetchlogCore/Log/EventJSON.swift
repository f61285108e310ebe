import Foundation

/// One event as a JSON object: the line format of `log export` / `log import`
/// (Schemas/event.schema.json).
///
/// The body is `{"encoding":"utf8","text":…,"size":N}` when its bytes are valid
/// UTF-8 (the text is exactly those bytes), else `{"encoding":"base64","data":…,"size":N}`.
/// A body `log compact` dropped is `{"encoding":"compacted","sha256":…,"crc32c":…,"size":N}`.
/// `origin` (`{"store":ID,"seq":N}`) names where the event was first recorded: the
/// exporting store and the seq for its own events, the recorded origin for merged ones.
/// `checksum` is the CRC-32C of the event's binary envelope with that origin, so an import
/// proves it rebuilt the very same record.
package enum EventJSON {
    /// `store`: the exporting store's id, the origin of its own events (nil: none written,
    /// the form of exports before origins).
    package static func value(of event: Event, store: String? = nil) -> JSONValue {
        var event = event
        if event.origin == nil, let store { event.origin = Event.Origin(store: store, seq: event.seq) }
        func headers(_ list: [Header]) -> JSONValue {
            .array(list.map { .object([("name", .string($0.name)), ("value", .string($0.value))]) })
        }
        var members: [(String, JSONValue)] = [
            ("seq", .number(event.seq)),
            ("recordedAt", .string(event.recordedAt.iso8601)),
            ("kind", .string(event.kind.name)),
            ("source", .string(event.source)),
            ("label", .string(event.label)),
            ("attempt", .number(event.attempt)),
            ("durationMicros", event.durationMicros.map { .number($0) } ?? .null),
        ]
        members.append(("request", event.request.map {
            var request: [(String, JSONValue)] = [("method", .string($0.method)), ("url", .string($0.url)), ("headers", headers($0.headers))]
            // Only a request that sent a body has the member: older exports stay byte for byte.
            if let body = $0.body { request.append(("body", bodyValue(body))) }
            return .object(request)
        } ?? .null))
        members.append(("response", event.response.map {
            .object([("status", .number($0.status)), ("headers", headers($0.headers))])
        } ?? .null))
        members.append(("failure", event.failure.map {
            .object([("class", .string($0.failureClass.name)), ("message", .string($0.message))])
        } ?? .null))
        if let compacted = event.compactedBody {
            members.append(("body", .object([("encoding", .string("compacted")), ("sha256", .string(SHA256.hex(digest: compacted.sha256))),
                                             ("crc32c", .string(hex32(compacted.crc32c))), ("size", .number(compacted.size))])))
        } else {
            members.append(("body", event.body.map(bodyValue) ?? .null))
        }
        if let origin = event.origin {
            members.append(("origin", .object([("store", .string(origin.store)), ("seq", .number(origin.seq))])))
        }
        members.append(("checksum", .string(checksum(of: event))))
        return .object(members)
    }

    /// One NDJSON line (canonical JSON, no newline).
    package static func line(for event: Event, store: String? = nil) -> String { value(of: event, store: store).canonicalText() }

    static func bodyValue(_ body: [UInt8]) -> JSONValue {
        if let text = String(validating: body, as: UTF8.self) {
            return .object([("encoding", .string("utf8")), ("text", .string(text)), ("size", .number(body.count))])
        }
        return .object([("encoding", .string("base64")), ("data", .string(Data(body).base64EncodedString())),
                        ("size", .number(body.count))])
    }

    package static func checksum(of event: Event) -> String {
        let record = EnvelopeCodec.encode(event)
        return "crc32c:" + hex32(record.withUnsafeBytes { EnvelopeCodec.checksum(of: UnsafeRawBufferPointer(rebasing: $0[0 ..< $0.count - 4])) })
    }

    /// Rebuilds an event from its JSON form, checking every field and the checksum.
    package static func event(from value: JSONValue) throws(EventJSONError) -> Event {
        func field(_ name: String, in object: JSONValue = value) throws(EventJSONError) -> JSONValue {
            guard let v = object[name] else { throw .missing(name) }
            return v
        }
        func string(_ name: String, in object: JSONValue = value) throws(EventJSONError) -> String {
            guard let s = try field(name, in: object).stringValue else { throw .invalid(name, "expected a string") }
            return s
        }
        func integer<I: FixedWidthInteger>(_ name: String, _ type: I.Type, in object: JSONValue = value) throws(EventJSONError) -> I {
            guard case .number(let text) = try field(name, in: object), let n = I(text) else {
                throw .invalid(name, "expected an integer from \(I.min) to \(I.max)")
            }
            return n
        }
        func headers(_ object: JSONValue, _ path: String) throws(EventJSONError) -> [Header] {
            guard let list = try field("headers", in: object).arrayValue else { throw .invalid(path + ".headers", "expected an array") }
            var result: [Header] = []
            for item in list {
                result.append(Header(try string("name", in: item), try string("value", in: item)))
            }
            return result
        }
        guard case .object = value else { throw .invalid("line", "expected a JSON object") }
        let kindName = try string("kind")
        guard let kind = EventKind(name: kindName) else { throw .invalid("kind", "unknown kind \(kindName)") }
        let recordedText = try string("recordedAt")
        guard let recordedAt = Timestamp(iso8601: recordedText) else { throw .invalid("recordedAt", "not an ISO 8601 time: \(recordedText)") }
        var event = Event(seq: try integer("seq", UInt64.self), recordedAt: recordedAt, kind: kind,
                          source: try string("source"), label: try string("label"),
                          attempt: try integer("attempt", UInt16.self))
        if !(try field("durationMicros")).isNull { event.durationMicros = try integer("durationMicros", UInt64.self) }
        let request = try field("request")
        if !request.isNull {
            event.request = Event.Request(method: try string("method", in: request), url: try string("url", in: request),
                                          headers: try headers(request, "request"))
            if let sent = request["body"], !sent.isNull {
                let size = try integer("size", Int.self, in: sent)
                let bytes: [UInt8]
                switch try string("encoding", in: sent) {
                case "utf8": bytes = Array(try string("text", in: sent).utf8)
                case "base64":
                    guard let data = Data(base64Encoded: try string("data", in: sent)) else { throw .invalid("request.body.data", "not base64") }
                    bytes = [UInt8](data)
                case let other: throw .invalid("request.body.encoding", "unknown encoding \(other)")
                }
                guard bytes.count == size else { throw .invalid("request.body.size", "says \(size) bytes, the body has \(bytes.count)") }
                event.request?.body = bytes
            }
        }
        let response = try field("response")
        if !response.isNull {
            event.response = Event.Response(status: try integer("status", UInt16.self, in: response),
                                            headers: try headers(response, "response"))
        }
        let failure = try field("failure")
        if !failure.isNull {
            let className = try string("class", in: failure)
            guard let failureClass = FailureClass(name: className) else { throw .invalid("failure.class", "unknown class \(className)") }
            event.failure = Event.Failure(failureClass, try string("message", in: failure))
        }
        let body = try field("body")
        if !body.isNull {
            let size = try integer("size", Int.self, in: body)
            let bytes: [UInt8]
            switch try string("encoding", in: body) {
            case "utf8": bytes = Array(try string("text", in: body).utf8)
            case "base64":
                guard let data = Data(base64Encoded: try string("data", in: body)) else { throw .invalid("body.data", "not base64") }
                bytes = [UInt8](data)
            case "compacted":
                let hex = try string("sha256", in: body)
                guard let digest = SHA256.bytes(hex: hex), digest.count == 32 else { throw .invalid("body.sha256", "expected 64 hex digits") }
                let crcText = try string("crc32c", in: body)
                guard crcText.utf8.count == 8, let crc = UInt32(crcText, radix: 16) else { throw .invalid("body.crc32c", "expected 8 hex digits") }
                guard size >= 0, size <= Int(UInt32.max) else { throw .invalid("body.size", "out of range") }
                event.compactedBody = Event.CompactedBody(size: size, crc32c: crc, sha256: digest)
                bytes = []
            case let other: throw .invalid("body.encoding", "unknown encoding \(other)")
            }
            if event.compactedBody == nil {
                guard bytes.count == size else { throw .invalid("body.size", "says \(size) bytes, the body has \(bytes.count)") }
                event.body = bytes
            }
        }
        if let origin = value["origin"], !origin.isNull {
            let store = try string("store", in: origin)
            guard !store.isEmpty else { throw .invalid("origin.store", "empty") }
            event.origin = Event.Origin(store: store, seq: try integer("seq", UInt64.self, in: origin))
        }
        do { try EnvelopeCodec.validate(event) } catch { throw .invalid("event", error.description) }
        let expected = try string("checksum")
        let actual = checksum(of: event)
        guard expected == actual else { throw .checksumMismatch(expected: expected, actual: actual) }
        return event
    }
}

/// A line of NDJSON that is not an event: which field, and why.
package enum EventJSONError: Error, Equatable, CustomStringConvertible {
    case missing(String)
    case invalid(String, String)
    case checksumMismatch(expected: String, actual: String)

    package var description: String {
        switch self {
        case .missing(let field): "field \(field) is missing"
        case .invalid(let field, let reason): "field \(field): \(reason)"
        case .checksumMismatch(let expected, let actual): "checksum \(expected) does not match the event (\(actual)): the line was altered"
        }
    }
}
