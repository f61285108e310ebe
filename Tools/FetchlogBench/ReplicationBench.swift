// fetchlog-bench --replication: seeding a JetStream stream from a store and a replica's
// catch-up, each beside raw nats.c doing the same transfer in the same run against the
// same local nats-server (-js, file storage): `js_PublishMsgAsync` of the same records,
// and a pull consumer fetching the same stream in batches.
import CNATS
import FetchlogCore
import FetchlogNATS
import FetchlogReplication
import FetchlogSources
import Foundation

func runReplicationBenchmark(quick: Bool) {
    let count = quick ? 10_000 : 100_000
    let serverDir = tempDir("nats")
    let port = 24_000 + Int(getpid() % 1000)
    let server = Process()
    let executable = ["/usr/bin/nats-server", "/usr/sbin/nats-server", "/usr/local/bin/nats-server"]
        .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "nats-server"
    server.executableURL = URL(fileURLWithPath: executable)
    server.arguments = ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", serverDir]
    server.standardOutput = FileHandle.nullDevice
    server.standardError = FileHandle.nullDevice
    try! server.run()
    defer { server.terminate(); server.waitUntilExit() }
    let url = "nats://127.0.0.1:\(port)"
    var nats: NATSConnection?
    for _ in 0 ..< 100 where nats == nil {
        nats = try? NATSConnection(servers: [url])
        if nats == nil { usleep(50_000) }
    }
    guard let nats else { fatalError("nats-server did not start on \(url)") }

    // A store of `count` events with 1 KiB bodies, each different.
    let source = tempDir("repl-a")
    let log = try! EventLog.open(at: source)
    let body = TestPattern.bytes(count: 1024, seed: 3)
    var seq = 0
    while seq < count {
        let events = (0 ..< min(5000, count - seq)).map { benchEvent(seq + $0, body: body) }
        seq += try! log.appendBlocking(contentsOf: events).count
    }
    let records: [[UInt8]] = try! log.events(from: 1).map { event in
        var copy = event
        copy.origin = Event.Origin(store: log.metadata.storeID, seq: event.seq)
        return EnvelopeCodec.encode(copy)
    }
    let bytes = records.reduce(0) { $0 + $1.count }

    // Fetchlog: seeding (one acknowledged publish per event, expecting the stream's last seq).
    var seeded = 0
    let seedTime = seconds {
        if case .seeded(let n) = try! Replication.attach(log, nats: nats, stream: "FETCHLOG") { seeded = n }
    }
    // Raw: js_PublishMsgAsync of the same records into a stream of its own, then wait for every ack.
    _ = try! nats.ensureStream(name: "RAW", subjects: ["raw.>"])
    var rawPublished = 0
    let rawPublishTime = seconds { rawPublished = rawPublishAsync(url: url, subject: "raw.events", records: records) }

    // Fetchlog: a replica catching up (pull consumer, decode and check each record, append in batches).
    let replica = try! EventLog.open(at: tempDir("repl-b"))
    _ = try! Replication.attach(replica, nats: nats)
    var applied = 0
    let followTime = seconds { applied = try! Replication.catchUp(replica, nats: nats, stream: "FETCHLOG") }
    // Raw: a pull consumer fetching the same stream, copying each message's data out.
    var rawRead = 0
    let rawReadTime = seconds {
        let reader = try! nats.reader(stream: "FETCHLOG", subject: "fetchlog.events.>", from: 1)
        while rawRead < count {
            // No more than the stream holds: a fetch short of its batch waits out its expiry.
            let batch = try! reader.next(batch: min(256, count - rawRead), wait: .seconds(2))
            if batch.isEmpty { break }
            rawRead += batch.count
        }
    }
    let same = try! ViewCatalog.export("all", state: try! Store.replay(replica, sources: SeedSources.registry).state).canonicalText()
        == (try! ViewCatalog.export("all", state: try! Store.replay(log, sources: SeedSources.registry).state).canonicalText())

    // Fetchlog: writes through the stream, one at a time as a fetch makes them (outbox put,
    // publish with the expected subject seq, take it back, apply): read-your-writes.
    let writes = quick ? 500 : 2_000
    try! Replication.routeAppendsIfAttached(replica)
    let written = (0 ..< writes).map { benchEvent(count + $0, body: body) }
    let writeTime = seconds {
        for event in written { _ = waitFor { try await replica.append(event) } }
    }
    // Raw: `js_PublishMsg` of records of the same size, each waiting for its ack.
    let rawWriteTime = seconds { rawPublishSync(url: url, subject: "raw.writes", records: Array(records.prefix(writes))) }

    func rate(_ n: Int, _ t: Double) -> String { String(format: "%.0f events/s, %.1f MB/s", Double(n) / t, Double(bytes) / t / 1e6) }
    print("## Replication through JetStream: \(count) events of ~\(bytes / count) B (1 KiB bodies), one local nats-server -js (file storage)")
    print("")
    print("| transfer | Fetchlog | raw nats.c | ratio |")
    print("|---|---:|---:|---:|")
    print("| publish (seed a stream) | \(rate(seeded, seedTime)) | \(rate(rawPublished, rawPublishTime)) (`js_PublishMsgAsync`) | \(String(format: "%.2f", rawPublishTime / seedTime)) |")
    print("| read (replica catch-up) | \(rate(applied, followTime)) | \(rate(rawRead, rawReadTime)) (pull consumer, batches of 256) | \(String(format: "%.2f", rawReadTime / followTime)) |")
    func each(_ n: Int, _ t: Double) -> String { String(format: "%.0f writes/s, %.2f ms each", Double(n) / t, t / Double(n) * 1000) }
    print("| write through the stream, one at a time | \(each(writes, writeTime)) | \(each(writes, rawWriteTime)) (`js_PublishMsg`, ack awaited) | \(String(format: "%.2f", rawWriteTime / writeTime)) |")
    print("")
    print("- replica's `export all` identical to the source's: \(same ? "yes" : "NO")")
    log.close()
    replica.close()
}

/// Publishes every record asynchronously on its own connection and waits for all acks.
private func rawPublishAsync(url: String, subject: String, records: [[UInt8]]) -> Int {
    var nc: OpaquePointer?
    precondition(natsConnection_ConnectTo(&nc, url) == NATS_OK)
    var js: OpaquePointer?
    var options = jsOptions()
    jsOptions_Init(&options)
    options.PublishAsync.MaxPending = 4096
    precondition(natsConnection_JetStream(&js, nc, &options) == NATS_OK)
    for record in records {
        var message: OpaquePointer?
        record.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                _ = natsMsg_Create(&message, subject, nil, $0, Int32(buffer.count))
            }
        }
        precondition(js_PublishMsgAsync(js, &message, nil) == NATS_OK)
    }
    var completion = jsPubOptions()
    jsPubOptions_Init(&completion)
    completion.MaxWait = 60_000
    precondition(js_PublishAsyncComplete(js, &completion) == NATS_OK)
    jsCtx_Destroy(js)
    natsConnection_Destroy(nc)
    return records.count
}

/// Publishes every record synchronously, each waiting for its ack.
private func rawPublishSync(url: String, subject: String, records: [[UInt8]]) {
    var nc: OpaquePointer?
    precondition(natsConnection_ConnectTo(&nc, url) == NATS_OK)
    var js: OpaquePointer?
    precondition(natsConnection_JetStream(&js, nc, nil) == NATS_OK)
    for record in records {
        var ack: UnsafeMutablePointer<jsPubAck>?
        let status = record.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                js_Publish(&ack, js, subject, $0, Int32(buffer.count), nil, nil)
            }
        }
        precondition(status == NATS_OK)
        jsPubAck_Destroy(ack)
    }
    jsCtx_Destroy(js)
    natsConnection_Destroy(nc)
}

/// Runs async work to its end from synchronous code.
private func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> T {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<T, any Error>!
    Task {
        do { result = .success(try await body()) } catch { result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try! result.get()
}
