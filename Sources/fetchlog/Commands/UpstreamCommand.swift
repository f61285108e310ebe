import ArgumentParser
import Foundation
import SampleUpstream

struct UpstreamCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upstream",
        abstract: "The bundled sample upstream: recorded responses of the five sources over HTTP.",
        subcommands: [Serve.self])

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve the sample upstream until interrupted; the first line printed is its base URL.",
            discussion: "Faults: --fault status=503@SOURCE/PATH, fail-next=2, latency=200ms, no-answer, reset, truncated, malformed-json, wrong-content-type. See Tools/SampleUpstream/README.md.")
        @Option(help: "Address to bind (loopback unless told otherwise).") var host = "127.0.0.1"
        @Option(help: "Port, 0 to 65535; 0 picks a free one.", transform: Bounded.whole("--port", Bounded.portRange)) var port = 0
        @Option(name: .customLong("fault"), help: "A fault spec; repeatable.") var faults: [String] = []
        @Option(help: "The census recording served this many times over, 1 to 10000, each copy a town of its own (benchmarks: 100 is 133,700 records).",
                transform: Bounded.whole("--census-copies", 1 ... 10_000))
        var censusCopies = 1

        func run() async throws {
            try await SampleUpstreamCLI.serve(host: host, port: port, faultSpecs: faults, censusCopies: censusCopies)
        }
    }
}
