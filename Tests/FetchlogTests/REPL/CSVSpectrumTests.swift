import Foundation
import Testing
@testable import FetchlogCore
@testable import fetchlog

/// `--format csv` is RFC 4180 for every character (issue 34, item 9): the csv-spectrum
/// cases (Tests/FetchlogTests/Data/csv-spectrum, see its README) and fields built to hold
/// each character that needs quoting, written by Fetchlog's one CSV writer and read back by
/// an independent reader, Python's `csv` module.
@Suite struct CSVSpectrumTests {
    static let folder = Repo.root + "/Tests/FetchlogTests/Data/csv-spectrum/"
    /// Listed rather than found, so a case lost from the folder fails the test.
    static let cases = ["comma_in_quotes", "empty", "empty_crlf", "escaped_quotes", "json", "newlines", "newlines_crlf",
                        "quotes_and_newlines", "simple", "simple_crlf", "utf8"]

    /// What `--format csv` writes for a table.
    static func csv(_ columns: [String], _ rows: [[String]]) -> String {
        var renderer = Renderer()
        renderer.mode = .csv
        return renderer.render(.table(columns: columns, rows: rows, records: []))
    }

    /// A case's rows: its JSON file, an array of objects whose members are the columns.
    static func spectrumCase(_ name: String) throws -> (columns: [String], rows: [[String]]) {
        let json = try JSONValue.parse(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "json/\(name).json"))))
        let objects = try #require(json.arrayValue)
        let columns = try #require(objects.first).memberNames
        let rows = try objects.map { object in try columns.map { try #require(object[$0]?.stringValue) } }
        return (columns, rows)
    }

    /// Each file read by Python's `csv.reader` (newline="", as its documentation asks for
    /// files): its records as JSON arrays of strings, one line a file.
    static func pythonReads(_ files: [String]) async throws -> [JSONValue] {
        let script = """
        import csv, json, sys
        for path in sys.argv[1:]:
            with open(path, newline="", encoding="utf-8") as f:
                print(json.dumps(list(csv.reader(f))))
        """
        let python = try await runProcess("/usr/bin/env", ["python3", "-c", script] + files)
        #expect(python.status == 0, "\(python.stderr)")
        return try python.stdout.split(separator: "\n").map { try JSONValue.parse(String($0)) }
    }

    static func records(_ columns: [String], _ rows: [[String]]) -> JSONValue {
        .array(([columns] + rows).map { .array($0.map(JSONValue.string)) })
    }

    /// Every case's rows, written by Fetchlog and read by Python, come back exactly; Python
    /// reads each case's own CSV as its JSON too, so the oracle and the data agree.
    @Test func everyCaseRoundTripsThroughPythonsCSVReader() async throws {
        let dir = TemporaryDirectory("csv-spectrum")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        var ours: [String] = [], theirs: [String] = [], expected: [JSONValue] = []
        for name in Self.cases {
            let (columns, rows) = try Self.spectrumCase(name)
            try Self.csv(columns, rows).write(toFile: dir.sub(name + ".csv"), atomically: true, encoding: .utf8)
            ours.append(dir.sub(name + ".csv"))
            theirs.append(Self.folder + "csvs/\(name).csv")
            expected.append(Self.records(columns, rows))
        }
        let read = try await Self.pythonReads(ours + theirs)
        #expect(read.count == 2 * Self.cases.count)
        var passing = 0
        for (i, name) in Self.cases.enumerated() where read.count == 2 * Self.cases.count {
            #expect(read[Self.cases.count + i] == expected[i], "Python reads csv-spectrum's \(name).csv differently from its JSON")
            #expect(read[i] == expected[i], "\(name) did not round-trip: \(read[i].canonicalText())")
            if read[i] == expected[i] { passing += 1 }
        }
        #expect(passing == 11)
    }

    /// Where csv-spectrum quotes as Fetchlog does (only what must be), Fetchlog writes the
    /// case's own bytes, its record ends made CR LF (the writer's one line end; line breaks
    /// inside quoted fields are the field's and stay). `empty` and `empty_crlf` quote empty
    /// fields, which Fetchlog leaves bare when other fields share the record.
    @Test func whereTheQuotingPolicyMatchesTheBytesAreTheCases() throws {
        for name in Self.cases where !name.hasPrefix("empty") {
            let (columns, rows) = try Self.spectrumCase(name)
            let theirs = try String(contentsOfFile: Self.folder + "csvs/\(name).csv", encoding: .utf8)
            #expect(Self.csv(columns, rows) == Self.recordEndsCRLF(theirs), "\(name)")
        }
        for name in ["empty", "empty_crlf"] {
            let (columns, rows) = try Self.spectrumCase(name)
            #expect(Self.csv(columns, rows) == "a,b,c\r\n1,,\r\n2,3,4\r\n")
        }
    }

    /// `text` with each record end outside quotes (LF or CR LF) written CR LF, and one after
    /// the last record if it had none.
    static func recordEndsCRLF(_ text: String) -> String {
        var out: [UInt8] = [], quoted = false
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") { quoted.toggle() }
            if !quoted, byte == UInt8(ascii: "\r"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "\n") { i += 1; continue }
            if !quoted, byte == UInt8(ascii: "\n") { out += [13, 10] } else { out.append(byte) }
            i += 1
        }
        if out.suffix(2) != [13, 10] { out += [13, 10] }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bug: a field holding CR LF was written bare (CR LF is one `Character`, which the
    /// old test `$0 == "\n" || $0 == "\r"` never matched), so its record split in two.
    @Test func aFieldHoldingCRLFStaysOneRecord() async throws {
        let text = Self.csv(["id", "note"], [["1", "line one\r\nline two"], ["2", "plain"]])
        #expect(text == "id,note\r\n1,\"line one\r\nline two\"\r\n2,plain\r\n")
        let file = TemporaryDirectory("csv-crlf")
        try FileManager.default.createDirectory(atPath: file.path, withIntermediateDirectories: true)
        try text.write(toFile: file.sub("crlf.csv"), atomically: true, encoding: .utf8)
        let read = try await Self.pythonReads([file.sub("crlf.csv")])
        #expect(read == [Self.records(["id", "note"], [["1", "line one\r\nline two"], ["2", "plain"]])])
    }

    /// Each character that needs quoting, alone, doubled, mixed and followed by a combining
    /// mark (which makes one `Character` of it), at the start, middle and end of a field;
    /// spaces and tabs at the ends; a lone empty field. All read back exactly.
    @Test func everyCharacterThatNeedsQuotingRoundTrips() async throws {
        let specials = ["\"", ",", "\r", "\n", "\r\n", "\n\r", "\"\"", "\r\r", "\n\n", "\",\r\n"]
        var fields: [String] = []
        for special in specials {
            for mark in ["", "\u{301}", "\u{20DD}"] {
                fields += [special + mark, "a" + special + mark + "b", "a" + special + mark]
            }
        }
        fields += [" lead", "trail ", "\tlead", "trail\t", " ", "\t", "é, \"é\"\r\n😀", "plain", ""]
        let rows = fields.enumerated().map { [String($0.offset), $0.element] }
        let lone = [[""], ["x"], [""]]
        let dir = TemporaryDirectory("csv-characters")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        try Self.csv(["n", "field"], rows).write(toFile: dir.sub("fields.csv"), atomically: true, encoding: .utf8)
        try Self.csv(["only"], lone).write(toFile: dir.sub("lone.csv"), atomically: true, encoding: .utf8)
        let read = try await Self.pythonReads([dir.sub("fields.csv"), dir.sub("lone.csv")])
        #expect(read == [Self.records(["n", "field"], rows), Self.records(["only"], lone)])
        // The exact bytes for the cases the old writer got wrong.
        #expect(Self.csv(["a"], [["\"\u{301}"]]) == "a\r\n\"\"\"\u{301}\"\r\n")
        #expect(Self.csv(["a", "b"], [["x\n\u{301}", " y"]]) == "a,b\r\n\"x\n\u{301}\",\" y\"\r\n")
        #expect(Self.csv(["only"], [[""]]) == "only\r\n\"\"\r\n")
    }

    /// A record (`item`, `status`) and a message are the same writer's: a header row, then values.
    @Test func recordsAndMessagesWriteAHeaderAndQuoteAlike() {
        var renderer = Renderer()
        renderer.mode = .csv
        #expect(renderer.render(.record(pairs: [("name", "a\r\nb"), ("size", "1")], json: .null)) == "name,size\r\n\"a\r\nb\",1\r\n")
        #expect(renderer.render(.message("x", json: .object([("note", .string("a\r\nb")), ("n", .number(2))]))) == "note,n\r\n\"a\r\nb\",2\r\n")
        #expect(renderer.render(.message("x", json: .array([]))) == "value\r\n[]\r\n")
        #expect(renderer.render(.table(columns: ["id"], rows: [], records: [])) == "id\r\n")
    }
}
