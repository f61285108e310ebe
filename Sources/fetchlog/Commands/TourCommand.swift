import ArgumentParser
import FetchlogCore
import FetchlogSources
import Foundation
import SampleUpstream

/// The main job, end to end on the bundled sample upstream: start it on a free loopback
/// port, fetch from all five sources into a store, fail an upstream on purpose, and show
/// the log commands on the result.
struct TourCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tour",
        abstract: "Start the bundled sample upstream, fetch from all five sources into a store, and show the log.")
    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        let path = storeOptions.store ?? NSTemporaryDirectory() + "fetchlog-tour-" + String(UUID().uuidString.prefix(8))
        // A bad FETCHLOG_NOW is refused here as everywhere, before a store is made.
        let clock = try reportingErrors { try cliClock() }
        let log = try reportingErrors { try EventLog.open(at: path) }
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        var configuration = FetchConfiguration()
        configuration.upstream = Upstream(base: base)
        configuration.retry.baseDelay = .milliseconds(50)
        configuration.clock = clock
        let fetcher = Fetcher(log: log, configuration: configuration)
        let store = try reportingErrors { try Store(log: log, fetcher: fetcher, clock: clock) }
        let printer = FetchPrinter()
        say("Fetchlog tour — store \(path), sample upstream \(base)")
        do {
            func step(_ title: String, _ body: () async throws -> [FetchReport]) async throws {
                say("\n$ fetchlog fetch \(title)")
                _ = printer.finish(try await body())
            }
            func one(_ resource: Resource) async throws -> [FetchReport] {
                let report = try await store.fetch(resource)
                printer.report(report)
                return [report]
            }
            let show: (FetchReport) -> Void = { printer.report($0) }
            try await step("tvmaze shows --pages all") { try await store.fetchTVMazeShows(pages: .all, onReport: show) }
            try await step("tvmaze show 1 --with images,episodes") {
                var all: [FetchReport] = []
                for resource in [Resource.tvmazeShow(1), .tvmazeImages(1), .tvmazeEpisodes(1)] { all += try await one(resource) }
                return all
            }
            try await step("brastlewark census") { try await one(.brastlewarkCensus) }
            try await step("brastlewark census   (again: a conditional request, 304, no body stored twice)") { try await one(.brastlewarkCensus) }
            try await step("viaplay root") { try await one(.viaplayRoot) }
            try await step("thmanyah home --pages 1-2") { try await store.fetchThmanyahHome(pages: .range(1 ... 2), onReport: show) }
            try await step("artic artworks --pages 1-2 --limit 5") { try await store.fetchArticArtworks(pages: .range(1 ... 2), limit: 5, onReport: show) }
            try await step("artic artist 2") { try await one(.articAgent(2)) }
            await upstream.setFaults([Fault(match: "/brastlewark", kind: .failNext(5))])
            try await step("brastlewark census   (the upstream now fails 5 times: 4 attempts, held data kept)") { try await one(.brastlewarkCensus) }
            await upstream.clearFaults()
        } catch {
            await fetcher.shutdown()
            await upstream.stop()
            printError("\(error)")
            throw ExitCode(ExitStatus.failure)
        }
        await fetcher.shutdown()
        await upstream.stop()

        try reportingErrors {
            let out = OutputBuffer()
            out.line("\n$ fetchlog log stats")
            let renderer = Renderer()
            out.write(renderer.render(.record(pairs: LogRendering.statsPairs(try log.statistics(), log: log), json: .null)))
            out.line("\n$ fetchlog log tail -n 5")
            let events = try log.tail(5)
            out.write(renderer.render(.table(columns: ["seq", "recorded at", "kind", "source", "outcome", "bytes", "request"],
                                             rows: events.map(LogRendering.tailRow), records: [])))
            if let notModified = try log.events(from: 1).first(where: { $0.kind == .notModified }) {
                out.line("\n$ fetchlog log show \(notModified.seq)")
                LogRendering.show(notModified, into: out)
            }
            out.line("\n$ fetchlog log verify")
            let report = try log.verify()
            out.line(report.isHealthy ? "ok: \(report.checked) events, seq 1…\(report.lastSeq), every checksum valid"
                                      : "damaged: first bad seq \(report.problems[0])")
            out.line("\nTry: fetchlog --store \(path) log show 1")
            out.flush()
        }
    }
}
