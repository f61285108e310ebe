import FetchlogCore
import Foundation
import SampleUpstream
import Testing

/// Issue 44, item 7: unattended pushes never repeat an unsafe write on their own. A write in
/// doubt (sent, no answer recorded: the server may have applied it) is sent again by `sync`
/// (and the shell's background push) only when its request is idempotent (PUT, DELETE, a
/// PATCH with `If-Match`) or the manifest says the upstream honours `Idempotency-Key`
/// (`fetchlog.writes.idempotency_key: "honoured"`); otherwise it waits for a person
/// (`pending retry ID`, `push`). Counted at the sample notes server, per Idempotency-Key.
@Suite struct UnattendedResendTests {
    /// The notes manifest, its writes saying (or not) that the upstream honours the key.
    static func manifest(honoured: Bool) -> String {
        let writes = honoured ? OfflineWritesTests.writes.replacingOccurrences(of: #""writes":{"#, with: #""writes":{"idempotency_key":"honoured","#)
            : OfflineWritesTests.writes
        let notes = #"{"name":"notes","primary_key":"id","endpoint":{"path":"notes","data_selector":"data","paginator":"single_page"},"fetchlog":{"# + writes + "}}"
        return #"{"name":"catalog","client":{"base_url":"https://catalog.example"},"resources":["# + notes + "]}"
    }

    /// A store of its own over `upstream`: the manifest defined, the notes fetched.
    static func openStore(_ path: String, upstream: String, honoured: Bool) async throws -> Store {
        var configuration = Store.Configuration()
        configuration.fetching.upstream = Upstream(base: upstream)
        configuration.fetching.retry.retries = 0
        let store = try await Store.open(at: URL(filePath: path), sources: SourceRegistry([]), configuration: configuration)
        try await store.define(try RestManifest(json: try JSONValue.parse(Self.manifest(honoured: honoured))))
        _ = try await store.fetchManifestResource(source: "catalog", resource: "notes")
        return store
    }

    static func sync(_ path: String, _ upstream: CatalogUpstream) async throws -> CommandResult {
        try await runFetchlog(["--store", path, "--upstream", upstream.base, "--retries", "0", "sync", "--once"])
    }

    static func pending(_ path: String) async throws -> [JSONValue] {
        let listed = try await runFetchlog(["--store", path, "--format", "json", "pending"])
        #expect(listed.status == 0, "\(listed.stderr)")
        return try JSONValue.parse(listed.stdout).arrayValue ?? []
    }

    /// Applied writes at the server, by Idempotency-Key.
    static func appliedByKey(_ upstream: CatalogUpstream) async -> [String: Int] {
        var counts: [String: Int] = [:]
        for write in await upstream.server.appliedWrites { counts[write.key ?? "-", default: 0] += 1 }
        return counts
    }

    /// (a) and (b): 20 seeded trials each of the real `fetchlog sync` killed with SIGKILL
    /// while it sends three writes (a create, two PATCHes without If-Match), then `sync
    /// --once`. Ignoring the key, with the manifest silent: the next sync sends none in
    /// doubt again (each applied as often as when the kill came: at most once), `pending`
    /// shows each in doubt, and `pending retry ID` has the next sync send it. Honouring the
    /// key, with the manifest saying so: the next sync sends them again itself, and each is
    /// applied exactly once.
    @Test(arguments: [false, true])
    func syncKilledMidPushNeverResendsAnUnsafeWriteUnlessTheUpstreamHonoursTheKey(honoured: Bool) async throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["FETCHLOG_KILL_SEED"] ?? "") ?? 0x2026_0044
        var random = JSONTapeTests.SplitMix(state: seed &+ (honoured ? 1 : 0))
        let upstream = try await CatalogUpstream.start()
        await upstream.server.setHonoursIdempotencyKey(honoured)
        let dir = TemporaryDirectory("writes-unattended-\(honoured)")
        var doubtfulCreatesApplied = 0, killed = 0, leftInDoubt = 0
        for trial in 0 ..< 20 {
            let context = "seed \(seed) (FETCHLOG_KILL_SEED to repeat), honoured \(honoured), trial \(trial)"
            await upstream.server.clearFaults()
            await upstream.server.resetNotes()
            let path = dir.sub("t\(trial)")
            let store = try await Self.openStore(path, upstream: upstream.base, honoured: honoured)
            let mutations = [
                try await store.write(.create, source: "catalog", resource: "notes", fields: [("title", .string("trial \(trial)"))]),
                try await store.write(.update, source: "catalog", resource: "notes", key: "1", fields: [("priority", .number(trial % 5 + 1))]),
                try await store.write(.update, source: "catalog", resource: "notes", key: "3", fields: [("done", .bool(trial % 2 == 0))]),
            ]
            let id = store.log.metadata.storeID
            let keys = mutations.map { "\(id):\($0.seq)" }
            await store.close()
            await upstream.server.clearRequestLog()
            // Each write waits 40 ms at the server: the kill finds one in flight, or applied
            // with its answer not yet recorded. The moment: `count` writes sent (recorded) or
            // applied.
            await upstream.server.setFaults(try FaultSpec.parse("latency=40ms@catalog/notes"))
            let byApplied = Bool.random(using: &random)
            let count = Int.random(in: 1 ... 3, using: &random)
            let observer = try EventLog.open(at: path)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Repo.executable)
            process.arguments = ["--store", path, "--upstream", upstream.base, "--retries", "0", "sync", "--once"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            func reached() async throws -> Bool {
                byApplied ? await upstream.server.appliedWrites.count >= count
                    : try ExactlyOnceKillTests.sentAndAnswered(observer, from: mutations[0].seq).sent.count >= count
            }
            while process.isRunning, !(try await reached()) { try await Task.sleep(for: .milliseconds(2)) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killed += 1
            }
            try await offPool { process.waitUntilExit() }
            // A request the server received before the kill is still applied after it (its
            // latency over), unless its body never arrived whole: the server has settled once
            // it has logged an end for every request it received. (The POST is the sync's
            // first request; its reads come after its writes.)
            while await upstream.server.requestLog.count < (await upstream.server.receivedPaths).count {
                try await Task.sleep(for: .milliseconds(2))
            }
            let asked = await upstream.asked
            let received = [!asked.isEmpty, asked.contains("/catalog/notes/1"), asked.contains("/catalog/notes/3")]
            await upstream.server.clearFaults()
            let (sent, answered) = try ExactlyOnceKillTests.sentAndAnswered(observer, from: mutations[0].seq)
            observer.close()
            let doubt = mutations.filter { sent.contains($0.seq) && !answered.contains($0.seq) }.map(\.seq)
            leftInDoubt += doubt.count
            let atKill = await Self.appliedByKey(upstream)
            if atKill[keys[0]] == 1, doubt.contains(mutations[0].seq) { doubtfulCreatesApplied += 1 }
            #expect(zip(keys, received).allSatisfy { (atKill[$0] ?? 0) <= ($1 ? 1 : 0) }, "\(context): \(atKill), asked \(asked)")

            // The next sync, unattended.
            let next = try await Self.sync(path, upstream)
            #expect(next.status == 0, "\(context): \(next.stdout)\(next.stderr)")
            let afterNext = await Self.appliedByKey(upstream)
            let waiting = try await Self.pending(path)
            if honoured {
                // Sent again by itself, replayed by the key: each applied exactly once, none waits.
                #expect(keys.map { afterNext[$0] ?? 0 } == [1, 1, 1], "\(context): doubt \(doubt), \(afterNext)")
                #expect(waiting.isEmpty, "\(context): \(waiting)")
                continue
            }
            // In doubt: not sent again (applied as often as at the kill: 0 or 1); the others
            // sent once.
            let expected = mutations.enumerated().map { index, mutation in doubt.contains(mutation.seq) ? atKill[keys[index]] ?? 0 : 1 }
            #expect(keys.map { afterNext[$0] ?? 0 } == expected, "\(context): doubt \(doubt), at the kill \(atKill), after \(afterNext)")
            // `pending` shows exactly those, in doubt, waiting for a person, with the server's
            // item held (a create's: none).
            #expect(waiting.compactMap { $0["id"]?.intValue }.map(UInt64.init) == doubt, "\(context): \(waiting)")
            for row in waiting {
                #expect(row["inDoubt"] == .bool(true) && row["waitsForAPerson"] == .bool(true), "\(context): \(row)")
                let note = row["note"]?.stringValue ?? ""
                #expect(note.contains("sync does not send it again by itself"), "\(context): \(note)")
                if row["op"] == .string("create") {
                    #expect(row["server"] == .null && note.hasSuffix("no server item is held for it"), "\(context): \(row)")
                } else {
                    let key = row["key"]?.stringValue ?? ""
                    #expect(row["server"]?["id"]?.intValue == Int(key), "\(context): \(row)")
                    #expect(note.contains("the server's item as last held: {"), "\(context): \(note)")
                }
            }
            if !doubt.isEmpty {
                let ids = doubt.map(String.init).joined(separator: ", ")
                #expect(next.stderr.contains("; \(doubt.count) write\(doubt.count == 1 ? "" : "s") in doubt (\(ids)), not sent again by itself (pending retry \(doubt[0]) or pending discard \(doubt[0]))"),
                        "\(context): \(next.stderr)")
                // Another unattended sync still sends nothing.
                #expect(try await Self.sync(path, upstream).status == 0)
                #expect(await Self.appliedByKey(upstream) == afterNext, "\(context)")
                // A person retries each: the next sync sends it, once more.
                for seq in doubt {
                    let retry = try await runFetchlog(["--store", path, "pending", "retry", String(seq)])
                    #expect(retry.status == 0, "\(context): \(retry.stderr)")
                }
                let after = try await Self.sync(path, upstream)
                #expect(after.status == 0, "\(context): \(after.stderr)")
                // Sent again: a PATCH applied once more; a create the server already made is
                // refused (the sample's titles are unique: 409), and waits rejected.
                let createApplied = doubt.contains(mutations[0].seq) && atKill[keys[0]] == 1
                let final = await Self.appliedByKey(upstream)
                #expect(keys.map { final[$0] ?? 0 } == mutations.enumerated().map { index, mutation in
                    !doubt.contains(mutation.seq) || (index == 0 && createApplied) ? 1 : (atKill[keys[index]] ?? 0) + 1
                }, "\(context): \(final)")
                #expect(try await Self.pending(path).map { "\($0["id"]?.intValue ?? 0) \($0["state"]?.stringValue ?? "")" }
                        == (createApplied ? ["\(mutations[0].seq) rejected"] : []), "\(context)")
            }
        }
        // The seed kills runs mid-push, and leaves writes in doubt — creates applied among them.
        #expect(killed >= 10 && leftInDoubt >= 10, "seed \(seed): killed \(killed), in doubt \(leftInDoubt)")
        if !honoured { #expect(doubtfulCreatesApplied > 0, "seed \(seed): no kill left an applied create in doubt") }
        await upstream.stop()
    }

    /// (c) and (d): writes left in doubt against an upstream that ignores the key, the
    /// manifest silent. A PUT left `sending` by a kill, a DELETE whose answer the server
    /// dropped after applying it, and a create recorded `sending` with them: `sync` sends the
    /// PUT and the DELETE again by itself (the repeated DELETE finding the note gone is its
    /// answer), never the create; `push`, run by a person, sends the create.
    @Test func syncResendsAnInDoubtPutAndDeleteButOnlyAPersonsPushTheCreate() async throws {
        let upstream = try await CatalogUpstream.start()
        await upstream.server.setHonoursIdempotencyKey(false)
        let dir = TemporaryDirectory("writes-unattended-idempotent")
        let path = dir.sub("store")
        let store = try await Self.openStore(path, upstream: upstream.base, honoured: false)
        let put = try await store.write(.replace, source: "catalog", resource: "notes", key: "1", fields: [("title", .string("replaced"))])
        let delete = try await store.write(.delete, source: "catalog", resource: "notes", key: "2")
        let create = try await store.write(.create, source: "catalog", resource: "notes", fields: [("title", .string("made"))])
        let id = store.log.metadata.storeID
        let (putKey, deleteKey, createKey) = ("\(id):\(put.seq)", "\(id):\(delete.seq)", "\(id):\(create.seq)")
        await store.close()
        // The sync's clock: a minute on, then an hour on (past every write's backoff).
        let format = ISO8601DateFormatter()
        let soon = ["FETCHLOG_NOW": format.string(from: Date().addingTimeInterval(60))]
        let later = ["FETCHLOG_NOW": format.string(from: Date().addingTimeInterval(3600))]
        func sync(_ environment: [String: String]) async throws -> CommandResult {
            try await runFetchlog(["--store", path, "--upstream", upstream.base, "--retries", "0", "sync", "--once"], environment: environment)
        }

        // 1. The PUT in flight (the server holds it, applying nothing) when sync is killed.
        await upstream.server.setFaults(try FaultSpec.parse("no-answer@catalog/notes/1"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Repo.executable)
        process.arguments = ["--store", path, "--upstream", upstream.base, "--retries", "0", "sync", "--once"]
        process.environment = ProcessInfo.processInfo.environment.merging(soon) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        while !(await upstream.asked.contains("/catalog/notes/1")) {
            #expect(process.isRunning)
            try await Task.sleep(for: .milliseconds(5))
        }
        kill(process.processIdentifier, SIGKILL)
        try await offPool { process.waitUntilExit() }
        #expect(try await Self.pending(path).map { "\($0["id"]?.intValue ?? 0) \($0["state"]?.stringValue ?? "") \($0["inDoubt"] == .bool(true))" }
                == ["\(put.seq) sending true", "\(delete.seq) queued false", "\(create.seq) queued false"])

        // 2. The next sync sends the PUT again by itself (confirmed, applied once), then the
        // DELETE and the create together: the server applies the DELETE and drops its answer,
        // so the create, recorded `sending` with it, is never sent.
        await upstream.server.setFaults(try FaultSpec.parse("drop-after-write@catalog/notes/2"))
        let second = try await sync(soon)
        #expect(second.status == 1, "\(second.stdout)\(second.stderr)")
        await upstream.server.clearFaults()
        #expect(await Self.appliedByKey(upstream) == [putKey: 1, deleteKey: 1])
        let afterSecond = try await Self.pending(path)
        #expect(afterSecond.map { "\($0["id"]?.intValue ?? 0) \($0["state"]?.stringValue ?? "") \($0["inDoubt"] == .bool(true)) \($0["waitsForAPerson"] == .bool(true))" }
                == ["\(delete.seq) failed true false", "\(create.seq) sending true true"], "\(afterSecond)")

        // 3. The DELETE sent again by itself: the note is gone (404), which is what it asked;
        // the create waits for a person, shown in doubt with no server item held.
        let third = try await sync(later)
        #expect(third.status == 0, "\(third.stdout)\(third.stderr)")
        #expect(third.stderr.contains("; 1 write in doubt (\(create.seq)), not sent again by itself (pending retry \(create.seq) or pending discard \(create.seq))"),
                "\(third.stderr)")
        #expect(await Self.appliedByKey(upstream) == [putKey: 1, deleteKey: 1])
        let waiting = try await Self.pending(path)
        #expect(waiting.compactMap { $0["id"]?.intValue }.map(UInt64.init) == [create.seq], "\(waiting)")
        #expect(waiting.first?["waitsForAPerson"] == .bool(true) && waiting.first?["server"] == .null, "\(waiting)")
        #expect(waiting.first?["note"]?.stringValue?.contains("sync does not send it again by itself (a POST, and the manifest does not say the upstream honours Idempotency-Key)") == true,
                "\(waiting)")
        #expect(await upstream.server.notes[2] == nil)
        #expect(await upstream.server.notes[1]?.contains(#""title":"replaced""#) == true)
        // Another sync: still nothing sent.
        #expect(try await sync(later).status == 0)
        #expect(await Self.appliedByKey(upstream) == [putKey: 1, deleteKey: 1])

        // 4. A person's push sends it (today's rule), applied once.
        let push = try await runFetchlog(["--store", path, "--upstream", upstream.base, "--retries", "0", "push"], environment: later)
        #expect(push.status == 0 && push.stdout == "\(create.seq) POST /notes: confirmed 201 — key 4\n1 confirmed\n", "\(push.stdout)\(push.stderr)")
        #expect(await Self.appliedByKey(upstream) == [putKey: 1, deleteKey: 1, createKey: 1])
        #expect(try await Self.pending(path).isEmpty)
        await upstream.stop()
    }

    /// (d): a create left in doubt by a `push` whose answer the server dropped after applying
    /// it is left alone by `sync`, and sent again by the next `push` a person runs (what
    /// `push` has always done; the server, ignoring the key, sees it twice).
    @Test func aPersonsPushStillSendsAnInDoubtCreateAgain() async throws {
        let upstream = try await CatalogUpstream.start()
        await upstream.server.setHonoursIdempotencyKey(false)
        let dir = TemporaryDirectory("writes-unattended-person")
        let path = dir.sub("store")
        let store = try await Self.openStore(path, upstream: upstream.base, honoured: false)
        let create = try await store.write(.create, source: "catalog", resource: "notes", fields: [("title", .string("twice"))])
        let key = "\(store.log.metadata.storeID):\(create.seq)"
        await store.close()
        // The server applies it, then drops the answer: failed, in doubt.
        await upstream.server.setFaults(try FaultSpec.parse("drop-after-write@catalog/notes"))
        let first = try await runFetchlog(["--store", path, "--upstream", upstream.base, "--retries", "0", "push"])
        #expect(first.status == 0, "\(first.stderr)")
        await upstream.server.clearFaults()
        #expect(await Self.appliedByKey(upstream) == [key: 1])
        let doubt = try await Self.pending(path)
        #expect(doubt.first?["inDoubt"] == .bool(true) && doubt.first?["waitsForAPerson"] == .bool(true), "\(doubt)")
        // sync leaves it; push sends it.
        #expect(try await Self.sync(path, upstream).status == 0)
        #expect(await Self.appliedByKey(upstream) == [key: 1])
        await upstream.server.clearRequestLog()
        let again = try await runFetchlog(["--store", path, "--upstream", upstream.base, "--retries", "0", "push"])
        // Sent again: the server, ignoring the key, takes it for a second note and refuses
        // the title it already holds (the sample's titles are unique).
        #expect(await upstream.asked == ["/catalog/notes"])
        #expect(again.status == 0 && again.stdout == "\(create.seq) POST /notes: rejected 409 — note 4 is already titled \"twice\": titles are unique\n1 rejected\n",
                "\(again.stdout)\(again.stderr)")
        #expect(await Self.appliedByKey(upstream) == [key: 1])
        #expect(try await Self.pending(path).map { $0["state"] } == [.string("rejected")])
        await upstream.stop()
    }
}
