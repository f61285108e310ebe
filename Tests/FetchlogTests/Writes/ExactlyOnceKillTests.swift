import FetchlogCore
import Foundation
import SampleUpstream
import Testing

/// Issue 26's acceptance: exactly once, counted on the server. A `push` (the real binary)
/// is killed with SIGKILL at each step of sending one of its mutations — before it is sent,
/// while its request is held by the server, once the server applied it (its answer not yet
/// recorded, or just recorded), after its answer was recorded, after the server applied it
/// and dropped its answer — and then `push` runs again to its end: the server applied every
/// mutation once (by its Idempotency-Key), lost none, and nothing is left pending. 50
/// trials, the moments drawn by a seeded generator (the seed and the trial are in every
/// failure's message).
@Suite struct ExactlyOnceKillTests {
    /// Where in the sending of mutation `index` the push is killed.
    enum Step: CaseIterable, CustomStringConvertible {
        /// The answers of the mutations before it are recorded (for the first: at once).
        case beforeSending
        /// The server holds its request (a latency fault): sent, nothing applied, no answer.
        case inFlight
        /// The server applied it; its answer may or may not be recorded yet.
        case applied
        /// Its answer is in the log.
        case answered
        /// The server applied it and dropped the connection (the `drop-after-write` fault):
        /// its failure is recorded, it is in doubt, and the push holds the rest.
        case answerDropped

        var description: String {
            switch self {
            case .beforeSending: "before sending"
            case .inFlight: "in flight"
            case .applied: "applied upstream"
            case .answered: "answer recorded"
            case .answerDropped: "answer dropped by the server"
            }
        }
    }

    /// What the log says of the trial's mutations: the ones sent and the ones answered.
    /// A `fetchlog push` of `store` to `upstream`, started and left running (a test kills it
    /// at its moment), its output discarded.
    static func startPush(store: String, upstream: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Repo.executable)
        process.arguments = ["--store", store, "--upstream", upstream, "--retries", "0", "push"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    static func sentAndAnswered(_ log: EventLog, from seq: UInt64) throws -> (sent: Set<UInt64>, answered: [UInt64]) {
        var sent = Set<UInt64>(), answered: [UInt64] = []
        for event in try log.events(from: seq) where event.label == "write.sending" || event.label == "write.answered" {
            guard let body = event.body, let id = (try? JSONValue.parse(bytes: body))?["mutation"]?.intValue else { continue }
            if event.label == "write.sending" { sent.insert(UInt64(id)) } else { answered.append(UInt64(id)) }
        }
        return (sent, answered)
    }

    @Test func aPushKilledAtAnyStepAndPushedAgainAppliesEveryMutationOnce() async throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["FETCHLOG_KILL_SEED"] ?? "") ?? 0x2026_1126
        // SplitMix64 (JSONTapeTests'): the same moments for the same seed, on every platform.
        var random = JSONTapeTests.SplitMix(state: seed)
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory("writes-kill")
        var killedAt: [Step: Int] = [:], trials: [Step: Int] = [:]
        var inDoubtApplied = 0
        for trial in 0 ..< 50 {
            let context = "seed \(seed) (FETCHLOG_KILL_SEED to repeat), trial \(trial)"
            await upstream.server.clearFaults()
            await upstream.server.resetNotes()
            let path = dir.sub("t\(trial)")
            // A small store of its own: the notes fetched, four mutations recorded — a
            // create, a change of the created item (by its local key), a change, a delete.
            let store = try await OfflineWritesTests.openStore(dir, "t\(trial)", upstream: upstream.base)
            let priority = Int.random(in: 1 ... 5, using: &random), firstPriority = Int.random(in: 1 ... 5, using: &random)
            let title = "trial \(trial)"
            let create = try await store.write(.create, source: "catalog", resource: "notes",
                                               fields: [("title", .string(title)), ("priority", .number(firstPriority))])
            let mutations = [
                create,
                try await store.write(.update, source: "catalog", resource: "notes", key: create.localKey, fields: [("done", .bool(true))]),
                try await store.write(.update, source: "catalog", resource: "notes", key: "1", fields: [("priority", .number(priority))]),
                try await store.write(.delete, source: "catalog", resource: "notes", key: "2"),
            ]
            let id = store.log.metadata.storeID
            let keys = mutations.map { "\(id):\($0.seq)" }
            await store.close()

            await upstream.server.clearRequestLog()
            let step = Step.allCases.randomElement(using: &random)!
            let index = Int.random(in: 0 ..< mutations.count, using: &random)
            trials[step, default: 0] += 1
            // Every notes write waits 40 ms before it is applied: a request in flight stays
            // there until the test has seen it arrive and killed the push. A dropped answer
            // matches mutation `index`'s path alone (the first's, POST /catalog/notes,
            // matches all: the push holds the rest after it).
            let paths = ["catalog/notes", "catalog/notes/4", "catalog/notes/1", "catalog/notes/2"]
            await upstream.server.setFaults(try FaultSpec.parse("latency=40ms@catalog/notes"
                + (step == .answerDropped ? ",drop-after-write@" + paths[index] : "")))
            let observer = try EventLog.open(at: path)
            let process = try Self.startPush(store: path, upstream: upstream.base)
            // The moment: a condition on the server or in the log, never a duration (a push
            // that ends first is not killed).
            func reached() async throws -> Bool {
                switch step {
                case .beforeSending: return try Self.sentAndAnswered(observer, from: create.seq).answered.count >= index
                case .inFlight: return await upstream.asked.count > index
                case .applied: return await upstream.server.appliedWrites.count > index
                case .answered, .answerDropped: return try Self.sentAndAnswered(observer, from: create.seq).answered.count > index
                }
            }
            while process.isRunning, !(try await reached()) { try await Task.sleep(for: .milliseconds(2)) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killedAt[step, default: 0] += 1
            }
            try await offPool { process.waitUntilExit() }
            // A mutation sent and not answered, applied upstream all the same (its answer
            // was lost with the process): the case the Idempotency-Key is for.
            let (sent, answered) = try Self.sentAndAnswered(observer, from: create.seq)
            let applied = Set(await upstream.server.appliedWrites.compactMap(\.key))
            if mutations.contains(where: { sent.contains($0.seq) && !answered.contains($0.seq) && applied.contains("\(id):\($0.seq)") }) {
                inDoubtApplied += 1
            }
            observer.close()

            await upstream.server.clearFaults()
            let again = try await runFetchlog(["--store", path, "--upstream", upstream.base, "--retries", "0", "push"])
            #expect(again.status == 0, "\(context): killed \(step) mutation \(index): \(again.stdout)\(again.stderr)")
            // Counted on the server: each key applied once, in log order, none lost.
            let writes = await upstream.server.appliedWrites
            #expect(writes.map { "\($0.method) \($0.path) \($0.key ?? "-") \($0.status)" }
                        == ["POST /catalog/notes \(keys[0]) 201", "PATCH /catalog/notes/4 \(keys[1]) 200",
                            "PATCH /catalog/notes/1 \(keys[2]) 200", "DELETE /catalog/notes/2 \(keys[3]) 204"],
                    "\(context): killed \(step) mutation \(index)")
            let note = #"{"id":4,"title":"\#(title)","done":true,"priority":\#(firstPriority),"version":2}"#
            #expect(await upstream.server.notes == [
                1: #"{"id":1,"title":"buy milk","done":false,"priority":\#(priority),"version":2}"#,
                3: #"{"id":3,"title":"write the report","done":false,"priority":4,"version":1}"#,
                4: note,
            ], "\(context): killed \(step) mutation \(index)")
            // Nothing pending, and the store shows the server's notes, optimistic and
            // confirmed readings alike.
            let log = try EventLog.open(at: path)
            let state = LogReducer.fold(try log.events(from: 1), sources: SourceRegistry([]))
            log.close()
            #expect(state.writes.pending.isEmpty, "\(context): killed \(step) mutation \(index): \(state.writes.pending.map(\.state))")
            let server = await upstream.server.notes
            for confirmedOnly in [false, true] {
                let view = ItemsView(state: state, source: "catalog", resource: "notes", confirmedOnly: confirmedOnly)
                for key in [1, 2, 4] {
                    #expect(view?.item(key: "\(key)")?.canonicalText() == (try server[key].map { try JSONValue.parse($0).canonicalText() }),
                            "\(context): note \(key), confirmedOnly \(confirmedOnly)")
                }
            }
        }
        // Every step was reached in some trial, and some kills left a mutation applied
        // upstream with its answer lost (what the second push must not apply again).
        // (A push whose answer was dropped ends by itself soon after: its trials count.)
        #expect(Step.allCases.allSatisfy { (($0 == .answerDropped ? trials : killedAt)[$0] ?? 0) > 0 }, "seed \(seed): kills by step \(killedAt), trials \(trials)")
        #expect(inDoubtApplied > 0, "seed \(seed): no kill left an applied mutation unanswered")
        await upstream.stop()
    }
}
