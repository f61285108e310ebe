/// One record copied out of the log with its checksum verified, decoded only as far
/// as asked. Scans hand these out so a reader that filters on seq, kind or source
/// pays one copy per record, not the allocation of every field.
package struct StoredEvent: Sendable {
    /// The record exactly as stored (any envelope version).
    package let record: [UInt8]
    /// The body of a record that refers to it (version 3), found while the record was read.
    let referencedBody: [UInt8]?

    /// Copies and verifies `raw` (and finds the body it refers to, with `lookup`); throws
    /// `EnvelopeError` when it is damaged or its body is missing.
    /// `lookingUpBody: false` reads the header only (`decode()` then fails for a body stored apart).
    init(copying raw: UnsafeRawBufferPointer, lookup: EnvelopeCodec.BodyLookup = { _ in nil }, lookingUpBody: Bool = true) throws(EnvelopeError) {
        try EnvelopeCodec.verify(raw)
        if lookingUpBody, let reference = EnvelopeCodec.bodyReference(of: raw) {
            guard let body = lookup(reference.digest) else { throw .missingBody(sha256: SHA256.hex(digest: Array(reference.digest))) }
            referencedBody = try EnvelopeCodec.checkedBody(body, length: reference.length, crc: reference.crc, digest: reference.digest)
        } else {
            referencedBody = nil
        }
        record = [UInt8](unsafeUninitializedCapacity: raw.count) { buffer, count in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: raw)
            count = raw.count
        }
        guard let version = EnvelopeCodec.version(of: raw),
              (EnvelopeCodec.oldestReadableVersion ... EnvelopeCodec.newestReadableVersion).contains(version) else {
            throw .unsupportedVersion(EnvelopeCodec.version(of: raw) ?? 0)
        }
        guard raw.count >= 28 else { throw .truncated(field: "header", offset: raw.count) }
    }

    package var envelopeVersion: UInt16 { UInt16(record[4]) << 8 | UInt16(record[5]) }
    /// Offset 8 in every version.
    package var seq: UInt64 { load(8) }
    /// Offset 6 in every version (version 1 used codes 1–3 only).
    package var kind: EventKind { EventKind(code: record[6]) }
    package var recordedAt: Timestamp {
        let raw = Int64(bitPattern: load(16))
        return Timestamp(milliseconds: envelopeVersion == 1 ? raw * 1000 : raw)
    }
    /// The source, read in place (offset 36 in version 2, 28 in version 1).
    package var source: String { string16(at: envelopeVersion == 1 ? 28 : 36) }
    /// The label (version 1 had none).
    package var label: String {
        guard envelopeVersion != 1 else { return "" }
        let sourceLength = Int(record[36]) << 8 | Int(record[37])
        return string16(at: 38 + sourceLength)
    }

    /// Stored size in bytes, envelope and checksum included (a body stored apart not counted).
    package var size: Int { record.count }

    /// Bytes of the event with its body, wherever the body is stored (read from the record's
    /// header: a body stored apart is neither read nor copied for this).
    package var sizeWithBody: Int {
        record.count + (record.withUnsafeBytes { EnvelopeCodec.bodyReference(of: $0)?.length } ?? 0)
    }

    /// The full event, upcast to the current envelope.
    package func decode() throws(EnvelopeError) -> Event {
        do {
            let body = referencedBody
            return try record.withUnsafeBytes { try EnvelopeCodec.decode($0, verified: true, body: { _ in body }) }
        } catch let error as EnvelopeError {
            throw error
        } catch {
            fatalError("EnvelopeCodec.decode throws only EnvelopeError")
        }
    }

    private func string16(at offset: Int) -> String {
        guard offset + 2 <= record.count else { return "" }
        let length = Int(record[offset]) << 8 | Int(record[offset + 1])
        guard offset + 2 + length <= record.count else { return "" }
        return String(decoding: record[offset + 2 ..< offset + 2 + length], as: UTF8.self)
    }

    private func load(_ offset: Int) -> UInt64 {
        record.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
    }
}
