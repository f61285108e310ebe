/// Envelope version 1, the first layout Fetchlog stored (read-only now).
///
///     0  4  magic "FLEV"          16  8  recordedAt, whole seconds
///     4  2  version = 1           24  2  attempt
///     6  1  kind (1, 2 or 3)      26  2  status (0 = none)
///     7  1  reserved (0)          28  …  source u16+bytes, url u32+bytes,
///     8  8  seq                          etag u16+bytes (empty = none),
///                                        body u32 length (0xFFFFFFFF = none) + bytes
///     then CRC-32C (u32) of everything before it
///
/// Upcast to the current event: seconds become milliseconds, the request is a GET of
/// the URL, the ETag becomes a response header, duration is unknown, and a v1
/// failure (no class was recorded then) becomes `http-status` when a status ≥ 400
/// was recorded, else `transport`.
package enum LegacyEnvelopeV1 {
    static func decode(_ record: UnsafeRawBufferPointer) throws(EnvelopeError) -> Event {
        var r = Reader(buffer: record, offset: 6)
        let kindCode = try r.u8("kind")
        guard (1 ... 3).contains(kindCode) else { throw .invalidValue(field: "kind", value: String(kindCode)) }
        _ = try r.u8("reserved")
        let seq = try r.u64("seq")
        let seconds = Int64(bitPattern: try r.u64("recordedAt"))
        let attempt = try r.u16("attempt")
        let status = try r.u16("status")
        let source = try r.string16("source")
        let url = try r.string32("url")
        let etag = try r.string16("etag")
        let bodyLength = try r.u32("body length")
        let body: [UInt8]? = bodyLength == UInt32.max ? nil : try r.bytes(Int(bodyLength), "body")
        guard r.offset == record.count else { throw .trailingBytes(count: record.count - r.offset) }

        let kind = EventKind(code: kindCode)
        var event = Event(seq: seq, recordedAt: Timestamp(milliseconds: seconds * 1000), kind: kind, source: source,
                          attempt: attempt, request: Event.Request(method: "GET", url: url), body: body)
        if status != 0 {
            event.response = Event.Response(status: status, headers: etag.isEmpty ? [] : [Header("ETag", etag)])
        }
        if kind == .fetchFailed {
            event.failure = Event.Failure(status >= 400 ? .httpStatus : .transport, "recorded by envelope v1 (no detail)")
        }
        return event
    }
}
