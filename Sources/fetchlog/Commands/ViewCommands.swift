import ArgumentParser
import Fetchlog
import Foundation

/// Opens the live store (checkpoint + tail); saves a checkpoint when the tail was long.
func openLiveStore(_ log: EventLog, fetcher: Fetcher? = nil, clock: any Clock = SystemClock()) async throws -> Store {
    let store = try Store(log: log, fetcher: fetcher, clock: clock)
    switch store.origin {
    case .checkpoint(_, let tail) where tail >= store.checkpointInterval: try await store.saveCheckpoint()
    case .replay(let events) where events >= store.checkpointInterval: try await store.saveCheckpoint()
    default: break
    }
    return store
}

/// The state as of `seq`, refusing a seq past the end.
func state(of log: EventLog, at seq: UInt64?) async throws -> LogState {
    let last = try log.lastSeq()
    if let seq {
        guard seq <= last else {
            printError("seq \(seq) is past the end of the log (the last is \(last))")
            throw ExitCode(ExitStatus.failure)
        }
        return try Store.replay(log, to: seq).state
    }
    return try await openLiveStore(log).snapshot.state
}

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Rebuild every view from the log alone; print each view's events and SHA-256.",
        discussion: "--verify compares with the live state (checkpoint + tail) and exits 2 naming any view that differs.")
    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "Replay up to this seq.") var to: UInt64?
    @Flag(help: "Compare with the live state.") var verify = false

    func run() async throws {
        let log = try reportingErrors { try storeOptions.open() }
        let last = try log.lastSeq()
        if let to, to > last {
            printError("seq \(to) is past the end of the log (the last is \(last))")
            throw ExitCode(ExitStatus.failure)
        }
        if verify, let to, to != last {
            printError("--verify compares with the live state, which is at seq \(last): drop --to")
            throw ExitCode(64)
        }
        let (replayed, perSource) = try Store.replay(log, to: to)
        let out = OutputBuffer()
        out.line("replayed \(replayed.seq) events" + (replayed.seq > 0 ? " (seq 1…\(replayed.seq))" : ""))
        out.line(Format.padRight("view", 10) + Format.padLeft("events", 8) + "  sha256")
        let hashes = ViewCatalog.hashes(of: replayed)
        for (view, hash) in hashes {
            let events = ViewCatalog.sources[view, default: []].reduce(0) { $0 + perSource[$1, default: 0] }
            out.line(Format.padRight(view, 10) + Format.padLeft(String(events), 8) + "  " + hash)
        }
        guard verify else { out.flush(); return }
        let live = try await openLiveStore(log).snapshot.state
        let liveHashes = Dictionary(uniqueKeysWithValues: ViewCatalog.hashes(of: live).map { ($0.view, $0.sha256) })
        let differing = hashes.filter { liveHashes[$0.view] != $0.sha256 }.map(\.view)
        if differing.isEmpty {
            out.line("verified: every view of the live state (seq \(live.seq)) hashes the same")
            out.flush()
            return
        }
        out.flush()
        printError("live state differs from the replay in: \(differing.joined(separator: ", "))")
        throw ExitCode(ExitStatus.damaged)
    }
}

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "A view as canonical JSON (sorted keys, stable numbers, final newline).",
        discussion: "Views: \(ViewCatalog.exportNames.joined(separator: ", ")). Schemas/<view>.schema.json describes each.")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The view.") var view: String
    @Option(help: "The state as of this seq (time travel).") var at: UInt64?
    @Option(help: "Write to this file.") var out: String?

    func run() async throws {
        let log = try reportingErrors { try storeOptions.open() }
        let state = try await state(of: log, at: at)
        let json: JSONValue
        do { json = try ViewCatalog.export(view, state: state) } catch {
            printError(error.description)
            throw ExitCode(ExitStatus.failure)
        }
        let text = json.canonicalText() + "\n"
        if let out {
            do { try text.write(toFile: out, atomically: true, encoding: .utf8) } catch {
                printError("cannot write \(out): \(error.localizedDescription)")
                throw ExitCode(ExitStatus.failure)
            }
        } else {
            writeOut(Data(text.utf8))
        }
    }
}
