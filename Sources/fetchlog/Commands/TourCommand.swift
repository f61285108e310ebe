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
        let maintenance = try reportingErrors { try StoreMaintenance.open(path: path, sources: Engine.sources) }
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        var configuration = FetchConfiguration()
        configuration.upstream = Upstream(base: base)
        configuration.retry.baseDelay = .milliseconds(50)
        configuration.clock = clock
        let store = try await reportingErrors { try await openStore(maintenance, clock: clock, fetching: configuration) }
        let printer = FetchPrinter()
        say("Fetchlog tour — store \(path), sample upstream \(base)")
        do {
            func step(_ title: String, _ body: () async throws -> [FetchReport]) async throws {
                say("\n$ fetchlog fetch \(title)")
                _ = printer.finish(try await body())
            }
            let show: @Sendable (FetchReport) -> Void = { printer.report($0) }
            // The registered sources' tour: a fetch of each kind, then a failing upstream.
            for tourStep in Engine.shell.demo.tour {
                if let failures = tourStep.failures {
                    await upstream.setFaults([Fault(match: failures.prefix, kind: .failNext(failures.count))])
                }
                try await step(tourStep.title) { try await tourStep.run(store, show) }
                if tourStep.failures != nil { await upstream.clearFaults() }
            }
        } catch {
            await store.close()
            await upstream.stop()
            printError("\(error)")
            throw ExitCode(ExitStatus.failure)
        }
        await store.close()
        await upstream.stop()

        try reportingErrors {
            let out = OutputBuffer()
            out.line("\n$ fetchlog log stats")
            let renderer = Renderer()
            out.write(renderer.render(.record(pairs: LogRendering.statsPairs(try maintenance.statistics(), store: maintenance), json: .null)))
            out.line("\n$ fetchlog log tail -n 5")
            let events = try maintenance.tail(5)
            out.write(renderer.render(.table(columns: ["seq", "recorded at", "kind", "source", "outcome", "bytes", "request"],
                                             rows: events.map(LogRendering.tailRow), records: [])))
            if let notModified = try maintenance.firstEvent(where: { $0.kind == .notModified }) {
                out.line("\n$ fetchlog log show \(notModified.seq)")
                LogRendering.show(notModified, into: out)
            }
            out.line("\n$ fetchlog log verify")
            let report = try maintenance.verify().records
            out.line(report.isHealthy ? "ok: \(report.checked) events, seq 1…\(report.lastSeq), every checksum valid"
                                      : "damaged: first bad seq \(report.problems[0])")
            out.line("\nTry: fetchlog --store \(path) log show 1")
            out.flush()
        }
    }
}
