import FetchlogCore
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `fetchlog serve`: the API (reads, and actions with the action token) and the page over
/// one open store, until SIGINT or SIGTERM.
package enum FetchlogServer {
    /// Binds, calls `onListening` with the base URL (`http://HOST:PORT`) once the socket
    /// listens, and serves until a signal ends the group gracefully (open event streams end).
    package static func run(_ content: ServeContent, configuration: ServeConfiguration,
                            onListening: @escaping @Sendable (String) -> Void) async throws {
        if let refusal = ServeConfiguration.refusal(host: configuration.host, token: configuration.token) {
            throw APIError(status: .forbidden, message: refusal)
        }
        // Hummingbird logs to stdout by default; stdout carries only the address.
        var logger = Logger(label: "fetchlog.serve") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let app = Application(
            responder: APIResponder(content: content, configuration: configuration),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                onListening("http://\(host):\(channel.localAddress?.port ?? configuration.port)")
            },
            logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}

extension APIError: CustomStringConvertible {
    package var description: String { message }
}
