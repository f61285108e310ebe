import CFetchlogSupport
import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

@Suite struct EnvelopeCodecTests {
    @Test func crc32cMatchesTheStandardCheckValue() {
        let bytes = Array("123456789".utf8)
        #expect(bytes.withUnsafeBytes { EnvelopeCodec.checksum(of: $0) } == 0xE306_9283)
    }

    @Test func richEventRoundTripsWithEveryField() throws {
        var event = richEvent()
        event.seq = 42
        event.failure = Event.Failure(.truncated, "expected 120 bytes, got 60")
        let record = EnvelopeCodec.encode(event)
        #expect(record.count == EnvelopeCodec.encodedSize(of: event))
        #expect(record.count == 248)
        #expect(Array(record.prefix(6)) == [0x46, 0x4C, 0x45, 0x56, 0x00, 0x02])
        let decoded = try record.withUnsafeBytes { try EnvelopeCodec.decode($0) }
        #expect(decoded == event)
    }

    @Test func absentAndEmptyBodiesStayDistinct() throws {
        var none = richEvent(body: nil)
        none.seq = 1
        var empty = richEvent(body: [])
        empty.seq = 1
        let a = try EnvelopeCodec.encode(none).withUnsafeBytes { try EnvelopeCodec.decode($0) }
        let b = try EnvelopeCodec.encode(empty).withUnsafeBytes { try EnvelopeCodec.decode($0) }
        #expect(a.body == nil)
        #expect(b.body == [])
    }

    @Test func aFlippedByteIsAChecksumMismatch() throws {
        var event = richEvent()
        event.seq = 7
        var record = EnvelopeCodec.encode(event)
        record[100] ^= 0x01
        let expected = record.withUnsafeBytes { EnvelopeCodec.checksum(of: UnsafeRawBufferPointer(rebasing: $0[0 ..< $0.count - 4])) }
        let stored = record.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        #expect(throws: EnvelopeError.checksumMismatch(stored: stored, computed: expected)) {
            try record.withUnsafeBytes { try EnvelopeCodec.decode($0) }
        }
        #expect(stored != expected)
    }

    @Test func unknownKindCodesSurvive() throws {
        var event = richEvent()
        event.kind = .other(42)
        event.seq = 3
        let decoded = try EnvelopeCodec.encode(event).withUnsafeBytes { try EnvelopeCodec.decode($0) }
        #expect(decoded.kind == .other(42))
        #expect(decoded.kind.name == "kind-42")
        #expect(EventKind(name: "kind-42") == .other(42))
    }

    @Test func aNewerEnvelopeVersionIsRefusedByName() throws {
        var event = richEvent()
        event.seq = 1
        var record = EnvelopeCodec.encode(event)
        record[5] = 6
        let crc = record.withUnsafeBytes { fl_crc32c(0, $0.baseAddress, $0.count - 4) }
        record.replaceSubrange(record.count - 4 ..< record.count, with: withUnsafeBytes(of: crc.bigEndian, Array.init))
        #expect(throws: EnvelopeError.unsupportedVersion(6)) { try record.withUnsafeBytes { try EnvelopeCodec.decode($0) } }
        #expect(EnvelopeError.unsupportedVersion(6).description == "envelope version 6 is newer than this build reads (up to 5): upgrade fetchlog")
    }

    @Test func versionOneRecordsAreUpcast() throws {
        let record = LegacyFixture.v1Record(seq: 9, seconds: 1_700_000_000, kind: 1, attempt: 2, status: 200,
                                            source: "viaplay", url: "https://content.viaplay.se/ios-se",
                                            etag: "\"v1-etag\"", body: Array("{\"title\":\"Viaplay\"}".utf8))
        let event = try record.withUnsafeBytes { try EnvelopeCodec.decode($0) }
        #expect(event == Event(seq: 9, recordedAt: Timestamp(milliseconds: 1_700_000_000_000), kind: .fetched, source: "viaplay",
                               attempt: 2, request: Event.Request(url: "https://content.viaplay.se/ios-se"),
                               response: Event.Response(status: 200, headers: [Header("ETag", "\"v1-etag\"")]),
                               body: Array("{\"title\":\"Viaplay\"}".utf8)))
        let failed = LegacyFixture.v1Record(seq: 10, seconds: 1_700_000_060, kind: 3, attempt: 1, status: 503,
                                            source: "viaplay", url: "https://content.viaplay.se/ios-se", etag: "", body: nil)
        let failure = try failed.withUnsafeBytes { try EnvelopeCodec.decode($0) }
        #expect(failure.failure == Event.Failure(.httpStatus, "recorded by envelope v1 (no detail)"))
        #expect(failure.body == nil)
        #expect(failure.response == Event.Response(status: 503, headers: []))
    }
}

/// Writes envelope version 1 records by hand, following the documented layout
/// (docs/event-layout.md), as the first Fetchlog build wrote them.
enum LegacyFixture {
    static func v1Record(seq: UInt64, seconds: Int64, kind: UInt8, attempt: UInt16, status: UInt16,
                         source: String, url: String, etag: String, body: [UInt8]?) -> [UInt8] {
        var out: [UInt8] = [0x46, 0x4C, 0x45, 0x56, 0x00, 0x01, kind, 0]
        func be<T: FixedWidthInteger>(_ v: T) { out += withUnsafeBytes(of: v.bigEndian, Array.init) }
        be(seq)
        be(seconds)
        be(attempt)
        be(status)
        be(UInt16(source.utf8.count)); out += source.utf8
        be(UInt32(url.utf8.count)); out += url.utf8
        be(UInt16(etag.utf8.count)); out += etag.utf8
        if let body { be(UInt32(body.count)); out += body } else { be(UInt32.max) }
        let crc = out.withUnsafeBytes { fl_crc32c(0, $0.baseAddress, $0.count) }
        be(crc)
        return out
    }
}
