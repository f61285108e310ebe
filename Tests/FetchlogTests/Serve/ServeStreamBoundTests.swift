import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogServe

/// Issue 33: `/api/stream` clients that never read. Each is held to
/// `StreamOutbox.maxUnreadBytes` (256 KiB) unread, then dropped with `event: dropped` (why,
/// and the Last-Event-ID that resumes it); the server's memory stays under the bound the
/// README states for them (clients × 256 KiB), where before each client's queue grew with
/// every event. Measured against the same appends on a server without idle clients.
@Suite(.serialized) struct ServeStreamBoundTests {
    static let clients = 200
    static let steps = 20
    static let eventsPerStep = 100

    /// `steps` exports of a log of `steps × eventsPerStep` events, the k-th holding the
    /// first k × eventsPerStep: importing them in turn appends one step at a time. Each
    /// event's `/api/log` row is about 2 KiB (a 900-character label and url), so each idle
    /// client is sent about 4 MB in all: on loopback the server's kernel send buffer takes
    /// about 2 MB of it (its MSS is 64 KiB, so autotuning grows it fast), the rest waits
    /// in the server, where the bound holds.
    static func growingExports(_ dir: TemporaryDirectory) async throws -> [String] {
        try await offPool {
            let source = try EventLog.open(at: dir.sub("source"))
            let padding = String(repeating: "p", count: 900)
            let events = (0 ..< steps * eventsPerStep).map { i in
                Event(recordedAt: fixedTime, kind: .fetched, source: "tvmaze", label: "/shows/\(i)/\(padding)",
                      request: Event.Request(url: "http://127.0.0.1:1/tvmaze/shows/\(i)/\(padding)"), response: Event.Response(status: 200, headers: []),
                      body: Array("[]".utf8))
            }
            _ = try source.appendBlocking(contentsOf: events)
            var lines: [String] = []
            _ = try source.exportNDJSON { lines.append($0) }
            source.close()
            return try (1 ... steps).map { k in
                let path = dir.sub("step-\(k).ndjson")
                try lines.prefix(k * eventsPerStep).joined().write(toFile: path, atomically: true, encoding: .utf8)
                return path
            }
        }
    }

    /// The serve process's resident memory, from /proc: `VmRSS` now, or `VmHWM` its peak.
    static func memory(_ pid: Int32, _ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        let kilobytes = try #require(Int(line.split(separator: " ").dropFirst().first ?? ""))
        return kilobytes << 10
    }

    /// 2,000 events, 100 an import: each waits until `reader` has the step's last event
    /// (its batch was handed to every subscriber). Returns the seqs `reader` received.
    static func append(_ exports: [String], to dir: TemporaryDirectory, reading reader: SSEReader) async throws -> [UInt64] {
        var received: [UInt64] = []
        for (k, export) in exports.enumerated() {
            let imported = try await runFetchlog(["--store", dir.path, "log", "import", export])
            #expect(imported.status == 0, "\(imported.stderr)")
            let last = UInt64(13 + (k + 1) * eventsPerStep)
            while received.last != last {
                switch try #require(try await reader.next()) {
                case .appended(let seq): received.append(seq)
                case .view: break
                case let other: Issue.record("the reading client got \(other)")
                }
            }
        }
        return received
    }

    @Test func idleClientsAreDroppedWithTheReasonAndTheServerStaysUnderTheBound() async throws {
        let work = TemporaryDirectory("serve-idle-exports")
        try FileManager.default.createDirectory(atPath: work.path, withIntermediateDirectories: true)
        let exports = try await Self.growingExports(work)

        // What the same appends cost a server with no idle client (folding them, their
        // views, rendering them once): about 80 MiB on this log. Idle clients may add at
        // most their bound to it.
        let control = try await ServeAPITests.sampleStore("serve-idle-control")
        let quiet = try await ServeProcess(store: control.path)
        let quietReader = try await SSEReader(quiet)
        #expect(try await quietReader.next() == .comment("subscribed after seq 13"))
        let quietBefore = try Self.memory(quiet.process.processIdentifier, "VmRSS")
        _ = try await Self.append(exports, to: control, reading: quietReader)
        let appendsCost = try Self.memory(quiet.process.processIdentifier, "VmHWM") - quietBefore
        try await quiet.stop()

        let dir = try await ServeAPITests.sampleStore("serve-idle-clients")
        let server = try await ServeProcess(store: dir.path)
        let port = try #require(Int(server.base.split(separator: ":").last ?? ""))
        let pid = server.process.processIdentifier

        // One client that reads: the condition each step waits on (its batch was handed
        // to every subscriber), and a client that keeps up must never be dropped.
        let reader = try await SSEReader(server)
        #expect(try await reader.next() == .comment("subscribed after seq 13"))
        // 200 that never read past their subscription, each with a 4 KiB receive buffer:
        // their kernels hold little; past the server's send buffer, the rest waits in the server.
        let subscribed = Array(": subscribed after seq 13\n\n".utf8)
        let idle: [RawHTTPConnection] = try await offPool {
            try (0 ..< Self.clients).map { _ in
                let connection = try RawHTTPConnection(port: port, receiveBuffer: 4096)
                try connection.send("GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
                connection.read { RawHTTPConnection.find(subscribed, in: $0, from: 0) != nil }
                return connection
            }
        }
        let before = try Self.memory(pid, "VmRSS")

        let received = try await Self.append(exports, to: dir, reading: reader)
        let last = UInt64(13 + Self.steps * Self.eventsPerStep)
        #expect(received == Array(14 ... last))

        // Each idle client: what it was sent, read now to its end. Every event in order up
        // to the one the drop names, then the drop, then the end of the stream.
        let reason = { (seq: UInt64) in
            "this client fell behind: 262144 bytes were waiting unread, the most a client is held; reconnect with Last-Event-ID: \(seq) to resume after the last event sent"
        }
        let outcomes: [(ids: [UInt64], last: String, ended: Bool)] = try await offPool {
            idle.map { connection in
                connection.widenReceiveBuffer()
                // The last chunk (size 0) ends it: nothing is sent after it.
                let bytes = connection.read { $0.suffix(7).elementsEqual("\r\n0\r\n\r\n".utf8) }
                guard let (body, ended) = RawHTTPConnection.dechunk(bytes) else { return ([], "broken chunks", false) }
                let messages = String(decoding: body, as: UTF8.self).components(separatedBy: "\n\n").filter { !$0.isEmpty }
                let ids = messages.compactMap { message -> UInt64? in
                    guard case .appended(let seq) = SSEReader.parse(message) else { return nil }
                    return seq
                }
                return (ids, messages.last ?? "", ended)
            }
        }
        var resumeAfter: UInt64 = 0
        for (index, outcome) in outcomes.enumerated() {
            let lastSent = outcome.ids.last ?? 13
            #expect(outcome.ids == Array(14 ..< lastSent + 1), "client \(index)")
            #expect(lastSent < last, "client \(index) was sent everything: it was never dropped")
            let data = JSONValue.object([("reason", .string(reason(lastSent))), ("lastEventId", .number(lastSent))]).canonicalText()
            #expect(outcome.last == "event: dropped\ndata: \(data)", "client \(index)")
            #expect(outcome.ended, "client \(index)")
            resumeAfter = lastSent
        }
        // The peak while the clients lagged, over the resident size with them subscribed:
        // at most what the appends cost without them, and each client's 256 KiB.
        let growth = try Self.memory(pid, "VmHWM") - before
        let bound = appendsCost + Self.clients * 256 << 10
        #expect(growth < bound, "the server grew \(growth >> 20) MiB with \(Self.clients) idle clients; the bound is \(bound >> 20) MiB (\(appendsCost >> 20) MiB the appends' own)")
        print("serve with \(Self.clients) idle stream clients: grew \(growth >> 20) MiB (from \(before >> 20) MiB); without them the appends cost \(appendsCost >> 20) MiB; bound \(bound >> 20) MiB")

        // A dropped client resumes with the Last-Event-ID the drop named: nothing missed.
        let resumed = try await server.streamIDs(after: resumeAfter, until: last)
        #expect(resumed == Array(resumeAfter + 1 ... last))
        _ = idle
        try await server.stop()
    }
}
