import Foundation
import Logging
import ServiceLifecycle

/// Entry point for a command-line front end (argument parsing lives with the caller).
public enum SampleUpstreamCLI {
    /// Prints the base URL as the first line of stdout, logs one line per request to stderr,
    /// and serves until SIGINT or SIGTERM.
    public static func serve(host: String, port: Int, faultSpecs: [String], censusCopies: Int = 1) async throws {
        let faults = try FaultSpec.parse(faultSpecs)
        var configuration = SampleUpstreamConfiguration(host: host, port: port, faults: faults, logRequestsToStderr: true)
        configuration.censusCopies = censusCopies
        let server = try SampleUpstream(configuration: configuration)
        let url = try await server.start()
        // FileHandle writes are unbuffered, so the line is out before anything else happens.
        FileHandle.standardOutput.write(Data((url.absoluteString + "\n").utf8))
        let logger = Logger(label: "SampleUpstreamCLI") { StreamLogHandler.standardError(label: $0) }
        let signals = ServiceGroup(configuration: .init(services: [UntilShutdown()], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await signals.run()
        await server.stop()
    }
}

/// A service that only waits for the group's graceful shutdown, i.e. for a signal.
private struct UntilShutdown: Service {
    func run() async throws {
        try? await gracefulShutdown()
    }
}
