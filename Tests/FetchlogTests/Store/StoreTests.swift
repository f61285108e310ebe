import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

@Suite struct StoreTests {
    private func sampleLog(_ dir: TemporaryDirectory) throws -> EventLog {
        let log = try EventLog.open(at: dir.sub("store"))
        try log.importNDJSON(path: Repo.sampleLog)
        return log
    }

    @Test func theSampleLogFoldsIntoStatusesAndDocuments() async throws {
        let dir = TemporaryDirectory("store-fold")
        let log = try sampleLog(dir)
        let store = try Store(log: log, sources: .seed)
        #expect(store.origin == .replay(events: 13))
        let state = store.snapshot.state
        #expect(state.seq == 13)
        #expect(state.documents.count == 8)
        #expect(state.gnomeFilter.hairColor == "Pink")
        #expect(state.gnomeFilter.profession == "Tinker")
        #expect(state.gnomeFilterSeq == 13)
        let status = StatusView(state: state)
        #expect(status.rows.count == 10)
        let census = try #require(status.row(.brastlewarkCensus))
        #expect(census.held)
        #expect(census.status.lastSuccessSeq == 7)
        #expect(census.status.failuresSince == 0)
        #expect(census.status.etag == "\"census-1\"")
        let root = try #require(status.row(.viaplayRoot))
        #expect(root.status.lastRevalidated == Timestamp(iso8601: "2026-11-01T09:10:27.000Z"))
        let page2 = try #require(status.row(.thmanyahHome(2)))
        #expect(!page2.held)
        #expect(page2.status.failuresSince == 1)
        #expect(page2.status.lastErrorClass == .httpStatus)
        let end = try #require(status.row(.tvmazeShowsPage(2)))
        #expect(end.status.endOfList)
        let export = status.export(asOf: state.seq)
        let result = try await validate(export, schema: "status")
        #expect(result.ok, "\(result.output)")
    }

    @Test func checkpointPlusTailEqualsReplayFromScratch() async throws {
        let dir = TemporaryDirectory("store-checkpoint")
        let log = try sampleLog(dir)
        do {
            let store = try Store(log: log, sources: .seed)
            try await store.saveCheckpoint()
        }
        try await log.append(contentsOf: [
            Event(recordedAt: fixedTime, kind: .fetchFailed, source: "brastlewark", label: "/data.json", attempt: 1,
                  request: Event.Request(url: "http://x/brastlewark/data.json"), failure: Event.Failure(.timeout, "slow")),
            Event(recordedAt: fixedTime, kind: .intent, source: "brastlewark", label: "filter.reset", body: Array("{}".utf8)),
        ])
        let reopened = try Store(log: log, sources: .seed)
        #expect(reopened.origin == .checkpoint(seq: 13, tail: 2))
        let replayed = try Store.replay(log, sources: .seed).state
        #expect(reopened.snapshot.state == replayed)
        #expect(replayed.gnomeFilter == GnomeFilter())
        #expect(replayed.status[ResourceKey(.brastlewarkCensus)]?.failuresSince == 1)
        // The held census is still the one from seq 7: a failure never removes data.
        #expect(replayed.documents[ResourceKey(.brastlewarkCensus)]?.seq == 7)
    }

    @Test func aCheckpointOfAnotherReducerVersionIsRebuilt() async throws {
        let dir = TemporaryDirectory("store-version")
        let log = try sampleLog(dir)
        var text = String(decoding: Checkpoint.encode(try Store.replay(log, sources: .seed).state), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"reducerVersion\":\(LogState.reducerVersion)", with: "\"reducerVersion\":999")
        try await log.saveCheckpoint(Array(text.utf8))
        let store = try Store(log: log, sources: .seed)
        #expect(store.origin == .replay(events: 13))
        #expect(store.snapshot.state == (try Store.replay(log, sources: .seed).state))
    }

    @Test func intentsGoThroughTheLog() async throws {
        let dir = TemporaryDirectory("store-intent")
        let log = try EventLog.open(at: dir.path)
        let store = try Store(log: log, sources: .seed, clock: FixedClock(fixedTime))
        var filter = GnomeFilter()
        filter.hairColor = "Green"
        filter.ageMin = 100
        try await store.setGnomeFilter(filter)
        #expect(store.snapshot.state.gnomeFilter == filter)
        #expect(store.snapshot.seq == 1)
        let event = try #require(try log.event(at: 1))
        #expect(event.kind == .intent)
        #expect(event.label == "filter.set")
        #expect(event.body == Array(#"{"age_min":100,"hair_color":"Green"}"#.utf8))
        try await store.resetGnomeFilter()
        #expect(store.snapshot.state.gnomeFilter.isEmpty)
        #expect(try Store.replay(log, sources: .seed).state == store.snapshot.state)
    }

    /// Another process appends (the real `fetchlog fetch`); a watching store catches up by
    /// itself and says so. The test waits for that condition (on a thread of its own, from
    /// the moment the other process has exited), with a margin no load reaches: how soon it
    /// catches up (the watcher polls every 100 ms) is speed, not an outcome a test bounds.
    @Test func anotherProcessesAppendsArriveWhileWatching() async throws {
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        let dir = TemporaryDirectory("store-watch")
        let log = try EventLog.open(at: dir.path)
        let store = try Store(log: log, sources: .seed)
        let watcher = store.watch(every: .milliseconds(100))
        let (fetch, waited) = try await offPool { () throws -> (CommandResult, Duration?) in
            let fetch = try runFetchlogBlocking(["--store", dir.path, "--upstream", base, "fetch", "brastlewark", "census"])
            let exited = ContinuousClock.now
            while ContinuousClock.now - exited < .seconds(300) {
                if store.snapshot.seq >= 1 { return (fetch, ContinuousClock.now - exited) }
                Thread.sleep(forTimeInterval: 0.005)
            }
            return (fetch, nil)
        }
        watcher.cancel()
        await watcher.value
        #expect(fetch.status == 0, "\(fetch.stderr)")
        _ = try #require(waited, "not caught up within 300 s")
        let snapshot = store.snapshot
        #expect(snapshot.caughtUp)
        if case .brastlewarkCensus(let gnomes)? = snapshot.state.document(.brastlewarkCensus)?.brastlewark {
            #expect(gnomes.gnomes.count == 1337 && gnomes.rows.count == 1337)
        } else {
            Issue.record("no census held")
        }
        await upstream.stop()
    }
}

/// The replay that skips superseded bodies gives exactly the state of a full replay.
@Suite struct FastReplayTests {
    @Test func skippingSupersededBodiesChangesNothing() async throws {
        let h = try await FetchHarness.start()
        // Refetches that replace bodies (a version switch), 304s, failures and an end of list.
        _ = try await h.store.fetchTVMazeShows(pages: .range(0 ... 1))
        await h.upstream.setVersion(tvmaze: .v2019, brastlewark: .v2)
        _ = try await h.store.fetch(.tvmazeShowsPage(0))
        _ = try await h.store.fetch(.brastlewarkCensus)
        _ = try await h.store.fetch(.brastlewarkCensus)
        await h.upstream.setVersion(tvmaze: .v2024, brastlewark: .v1)
        _ = try await h.store.fetch(.brastlewarkCensus)
        await h.upstream.setFaults([Fault(match: "/tvmaze", kind: .failNext(2))])
        _ = try await h.store.fetchTVMazeShows(pages: .all)
        try await h.log.append(Event(recordedAt: fixedTime, kind: .intent, source: "brastlewark", label: "filter.set",
                                     body: Array(#"{"hair_color":"Red"}"#.utf8)))
        let last = try h.log.lastSeq()
        #expect(last == 14)
        for seq in [UInt64(1), 3, 5, 8, 12, last] {
            #expect(try Store.replay(h.log, sources: .seed, to: seq).state == (try Store.fullReplay(h.log, sources: .seed, to: seq)), "at \(seq)")
        }
        await h.stop()
    }
}
