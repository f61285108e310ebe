import CFetchlogSupport

/// The binary layout of one stored event (see docs/event-layout.md for the table).
///
/// All integers are big-endian. A record is a fixed 36-byte header, variable fields,
/// and a CRC-32C of everything before it. Records are self-describing (magic and
/// envelope version), so older layouts are read and upcast to the current `Event`.
package enum EnvelopeCodec {
    package static let magic: (UInt8, UInt8, UInt8, UInt8) = (0x46, 0x4C, 0x45, 0x56) // "FLEV"
    /// The version this build writes for a record that holds its body (or none).
    package static let currentVersion: UInt16 = 2
    /// The version of a record whose body is stored once, apart (`bodies`, by SHA-256): as
    /// version 2, but the body field is its length, its CRC-32C and its 32-byte digest, last
    /// before the checksum (so it is found from the record's end). The CRC is checked at
    /// every read, as the record's own covers a body it holds.
    package static let bodyReferenceVersion: UInt16 = 3
    /// The version of a record that also says where it came from (`origin`, an event merged
    /// from another store) or whose body `log compact` dropped (`compacted`): as version 3,
    /// with those two optional parts. Only such records are written as version 4, so a log
    /// that never merged or compacted reads with older builds record for record.
    package static let originVersion: UInt16 = 4
    /// The version of a record whose request carried a body (a POST with `json` or `data`):
    /// as version 4, with the request body after the request headers. Only such records
    /// are written as version 5, so every other record still reads with older builds.
    package static let requestBodyVersion: UInt16 = 5
    /// The newest version this build reads.
    package static let newestReadableVersion: UInt16 = 5
    /// The oldest version this build can upcast.
    package static let oldestReadableVersion: UInt16 = 1

    static let headerSize = 36
    /// The longest label (a resource's path and query) the envelope holds: a 16-bit length.
    /// Sources check it where a label is defined (a manifest's endpoint path).
    package static let maxLabelBytes = Int(UInt16.max)
    static let unknownDuration = UInt64.max

    struct Flags: OptionSet {
        let rawValue: UInt16
        static let request = Flags(rawValue: 1)
        static let response = Flags(rawValue: 2)
        static let failure = Flags(rawValue: 4)
        static let body = Flags(rawValue: 8)
        /// With `body`: the body is stored apart, the field holds its length and digest.
        static let bodyReference = Flags(rawValue: 16)
        /// With `body` and `bodyReference` (version 4): the body was compacted away; the
        /// reference says what it was, and nothing is looked up.
        static let compacted = Flags(rawValue: 32)
        /// Version 4: the origin (store id, seq) follows the failure message.
        static let origin = Flags(rawValue: 64)
        /// Version 5: the request's body (u32 length + bytes) follows the request headers.
        static let requestBody = Flags(rawValue: 128)
    }

    /// Finds a body by its SHA-256 digest (the store's `bodies` database).
    package typealias BodyLookup = (_ digest: UnsafeRawBufferPointer) -> [UInt8]?

    // MARK: Encoding

    /// The exact size `encode` will write.
    package static func encodedSize(of event: Event, bodyReference: Bool = false) -> Int {
        var size = headerSize
        size += 2 + event.source.utf8.count
        size += 2 + event.label.utf8.count
        if let request = event.request {
            size += 2 + request.method.utf8.count + 4 + request.url.utf8.count + headersSize(request.headers)
            if let body = request.body { size += 4 + body.count }
        }
        if let response = event.response { size += 2 + headersSize(response.headers) }
        if let failure = event.failure { size += 4 + failure.message.utf8.count }
        if let origin = event.origin { size += 2 + origin.store.utf8.count + 8 }
        if let body = event.body { size += 4 + (bodyReference ? 36 : body.count) } else if event.compactedBody != nil { size += 40 }
        return size + 4
    }

    private static func headersSize(_ headers: [Header]) -> Int {
        headers.reduce(2) { $0 + 2 + $1.name.utf8.count + 4 + $1.value.utf8.count }
    }

    /// Checks the limits of the layout before anything reaches the writer.
    package static func validate(_ event: Event) throws(EnvelopeError) {
        func short(_ s: String, _ field: String) throws(EnvelopeError) {
            if s.utf8.count > Int(UInt16.max) { throw .fieldTooLong(field: field, length: s.utf8.count) }
        }
        try short(event.source, "source")
        if event.label.utf8.count > maxLabelBytes { throw .fieldTooLong(field: "label", length: event.label.utf8.count) }
        if let request = event.request {
            try short(request.method, "request.method")
            if request.headers.count > Int(UInt16.max) { throw .fieldTooLong(field: "request.headers", length: request.headers.count) }
            for h in request.headers { try short(h.name, "request header name") }
            if let body = request.body, body.count > Int(UInt32.max) { throw .fieldTooLong(field: "request.body", length: body.count) }
        }
        if let response = event.response {
            if response.headers.count > Int(UInt16.max) { throw .fieldTooLong(field: "response.headers", length: response.headers.count) }
            for h in response.headers { try short(h.name, "response header name") }
        }
        if let body = event.body, body.count > Int(UInt32.max) { throw .fieldTooLong(field: "body", length: body.count) }
        if let compacted = event.compactedBody {
            if event.body != nil { throw .invalidValue(field: "body", value: "both a body and a compacted body") }
            if compacted.sha256.count != 32 { throw .invalidValue(field: "compacted body sha256", value: "\(compacted.sha256.count) bytes") }
            if compacted.size < 0 || compacted.size > Int(UInt32.max) { throw .fieldTooLong(field: "compacted body", length: compacted.size) }
        }
        if let origin = event.origin { try short(origin.store, "origin.store") }
    }

    /// The version `encode` writes for `event`.
    static func version(for event: Event, bodyReference: Bool) -> UInt16 {
        if event.request?.body != nil { return requestBodyVersion }
        if event.origin != nil || event.compactedBody != nil { return originVersion }
        return bodyReference ? bodyReferenceVersion : currentVersion
    }

    /// Writes `event` into `buffer`, which must hold exactly `encodedSize(of:)` bytes; with
    /// `bodyDigest`, the body as a reference (version 3) instead of its bytes.
    package static func encode(_ event: Event, into buffer: UnsafeMutableRawBufferPointer, bodyDigest: [UInt8]? = nil) {
        var w = Writer(buffer: buffer)
        w.bytes4(magic)
        let digest = event.body == nil ? nil : bodyDigest
        w.u16(version(for: event, bodyReference: digest != nil))
        w.u8(event.kind.code)
        w.u8(event.failure?.failureClass.rawValue ?? 0)
        w.u64(event.seq)
        w.u64(UInt64(bitPattern: event.recordedAt.milliseconds))
        w.u64(event.durationMicros ?? unknownDuration)
        w.u16(event.attempt)
        var flags: Flags = []
        if event.request != nil { flags.insert(.request) }
        if event.response != nil { flags.insert(.response) }
        if event.failure != nil { flags.insert(.failure) }
        if event.body != nil || event.compactedBody != nil { flags.insert(.body) }
        if (event.body != nil && digest != nil) || event.compactedBody != nil { flags.insert(.bodyReference) }
        if event.compactedBody != nil { flags.insert(.compacted) }
        if event.origin != nil { flags.insert(.origin) }
        if event.request?.body != nil { flags.insert(.requestBody) }
        w.u16(flags.rawValue)
        w.string16(event.source)
        w.string16(event.label)
        if let request = event.request {
            w.string16(request.method)
            w.string32(request.url)
            w.headers(request.headers)
            if let body = request.body {
                w.u32(UInt32(body.count))
                body.withUnsafeBytes { w.raw($0) }
            }
        }
        if let response = event.response {
            w.u16(response.status)
            w.headers(response.headers)
        }
        if let failure = event.failure { w.string32(failure.message) }
        if let origin = event.origin {
            w.string16(origin.store)
            w.u64(origin.seq)
        }
        if let compacted = event.compactedBody {
            w.u32(UInt32(compacted.size))
            w.u32(compacted.crc32c)
            compacted.sha256.withUnsafeBytes { w.raw($0) }
        } else if let body = event.body {
            w.u32(UInt32(body.count))
            if let bodyDigest = digest {
                w.u32(body.withUnsafeBytes { fl_crc32c(0, $0.baseAddress, $0.count) })
                bodyDigest.withUnsafeBytes { w.raw($0) }
            } else {
                body.withUnsafeBytes { w.raw($0) }
            }
        }
        let crc = fl_crc32c(0, buffer.baseAddress, w.offset)
        w.u32(crc)
        precondition(w.offset == buffer.count, "encodedSize and encode disagree")
    }

    package static func encode(_ event: Event) -> [UInt8] {
        let size = encodedSize(of: event)
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            encode(event, into: UnsafeMutableRawBufferPointer(buffer))
            count = size
        }
    }

    package static func checksum(of record: UnsafeRawBufferPointer) -> UInt32 {
        fl_crc32c(0, record.baseAddress, record.count)
    }

    // MARK: Decoding

    /// The envelope version of a record, without decoding it.
    package static func version(of record: UnsafeRawBufferPointer) -> UInt16? {
        guard record.count >= 6 else { return nil }
        return UInt16(record[4]) << 8 | UInt16(record[5])
    }

    /// Checks magic, length and checksum without decoding the fields.
    package static func verify(_ record: UnsafeRawBufferPointer) throws(EnvelopeError) {
        guard record.count >= 12 else { throw .truncated(field: "header", offset: 0) }
        guard record[0] == magic.0, record[1] == magic.1, record[2] == magic.2, record[3] == magic.3 else {
            throw .badMagic
        }
        let stored = UInt32(bigEndian: record.loadUnaligned(fromByteOffset: record.count - 4, as: UInt32.self))
        let computed = fl_crc32c(0, record.baseAddress, record.count - 4)
        guard stored == computed else { throw .checksumMismatch(stored: stored, computed: computed) }
    }

    /// The body reference of a version-3 or -4 record (its length, CRC-32C and digest),
    /// found from the record's end; nil for a record that holds its body, has none, or
    /// whose body was compacted away (nothing to look up).
    package static func bodyReference(of record: UnsafeRawBufferPointer) -> (length: Int, crc: UInt32, digest: UnsafeRawBufferPointer)? {
        guard let version = version(of: record), version >= bodyReferenceVersion, version <= newestReadableVersion,
              record.count >= headerSize + 44 else { return nil }
        let flags = Flags(rawValue: UInt16(record[34]) << 8 | UInt16(record[35]))
        guard flags.contains(.bodyReference), !flags.contains(.compacted) else { return nil }
        let length = Int(UInt32(bigEndian: record.loadUnaligned(fromByteOffset: record.count - 44, as: UInt32.self)))
        let crc = UInt32(bigEndian: record.loadUnaligned(fromByteOffset: record.count - 40, as: UInt32.self))
        return (length, crc, UnsafeRawBufferPointer(rebasing: record[record.count - 36 ..< record.count - 4]))
    }

    /// True for a record whose body `log compact` dropped.
    package static func isCompacted(_ record: UnsafeRawBufferPointer) -> Bool {
        guard let version = version(of: record), version >= originVersion, version <= newestReadableVersion,
              record.count >= headerSize else { return false }
        return Flags(rawValue: UInt16(record[34]) << 8 | UInt16(record[35])).contains(.compacted)
    }

    /// The body found for a reference, checked: its length and CRC-32C as the record says.
    package static func checkedBody(_ bytes: [UInt8], length: Int, crc: UInt32, digest: UnsafeRawBufferPointer) throws(EnvelopeError) -> [UInt8] {
        guard bytes.count == length else {
            throw .invalidValue(field: "body", value: "\(bytes.count) bytes stored under sha256 \(SHA256.hex(digest: Array(digest))), \(length) referenced")
        }
        let computed = bytes.withUnsafeBytes { fl_crc32c(0, $0.baseAddress, $0.count) }
        guard computed == crc else { throw .bodyChecksumMismatch(sha256: SHA256.hex(digest: Array(digest)), stored: crc, computed: computed) }
        return bytes
    }

    /// Verifies the checksum (unless the caller already did) and decodes any readable
    /// version into the current `Event`; a body stored apart is found with `body`.
    package static func decode(_ record: UnsafeRawBufferPointer, verified: Bool = false, body lookup: BodyLookup = { _ in nil }) throws(EnvelopeError) -> Event {
        if verified {
            guard record.count >= 12 else { throw .truncated(field: "header", offset: 0) }
        } else {
            try verify(record)
        }
        let body = UnsafeRawBufferPointer(rebasing: record[0 ..< record.count - 4])
        switch version(of: record)! {
        case 2: return try decodeV2(body, lookup: lookup)
        case 3: return try decodeV2(body, lookup: lookup, referenceAllowed: true)
        case 4: return try decodeV2(body, lookup: lookup, referenceAllowed: true, version4: true)
        case 5: return try decodeV2(body, lookup: lookup, referenceAllowed: true, version4: true, version5: true)
        case 1: return try LegacyEnvelopeV1.decode(body)
        case let v: throw .unsupportedVersion(v)
        }
    }

    /// The event of `record` with its body replaced by what it was (size, CRC-32C, SHA-256):
    /// what `log compact` writes in its place. Nothing is looked up; a record without a
    /// body, or whose body is compacted already, comes back as it is.
    package static func compacting(_ record: UnsafeRawBufferPointer) throws(EnvelopeError) -> Event {
        try verify(record)
        let fields = UnsafeRawBufferPointer(rebasing: record[0 ..< record.count - 4])
        switch version(of: record)! {
        case 2: return try decodeV2(fields, lookup: { _ in nil }, compactBody: true)
        case 3: return try decodeV2(fields, lookup: { _ in nil }, referenceAllowed: true, compactBody: true)
        case 4: return try decodeV2(fields, lookup: { _ in nil }, referenceAllowed: true, version4: true, compactBody: true)
        case 5: return try decodeV2(fields, lookup: { _ in nil }, referenceAllowed: true, version4: true, version5: true, compactBody: true)
        case 1:
            var event = try LegacyEnvelopeV1.decode(fields)
            if let body = event.body {
                event.compactedBody = Event.CompactedBody(size: body.count, crc32c: body.withUnsafeBytes { fl_crc32c(0, $0.baseAddress, $0.count) },
                                                          sha256: SHA256.digest(body))
                event.body = nil
            }
            return event
        case let v: throw .unsupportedVersion(v)
        }
    }

    private static func decodeV2(_ record: UnsafeRawBufferPointer, lookup: BodyLookup, referenceAllowed: Bool = false,
                                 version4: Bool = false, version5: Bool = false, compactBody: Bool = false) throws(EnvelopeError) -> Event {
        var r = Reader(buffer: record, offset: 6)
        let kind = EventKind(code: try r.u8("kind"))
        let failureCode = try r.u8("failure class")
        let seq = try r.u64("seq")
        let recordedAt = Timestamp(milliseconds: Int64(bitPattern: try r.u64("recordedAt")))
        let duration = try r.u64("duration")
        let attempt = try r.u16("attempt")
        let flags = Flags(rawValue: try r.u16("flags"))
        var event = Event(seq: seq, recordedAt: recordedAt, kind: kind, source: try r.string16("source"),
                          label: try r.string16("label"), attempt: attempt,
                          durationMicros: duration == unknownDuration ? nil : duration)
        if flags.contains(.request) {
            let method = try r.string16("request.method")
            let url = try r.string32("request.url")
            event.request = Event.Request(method: method, url: url, headers: try r.headers("request.headers"))
            if flags.contains(.requestBody) {
                guard version5 else { throw .invalidValue(field: "flags", value: "\(flags.rawValue) (a request body) in a record before version 5") }
                event.request?.body = try r.bytes32("request.body")
            }
        }
        if flags.contains(.response) {
            let status = try r.u16("response.status")
            event.response = Event.Response(status: status, headers: try r.headers("response.headers"))
        }
        if flags.contains(.failure) {
            guard let failureClass = FailureClass(rawValue: failureCode) else {
                throw .invalidValue(field: "failure class", value: String(failureCode))
            }
            event.failure = Event.Failure(failureClass, try r.string32("failure.message"))
        }
        if !version4, !flags.isDisjoint(with: [.compacted, .origin]) {
            throw .invalidValue(field: "flags", value: "\(flags.rawValue) (compacted or origin) in a record before version 4")
        }
        if flags.contains(.origin) {
            let store = try r.string16("origin.store")
            event.origin = Event.Origin(store: store, seq: try r.u64("origin.seq"))
        }
        if flags.contains(.compacted) {
            guard flags.contains(.body), flags.contains(.bodyReference) else {
                throw .invalidValue(field: "flags", value: "compacted without a body reference")
            }
            let length = Int(try r.u32("body length"))
            let crc = try r.u32("body checksum")
            event.compactedBody = Event.CompactedBody(size: length, crc32c: crc, sha256: Array(try r.raw(32, "body digest")))
        } else if flags.contains(.body), flags.contains(.bodyReference) {
            guard referenceAllowed else { throw .invalidValue(field: "flags", value: "a body reference in a version-2 record") }
            let length = Int(try r.u32("body length"))
            let crc = try r.u32("body checksum")
            let digest = try r.raw(32, "body digest")
            if compactBody {
                event.compactedBody = Event.CompactedBody(size: length, crc32c: crc, sha256: Array(digest))
                guard r.offset == record.count else { throw .trailingBytes(count: record.count - r.offset) }
                return event
            }
            guard let bytes = lookup(digest) else { throw .missingBody(sha256: SHA256.hex(digest: Array(digest))) }
            event.body = try checkedBody(bytes, length: length, crc: crc, digest: digest)
        } else if flags.contains(.body) {
            event.body = try r.bytes32("body")
            if compactBody, let body = event.body {
                event.compactedBody = Event.CompactedBody(size: body.count, crc32c: body.withUnsafeBytes { fl_crc32c(0, $0.baseAddress, $0.count) },
                                                          sha256: SHA256.digest(body))
                event.body = nil
            }
        }
        guard r.offset == record.count else { throw .trailingBytes(count: record.count - r.offset) }
        return event
    }
}

/// Why a stored record could not be read.
public enum EnvelopeError: Error, Equatable, CustomStringConvertible {
    /// The bytes do not start as an event record does.
    case badMagic
    /// Written in a record version newer than this build reads.
    case unsupportedVersion(UInt16)
    /// The record's checksum does not match its bytes: it is damaged.
    case checksumMismatch(stored: UInt32, computed: UInt32)
    /// The record ends inside `field`.
    case truncated(field: String, offset: Int)
    /// A text field is not valid UTF-8.
    case invalidUTF8(field: String)
    /// A field holds a value no writer produces.
    case invalidValue(field: String, value: String)
    /// Bytes follow the record's last field.
    case trailingBytes(count: Int)
    /// A field is longer than a record can hold.
    case fieldTooLong(field: String, length: Int)
    /// A record refers to a body the store does not hold.
    case missingBody(sha256: String)
    /// The body a record refers to is held, but not as it was written.
    case bodyChecksumMismatch(sha256: String, stored: UInt32, computed: UInt32)

    /// What is wrong with the record, for the error a user reads.
    public var description: String {
        switch self {
        case .badMagic: "not an event record (bad magic)"
        case .unsupportedVersion(let v):
            "envelope version \(v) is newer than this build reads (up to \(EnvelopeCodec.newestReadableVersion)): upgrade fetchlog"
        case .checksumMismatch(let stored, let computed):
            "checksum mismatch (stored \(hex32(stored)), computed \(hex32(computed))): the record is damaged"
        case .truncated(let field, let offset): "record ends inside \(field) at byte \(offset)"
        case .invalidUTF8(let field): "\(field) is not valid UTF-8"
        case .invalidValue(let field, let value): "\(field) has an invalid value \(value)"
        case .trailingBytes(let count): "\(count) unexpected bytes after the last field"
        case .fieldTooLong(let field, let length): "\(field) is too long for the envelope (\(length))"
        case .missingBody(let digest): "its body (sha256 \(digest)) is not in the store's bodies"
        case .bodyChecksumMismatch(let digest, let stored, let computed):
            "checksum mismatch in its body (sha256 \(digest); stored \(hex32(stored)), computed \(hex32(computed))): the body is damaged"
        }
    }
}

func hex32(_ v: UInt32) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: 8 - s.count) + s
}

// MARK: Byte cursors

struct Writer {
    let buffer: UnsafeMutableRawBufferPointer
    var offset = 0

    mutating func u8(_ v: UInt8) { buffer[offset] = v; offset += 1 }
    mutating func u16(_ v: UInt16) { buffer.storeBytes(of: v.bigEndian, toByteOffset: offset, as: UInt16.self); offset += 2 }
    mutating func u32(_ v: UInt32) { buffer.storeBytes(of: v.bigEndian, toByteOffset: offset, as: UInt32.self); offset += 4 }
    mutating func u64(_ v: UInt64) { buffer.storeBytes(of: v.bigEndian, toByteOffset: offset, as: UInt64.self); offset += 8 }
    mutating func bytes4(_ b: (UInt8, UInt8, UInt8, UInt8)) { u8(b.0); u8(b.1); u8(b.2); u8(b.3) }
    mutating func raw(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        UnsafeMutableRawBufferPointer(rebasing: buffer[offset ..< offset + bytes.count]).copyMemory(from: bytes)
        offset += bytes.count
    }
    mutating func string16(_ s: String) {
        var s = s
        s.withUTF8 { u16(UInt16($0.count)); raw(UnsafeRawBufferPointer($0)) }
    }
    mutating func string32(_ s: String) {
        var s = s
        s.withUTF8 { u32(UInt32($0.count)); raw(UnsafeRawBufferPointer($0)) }
    }
    mutating func headers(_ headers: [Header]) {
        u16(UInt16(headers.count))
        for h in headers { string16(h.name); string32(h.value) }
    }
}

struct Reader {
    let buffer: UnsafeRawBufferPointer
    var offset: Int

    private mutating func take(_ n: Int, _ field: String) throws(EnvelopeError) -> UnsafeRawBufferPointer {
        guard n >= 0, buffer.count - offset >= n else { throw .truncated(field: field, offset: offset) }
        defer { offset += n }
        return UnsafeRawBufferPointer(rebasing: buffer[offset ..< offset + n])
    }
    mutating func u8(_ field: String) throws(EnvelopeError) -> UInt8 { try take(1, field)[0] }
    mutating func u16(_ field: String) throws(EnvelopeError) -> UInt16 { UInt16(bigEndian: try take(2, field).loadUnaligned(as: UInt16.self)) }
    mutating func u32(_ field: String) throws(EnvelopeError) -> UInt32 { UInt32(bigEndian: try take(4, field).loadUnaligned(as: UInt32.self)) }
    mutating func u64(_ field: String) throws(EnvelopeError) -> UInt64 { UInt64(bigEndian: try take(8, field).loadUnaligned(as: UInt64.self)) }
    mutating func string(_ n: Int, _ field: String) throws(EnvelopeError) -> String {
        let raw = try take(n, field)
        guard let s = String(validating: raw, as: UTF8.self) else { throw .invalidUTF8(field: field) }
        return s
    }
    mutating func string16(_ field: String) throws(EnvelopeError) -> String { try string(Int(try u16(field)), field) }
    mutating func string32(_ field: String) throws(EnvelopeError) -> String { try string(Int(try u32(field)), field) }
    mutating func bytes(_ n: Int, _ field: String) throws(EnvelopeError) -> [UInt8] {
        let raw = try take(n, field)
        return [UInt8](unsafeUninitializedCapacity: n) { out, count in
            if n > 0 { UnsafeMutableRawBufferPointer(out).copyMemory(from: raw) }
            count = n
        }
    }
    mutating func bytes32(_ field: String) throws(EnvelopeError) -> [UInt8] { try bytes(Int(try u32(field)), field) }
    mutating func raw(_ n: Int, _ field: String) throws(EnvelopeError) -> UnsafeRawBufferPointer { try take(n, field) }
    mutating func headers(_ field: String) throws(EnvelopeError) -> [Header] {
        let count = Int(try u16(field))
        var result: [Header] = []
        result.reserveCapacity(count)
        for _ in 0 ..< count { result.append(Header(try string16(field + " name"), try string32(field + " value"))) }
        return result
    }
}
