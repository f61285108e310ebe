import AsyncHTTPClient
import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// `GET /api/stream` beyond the appended events: a `view` message for each view a snapshot
/// changed (and for no other), after that snapshot's events; a heartbeat comment.
@Suite(.serialized) struct ServeStreamTests {
    /// The views `export all` shows changed between two runs of it (apart from `asOf`), in
    /// registry order, then `all` when any did: what the stream must announce.
    static func changedViews(_ before: JSONValue, _ after: JSONValue) -> [String] {
        func members(_ all: JSONValue) -> [(String, JSONValue)] {
            guard case .object(let views)? = all["views"] else { return [] }
            return views.map { name, view in
                guard case .object(let fields) = view else { return (name, view) }
                return (name, .object(fields.filter { $0.0 != "asOf" }))
            }
        }
        let old = Dictionary(uniqueKeysWithValues: members(before))
        let changed = members(after).filter { old[$0.0] != $0.1 }.map(\.0)
        return changed.isEmpty ? [] : changed + ["all"]
    }

    @Test func viewMessagesNameExactlyTheViewsAFetchChanged() async throws {
        // v2 of the census: gnome 0 a year older, gnome 1337 added.
        var configuration = SampleUpstreamConfiguration()
        configuration.versions = DataVersions(brastlewark: .v2)
        let upstream = try SampleUpstream(configuration: configuration)
        let base = try await upstream.start().absoluteString
        let dir = try await ServeAPITests.sampleStore("serve-views")
        let server = try await ServeProcess(store: dir.path)
        func exportAll() async throws -> JSONValue {
            let all = try await runFetchlog(["--store", dir.path, "--format", "json", "export", "all"])
            #expect(all.status == 0, "\(all.stderr)")
            return try JSONValue.parse(all.stdout)
        }
        func fetchCensus() async throws {
            let fetched = try await runFetchlog(["--store", dir.path, "--upstream", base, "fetch", "brastlewark", "census"])
            #expect(fetched.status == 0, "\(fetched.stderr)")
        }
        let stream = try await SSEReader(server)
        #expect(try await stream.next() == .comment("subscribed after seq 13"))

        // Seq 14: the new census (200), from another process.
        var before = try await exportAll()
        try await fetchCensus()
        var after = try await exportAll()
        let changedByCensus = Self.changedViews(before, after)
        #expect(changedByCensus == ["friends", "gnomes", "status", "all"])
        #expect(try await stream.next() == .appended(14))
        var received: [SSEReader.Message] = []
        for _ in changedByCensus { received.append(try #require(try await stream.next())) }
        // Each with the ETag the API answers now, which is `export`'s hash.
        var expected: [SSEReader.Message] = []
        for name in changedByCensus {
            let etag = try #require(try await server.get("/api/views/" + name).headers.first(name: "ETag"))
            let exported = try await runFetchlog(["--store", dir.path, "--format", "json", "export", name])
            #expect(etag == "\"\(SHA256.hex(String(exported.stdout.dropLast())))\"", "\(name)")
            expected.append(.view(name, etag: etag, seq: 14))
        }
        #expect(received == expected)

        // Seq 15 and 16: the same census again, 304: no view of the data changes, only
        // `status` (its last check) and so `all`. Nothing else arrives in between.
        for seq: UInt64 in [15, 16] {
            before = after
            try await fetchCensus()
            after = try await exportAll()
            #expect(Self.changedViews(before, after) == ["status", "all"])
            #expect(try await stream.next() == .appended(seq))
            let status = try #require(try await server.get("/api/views/status").headers.first(name: "ETag"))
            let all = try #require(try await server.get("/api/views/all").headers.first(name: "ETag"))
            #expect(try await stream.next() == .view("status", etag: status, seq: seq))
            #expect(try await stream.next() == .view("all", etag: all, seq: seq))
        }
        await upstream.stop()
        try await server.stop()
    }

    @Test func twentyClientsEachReceiveEveryEventOfAPagedFetchInOrder() async throws {
        // 200 pages of one show, then the 404 that ends the list: 201 events from one
        // `fetch` in another process, folded by the server's watcher as they come.
        var configuration = SampleUpstreamConfiguration()
        configuration.tvmazePageSize = 1
        configuration.tvmazePages = 200
        let upstream = try SampleUpstream(configuration: configuration)
        let base = try await upstream.start().absoluteString
        let dir = try await ServeAPITests.sampleStore("serve-many")
        let server = try await ServeProcess(store: dir.path)
        var pool = HTTPClient.Configuration()
        pool.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 32)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: pool)
        var readers: [SSEReader] = []
        for _ in 0..<20 {
            let reader = try await SSEReader(server, client: client)
            #expect(try await reader.next() == .comment("subscribed after seq 13"))
            readers.append(reader)
        }
        let fetched = try await runFetchlog(["--store", dir.path, "--upstream", base, "fetch", "tvmaze", "shows", "--pages", "all"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        // Seq 14…213 the pages, 214 the end of the list; nothing after.
        let last: UInt64 = 214
        let tail = try JSONValue.parse(try await server.get("/api/log?from=213").body)
        let seqAndKind: [String] = (tail.arrayValue ?? []).map { "\($0["seq"]?.intValue ?? 0) \($0["kind"]?.stringValue ?? "")" }
        #expect(seqAndKind == ["213 fetched", "214 end-of-list"])
        #expect(try await server.get("/api/log?from=215").body == "[]\n")
        var received: [[SSEReader.Message]] = []
        for reader in readers {
            var messages: [SSEReader.Message] = []
            while messages.last != .appended(last), let message = try await reader.next() { messages.append(message) }
            received.append(messages)
        }
        for messages in received {
            // Every event once, in seq order …
            #expect(messages.compactMap { if case .appended(let seq) = $0 { seq } else { nil } } == Array(14...last))
            // … and each view message after its snapshot's events, before the next event.
            var lastEvent: UInt64 = 13
            for message in messages {
                switch message {
                case .appended(let seq): lastEvent = seq
                case .view(let name, _, let seq): #expect(seq == lastEvent, "\(name) at \(seq) after event \(lastEvent)")
                default: Issue.record("unexpected \(message)")
                }
            }
        }
        // All subscribed at one seq, so all were handed the same batches.
        #expect(Set(received.map { "\($0)" }).count == 1)
        try await client.shutdown()
        await upstream.stop()
        try await server.stop()
    }

    @Test func aQuietStreamGetsHeartbeats() async throws {
        let dir = try await ServeAPITests.sampleStore("serve-heartbeat")
        // The interval shortened from 15 s; what is asserted is that they come, not when.
        let server = try await ServeProcess(store: dir.path, environment: ["FETCHLOG_SERVE_HEARTBEAT_MS": "20"])
        let stream = try await SSEReader(server, heartbeats: true)
        #expect(try await stream.next() == .comment("subscribed after seq 13"))
        #expect(try await stream.next() == .comment("heartbeat"))
        #expect(try await stream.next() == .comment("heartbeat"))
        try await server.stop()
    }
}

/// Saved views (issue 35) on the stream: announced when saved, when their rows change and
/// when dropped — not when a fetch leaves their rows as they were.
@Suite(.serialized) struct ServeStreamSavedViewTests {
    @Test func aSavedViewIsAnnouncedWhenItsRowsChange() async throws {
        var configuration = SampleUpstreamConfiguration()
        configuration.versions = DataVersions(brastlewark: .v2)
        let upstream = try SampleUpstream(configuration: configuration)
        let base = try await upstream.start().absoluteString
        let dir = try await ServeAPITests.sampleStore("serve-saved-stream")
        let server = try await ServeProcess(store: dir.path)
        let stream = try await SSEReader(server)
        #expect(try await stream.next() == .comment("subscribed after seq 13"))
        func cli(_ arguments: [String]) async throws {
            let result = try await runFetchlog(["--store", dir.path, "--upstream", base] + arguments)
            #expect(result.status == 0, "\(result.stderr)")
        }
        func etag(_ view: String) async throws -> String? {
            try await server.get("/api/views/" + view).headers.first(name: "ETag")
        }
        // Seq 14: saved by another process; no fixed view changes.
        try await cli(["sql", "CREATE VIEW town AS SELECT count(*) AS gnomes FROM gnomes"])
        #expect(try await stream.next() == .appended(14))
        let saved = try #require(try await etag("town"))
        #expect(try await stream.next() == .view("town", etag: saved, seq: 14))
        #expect(try await server.get("/api/views/town").body.contains(#""rows":[{"gnomes":1337}]"#))
        // Seq 15: census v2 (one gnome more): the fixed views, then the saved one.
        try await cli(["fetch", "brastlewark", "census"])
        #expect(try await stream.next() == .appended(15))
        for name in ["friends", "gnomes", "status", "all"] {
            #expect(try await stream.next() == .view(name, etag: try await etag(name), seq: 15))
        }
        let grown = try #require(try await etag("town"))
        #expect(grown != saved)
        #expect(try await stream.next() == .view("town", etag: grown, seq: 15))
        // Seq 16: 304, the rows as they were: status and all only.
        try await cli(["fetch", "brastlewark", "census"])
        #expect(try await stream.next() == .appended(16))
        #expect(try await stream.next() == .view("status", etag: try await etag("status"), seq: 16))
        #expect(try await stream.next() == .view("all", etag: try await etag("all"), seq: 16))
        // Seq 17: dropped; nothing arrived in between.
        try await cli(["sql", "DROP VIEW town"])
        #expect(try await stream.next() == .appended(17))
        #expect(try await stream.next() == .view("town", etag: nil, seq: 17))
        await upstream.stop()
        try await server.stop()
    }
}

/// Reads `/api/stream` one message at a time (comments included; heartbeats only when
/// `heartbeats`: under load a test outlives the 15 s interval, and one arrives anywhere).
final class SSEReader {
    enum Message: Equatable {
        case comment(String)
        case appended(UInt64)
        case view(String, etag: String?, seq: UInt64)
        case other(String)
    }

    private var body: HTTPClientResponse.Body.AsyncIterator
    private var pending = ""
    private let heartbeats: Bool

    init(_ server: ServeProcess, lastEventID: UInt64? = nil, client: HTTPClient? = nil, heartbeats: Bool = false) async throws {
        self.heartbeats = heartbeats
        var request = HTTPClientRequest(url: server.base + "/api/stream")
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: String(lastEventID)) }
        let response = try await (client ?? server.client).execute(request, timeout: .seconds(600))
        body = response.body.makeAsyncIterator()
    }

    /// The next message, or nil when the stream ended.
    func next() async throws -> Message? {
        while true {
            if let end = pending.range(of: "\n\n") {
                let text = String(pending[..<end.lowerBound])
                pending = String(pending[end.upperBound...])
                let message = Self.parse(text)
                if message == .comment("heartbeat"), !heartbeats { continue }
                return message
            }
            guard let chunk = try await body.next() else { return nil }
            pending += String(buffer: chunk)
        }
    }

    static func parse(_ text: String) -> Message {
        if text.hasPrefix(": ") { return .comment(String(text.dropFirst(2))) }
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            fields[String(parts[0])] = parts.count > 1 ? String(parts[1].dropFirst()) : ""
        }
        switch fields["event"] {
        case "appended":
            if let id = fields["id"].flatMap({ UInt64($0) }) { return .appended(id) }
        case "view":
            if let data = fields["data"].flatMap({ try? JSONValue.parse($0) }), fields["id"] == nil,
               let name = data["view"]?.stringValue, let seq = data["seq"]?.intValue.map(UInt64.init) {
                return .view(name, etag: data["etag"]?.stringValue, seq: seq)
            }
        default:
            break
        }
        return .other(text)
    }
}
