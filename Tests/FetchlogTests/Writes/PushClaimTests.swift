import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore

/// One pusher at a time per store (issue 33): a push that finds the claim held waits, says
/// so, and sends nothing until it is free; `pending` tells a mutation being sent by a live
/// pusher from one left in doubt by a pusher that died (kill -9).
@Suite struct PushClaimTests {
    /// Reads `handle` line by line until a line holds `text` (or the stream ends): the lines read.
    static func lines(_ handle: FileHandle, until text: String) async throws -> [String] {
        try await offPool {
            // Bytes until a newline, decoded whole (a character may take several bytes: `…`).
            var lines: [String] = [], bytes: [UInt8] = []
            while true {
                let byte = handle.readData(ofLength: 1)
                if byte.isEmpty { return lines }
                if byte.first != UInt8(ascii: "\n") { bytes.append(contentsOf: byte); continue }
                lines.append(String(decoding: bytes, as: UTF8.self))
                bytes = []
                if lines.last!.contains(text) { return lines }
            }
        }
    }

    @Test func aPushFindingTheClaimHeldByAnotherProcessWaitsAndSaysSo() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("writes-claim-wait")
        let store = try await OfflineWritesTests.openStore(dir, "store", upstream: upstream.base)
        let change = try await store.write(.update, source: "catalog", resource: "notes", key: "1", fields: [("done", .bool(true))])
        let path = store.log.path
        // Another pusher holds the claim: this test process, as `fetchlog push` would hold it.
        let holder = PushClaim.Holder(pid: getpid(), started: Timestamp(milliseconds: 1_800_000_000_000), doing: "push")
        let claim = try await PushClaim.take(path, as: holder)
        #expect(PushClaim.holder(path) == holder)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Repo.executable)
        process.arguments = ["--store", path, "--upstream", upstream.base, "--retries", "0", "push"]
        let out = Pipe(), errors = Pipe()
        process.standardOutput = out
        process.standardError = errors
        try process.run()
        let said = try await Self.lines(errors.fileHandleForReading, until: "waiting for it to finish")
        #expect(said == ["fetchlog: push: another push (pid \(getpid()), push started \(Timestamp(milliseconds: 1_800_000_000_000).iso8601)) is sending this store's writes; waiting for it to finish…"])
        // It waits: nothing sent while the claim is held.
        #expect(process.isRunning)
        #expect(await upstream.server.appliedWrites.isEmpty)
        #expect(await upstream.asked.filter { $0.hasPrefix("/catalog/notes/") }.isEmpty)
        // Released, the waiting push takes it (and says so to `pending` while it holds it).
        claim.release()
        try await offPool { process.waitUntilExit() }
        #expect(process.terminationStatus == 0)
        #expect(PushClaim.holder(path) == nil)
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed == """
            waited for another push (pid \(getpid()), push started \(Timestamp(milliseconds: 1_800_000_000_000).iso8601)) to finish first
            \(change.seq) PATCH /notes/1: confirmed 200
            1 confirmed

            """)
        #expect(await upstream.server.appliedWrites.map { "\($0.method) \($0.path) \($0.key ?? "-")" } == ["PATCH /catalog/notes/1 \(change.idempotencyKey)"])
        await store.close()
        await upstream.stop()
    }

    /// In one process (two requests to one `serve`, the shell's auto-push beside a push):
    /// the second waits for the first's turn, told whom it waits for, and sends after it.
    @Test func aSecondPushInTheSameProcessWaitsForTheFirst() async throws {
        let upstream = try await CatalogUpstream.start()
        await upstream.server.setHonoursIdempotencyKey(false)
        let dir = TemporaryDirectory("writes-claim-process")
        let store = try await OfflineWritesTests.openStore(dir, "store", upstream: upstream.base)
        let change = try await store.write(.update, source: "catalog", resource: "notes", key: "3", fields: [("priority", .number(1))])
        let holder = PushClaim.Holder(pid: getpid(), started: Timestamp(milliseconds: 1_800_000_000_000), doing: "push")
        let claim = try await PushClaim.take(store.log.path, as: holder)
        let (told, tell) = AsyncStream.makeStream(of: PushClaim.Holder.self)
        let pushing = Task { try await store.push(source: nil, resource: nil, automatic: false, who: .person, waiting: { tell.yield($0) }) }
        var waitingFor: PushClaim.Holder?
        for await holder in told { waitingFor = holder; break }
        #expect(waitingFor == holder)
        #expect(await upstream.server.appliedWrites.isEmpty)
        claim.release()
        let report = try await pushing.value
        #expect(report.confirmed == [change.seq])
        #expect(report.waitedFor == "pid \(getpid()), push started \(Timestamp(milliseconds: 1_800_000_000_000).iso8601)")
        // Two more at once: one sends, the other finds it answered (the server ignores keys).
        let again = try await store.write(.update, source: "catalog", resource: "notes", key: "3", fields: [("priority", .number(2))])
        async let one = store.push()
        async let two = store.push()
        let reports = try await [one, two]
        #expect(reports.flatMap(\.confirmed) == [again.seq])
        #expect(await upstream.server.appliedPerNote == [3: 2])
        // A cancelled wait returns at once and takes nothing.
        let held = try await PushClaim.take(store.log.path, as: holder)
        let cancelled = Task { try await store.push() }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        held.release()
        #expect(PushClaim.holder(store.log.path) == nil)
        await store.close()
        await upstream.stop()
    }

    /// `pending` while a push holds its request in flight names the live pusher; after that
    /// push is killed (SIGKILL) it names the mutation in doubt; the next push sends it again
    /// with the same key (the server, honouring it, applies it once).
    @Test func pendingTellsAMutationBeingSentFromOneLeftInDoubtByAKill() async throws {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("writes-claim-doubt")
        let store = try await OfflineWritesTests.openStore(dir, "store", upstream: upstream.base)
        let change = try await store.write(.update, source: "catalog", resource: "notes", key: "2", fields: [("done", .bool(false))])
        let path = store.log.path
        await store.close()
        // The server holds the request until the client goes away.
        await upstream.server.setFaults(try FaultSpec.parse("no-answer@catalog/notes/2"))
        let process = try ExactlyOnceKillTests.startPush(store: path, upstream: upstream.base)
        while !(await upstream.asked.contains("/catalog/notes/2")) {
            #expect(process.isRunning)
            try await Task.sleep(for: .milliseconds(5))
        }
        func pending() async throws -> JSONValue {
            let listed = try await runFetchlog(["--store", path, "pending", "--format", "json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            return try #require(try JSONValue.parse(listed.stdout).arrayValue?.first)
        }
        let sending = try await pending()
        #expect(sending["state"] == .string("sending") && sending["inDoubt"] == .bool(false))
        #expect(sending["sender"]?["pid"]?.intValue == Int(process.processIdentifier))
        #expect(sending["note"]?.stringValue?.hasPrefix("being sent now by pid \(process.processIdentifier) (push started ") == true, "\(sending)")

        kill(process.processIdentifier, SIGKILL)
        try await offPool { process.waitUntilExit() }
        let log = try EventLog.open(at: path)
        let sent = try #require(try log.events(from: change.seq).last { $0.label == WriteEvents.sending })
        log.close()
        let doubt = try await pending()
        #expect(doubt["state"] == .string("sending") && doubt["inDoubt"] == .bool(true) && doubt["sender"] == .null)
        // A PATCH without If-Match, the manifest silent on Idempotency-Key: sync leaves it for
        // a person (issue 44), and the note shows the server's note 2 as held.
        let held = try #require(doubt["server"])
        #expect(held["id"] == .number("2"), "\(doubt)")
        #expect(doubt["waitsForAPerson"] == .bool(true))
        #expect(doubt["note"] == .string("in doubt: sent at seq \(sent.seq) (\(sent.recordedAt.iso8601)), no answer recorded; its sender is gone; "
            + "sync does not send it again by itself (a PATCH without If-Match, and the manifest does not say the upstream honours Idempotency-Key): "
            + "pending retry \(change.seq) sends it again with the same Idempotency-Key \(change.idempotencyKey) (as push does), "
            + "pending discard \(change.seq) drops it; the server's item as last held: \(held.canonicalText())"))
        let table = try await runFetchlog(["--store", path, "pending"])
        #expect(table.stdout.contains("\n\(change.seq): in doubt: sent at seq \(sent.seq) "), "\(table.stdout)")
        #expect(table.stdout.contains("in doubt"), "\(table.stdout)")

        await upstream.server.clearFaults()
        let again = try await runFetchlog(["--store", path, "--upstream", upstream.base, "--retries", "0", "push"])
        #expect(again.status == 0 && again.stdout == "\(change.seq) PATCH /notes/2: confirmed 200\n1 confirmed\n", "\(again.stdout)\(again.stderr)")
        #expect(await upstream.server.appliedWrites.map { "\($0.method) \($0.path) \($0.key ?? "-")" } == ["PATCH /catalog/notes/2 \(change.idempotencyKey)"])
        #expect(try await runFetchlog(["--store", path, "pending", "--format", "json"]).stdout == "[]\n")
        await upstream.stop()
    }
}
