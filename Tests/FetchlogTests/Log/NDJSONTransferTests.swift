import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

@Suite struct NDJSONTransferTests {
    private func export(_ log: EventLog) throws -> String {
        var text = ""
        try log.exportNDJSON { text += $0 }
        return text
    }

    /// The shipped sample log imports, exports byte-identically to itself, and survives
    /// a second import/export.
    @Test func exportImportExportIsByteIdentical() throws {
        let dir = TemporaryDirectory("ndjson")
        let sample = try String(contentsOfFile: Repo.sampleLog, encoding: .utf8)
        let first = try EventLog.open(at: dir.sub("a"))
        #expect(try first.importNDJSON(path: Repo.sampleLog) == 13)
        let exported = try export(first)
        #expect(exported == sample)
        let file = dir.sub("a.ndjson")
        try exported.write(toFile: file, atomically: true, encoding: .utf8)
        let second = try EventLog.open(at: dir.sub("b"))
        try second.importNDJSON(path: file)
        #expect(try export(second) == exported)
        // The census body arrives byte for byte (421,309 bytes recorded).
        let census = try #require(try second.event(at: 7))
        #expect(census.body?.count == 421_309)
        #expect(try first.event(at: 7) == census)
    }

    @Test func binaryAndTrickyTextBodiesRoundTrip() async throws {
        let dir = TemporaryDirectory("bodies")
        let log = try EventLog.open(at: dir.sub("a"))
        let bodies: [[UInt8]?] = [
            [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46], // JPEG start: not UTF-8
            Array("tab\tnul\u{0}quote\" é 😀\r\n".utf8),
            [0xEF, 0xBB, 0xBF] + Array("{\"bom\":true}".utf8),
            [], nil,
        ]
        try await log.append(contentsOf: bodies.map { richEvent(body: $0) })
        let text = try export(log)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        #expect(lines[0].contains(#""body":{"data":"/9j/4AAQSkY=","encoding":"base64","size":8}"#))
        #expect(lines[1].contains(#""text":"tab\tnul\u0000quote\" é 😀\r\n""#))
        #expect(lines[4].contains(#""body":null"#))
        let file = dir.sub("x.ndjson")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let copy = try EventLog.open(at: dir.sub("b"))
        try copy.importNDJSON(path: file)
        for seq in UInt64(1) ... 5 {
            #expect(try copy.event(at: seq)?.body == bodies[Int(seq - 1)])
        }
        #expect(try export(copy) == text)
    }

    @Test func anAlteredLineIsRefusedAndNothingIsImported() throws {
        let dir = TemporaryDirectory("altered")
        var lines = try String(contentsOfFile: Repo.sampleLog, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[12] = lines[12].replacingOccurrences(of: "Pink", with: "Pale")
        let file = dir.sub("bad.ndjson")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let log = try EventLog.open(at: dir.sub("store"))
        #expect {
            try log.importNDJSON(path: file)
        } throws: { error in
            guard let error = error as? ImportError else { return false }
            return error.line == 13 && error.reason.hasPrefix("checksum crc32c:")
        }
        #expect(try log.lastSeq() == 0)
    }

    /// Merging: the events of an export are known by origin, so a second import adds none.
    @Test func importingTheSameExportTwiceAddsNothing() throws {
        let dir = TemporaryDirectory("nonempty")
        let log = try EventLog.open(at: dir.path)
        #expect(try log.importNDJSON(path: Repo.sampleLog) == 13)
        #expect(try log.merge(path: Repo.sampleLog).alreadyHeld == 13)
        #expect(try log.lastSeq() == 13)
    }

    /// Every exported line validates against Schemas/event.schema.json (Python jsonschema).
    @Test func everyLineValidatesAgainstTheSchema() async throws {
        let dir = TemporaryDirectory("schema")
        let log = try EventLog.open(at: dir.sub("store"))
        try log.importNDJSON(path: Repo.sampleLog)
        try await log.append(contentsOf: [richEvent(body: [0, 159, 146, 150]), TestPattern.event(seq: 15)])
        var failure = richEvent(body: nil)
        failure.kind = .fetchFailed
        failure.response = nil
        failure.failure = Event.Failure(.timeout, "no answer in 10 s")
        try await log.append(failure)
        let file = dir.sub("export.ndjson")
        try export(log).write(toFile: file, atomically: true, encoding: .utf8)
        let (ok, output) = try await validateFile(file, schema: "event", ndjson: true)
        #expect(ok, "\(output)")
        #expect(output == "valid: 16 of 16 documents against event.schema.json\n")
    }
}
