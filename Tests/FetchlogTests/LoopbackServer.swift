import Hummingbird
import Logging
import ServiceLifecycle

/// A Hummingbird router served on a free loopback port for the duration of a test: the
/// small APIs the tests define (another upstream, the books of the sixth source, the
/// manifest catalog).
struct LoopbackServer {
    let base: String
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    static func start(_ router: Router<BasicRequestContext>, label: String) async throws -> LoopbackServer {
        let (ports, sink) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: label)
        logger.logLevel = .error
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in sink.yield(channel.localAddress?.port ?? 0); sink.finish() },
                              logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        // High priority, as the sample upstream's: a test's server answers ahead of the
        // suite's default-priority work, as a server on another machine would.
        let task = Task(priority: .high) { try await group.run() }
        var port = 0
        for await p in ports { port = p }
        return LoopbackServer(base: "http://127.0.0.1:\(port)", group: group, task: task)
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }
}
