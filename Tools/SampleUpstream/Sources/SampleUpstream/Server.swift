import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The sample upstream server: five sources' recorded responses under `/<source>/...`, with
/// real HTTP validators and injectable faults. See README.md for routes and fault formats.
public actor SampleUpstream {
    public let configuration: SampleUpstreamConfiguration
    private let state: UpstreamState
    private var running: (group: ServiceGroup, task: Task<Void, any Error>, url: URL)?

    public init(configuration: SampleUpstreamConfiguration = SampleUpstreamConfiguration()) throws {
        guard (0...65_535).contains(configuration.port) else {
            throw SampleUpstreamError.invalidConfiguration("port \(configuration.port) out of range")
        }
        guard configuration.tvmazePages >= 0, (configuration.thmanyahTotalPages ?? 1) >= 1 else {
            throw SampleUpstreamError.invalidConfiguration("page counts must be positive")
        }
        if let size = configuration.tvmazePageSize, !(1...TVMazeRoutes.maxPageSize).contains(size) {
            throw SampleUpstreamError.invalidConfiguration("tvmazePageSize \(size) out of range 1...\(TVMazeRoutes.maxPageSize)")
        }
        self.configuration = configuration
        self.state = UpstreamState(faults: configuration.faults, versions: configuration.versions, echoToStderr: configuration.logRequestsToStderr)
    }

    /// Binds and starts serving; returns the base URL (`http://HOST:PORT`, no trailing slash)
    /// once the socket is listening. Calling it again while running returns the same URL.
    public func start() async throws -> URL {
        if let running { return running.url }
        // Hummingbird logs to stdout by default; the CLI's stdout carries only the base URL.
        var logger = Logger(label: "SampleUpstream") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let app = Application(
            responder: UpstreamResponder(state: state, configuration: configuration),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port ?? 0)
                portSink.finish()
            },
            logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        // At high priority: the server's connections are child tasks of this one and keep
        // its priority, and on Linux each priority has its own dispatch root queue and
        // threads. In a process that also does other work (the test suite, the bench) the
        // upstream then answers as a server on another machine would, not after every
        // default-priority job queued ahead of it: with the whole suite's work queued on
        // two cores, its hops waited there past the 20 s read timeout of the commands the
        // tests run against it. Alone in its own process (`sample-upstream`) it changes nothing.
        let task = Task(priority: .high) {
            // Ends the wait below if binding fails before the server ever runs.
            defer { portSink.finish() }
            try await group.run()
        }
        var port: Int?
        for await p in ports { port = p }
        guard let port, port > 0 else {
            let failure: (any Error)? = if case .failure(let error) = await task.result { error } else { nil }
            throw SampleUpstreamError.couldNotStart(failure.map { String(describing: $0) } ?? "server did not start")
        }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let url = URL(string: "http://\(host):\(port)")!
        running = (group, task, url)
        return url
    }

    /// Graceful shutdown: held `noAnswer` requests are released, open connections finish.
    /// Waits at most 5 s before cancelling the server outright.
    public func stop() async {
        guard let running else { return }
        self.running = nil
        await state.markStopping()
        await running.group.triggerGracefulShutdown()
        let task = running.task
        let watchdog = Task {
            try await Task.sleep(for: self.configuration.stopTimeout)
            task.cancel()
        }
        _ = await task.result
        watchdog.cancel()
    }

    /// The base URL while running.
    public var baseURL: URL? { running?.url }

    public var requestLog: [RequestRecord] {
        get async { await state.records }
    }

    /// Paths (with query) of the data requests received so far, noted on arrival, before a
    /// latency fault holds them: what a test waits on to know a slow request is in flight.
    /// Cleared with the request log.
    public var receivedPaths: [String] {
        get async { await state.received }
    }

    /// The most data requests held at once (received, not yet answered) since the request
    /// log was last cleared.
    public var maxRequestsAtOnce: Int {
        get async { await state.maxInFlight }
    }

    public func clearRequestLog() async { await state.clearLog() }

    public var faults: [Fault] {
        get async { await state.faults }
    }

    /// Replaces the active faults (failNext budgets restart).
    public func setFaults(_ faults: [Fault]) async { await state.setFaults(faults) }

    public func clearFaults() async { await state.setFaults([]) }

    /// Switches the catalog's `/bulkchanges` generation: from 1, every hundredth item has
    /// changed since generation 0 (`CatalogRoutes.bulkChangedAt`), so an incremental
    /// refetch of the same manifest lists 1 % of the items. Used by `fetchlog-bench --manifests`.
    public func setCatalogGeneration(_ generation: Int) async { await state.setCatalogGeneration(generation) }

    /// The writes the notes routes applied, in order (a replayed `Idempotency-Key` adds
    /// none): what a test counts to prove each mutation was applied exactly once.
    public var appliedWrites: [AppliedWrite] {
        get async { await state.notes.applied }
    }

    /// The notes as `GET /catalog/notes/{id}` serves them, by id.
    public var notes: [Int: String] {
        get async { await state.notes.notes.mapValues(\.json) }
    }

    /// Restores the three notes the server starts with and forgets every write and key.
    public func resetNotes() async { await state.resetNotes() }

    /// Writes applied per note, by id (a create counts for the note it made): 1 for each
    /// note a mutation wrote once.
    public var appliedPerNote: [Int: Int] {
        get async { await state.notes.appliedPerNote }
    }

    /// False: the notes ignore `Idempotency-Key`, as most real APIs do, and apply a repeated
    /// request again (what racing pushes must never send). True, the default, again.
    public func setHonoursIdempotencyKey(_ honours: Bool) async { await state.setHonoursIdempotencyKey(honours) }

    public var versions: DataVersions {
        get async { await state.versions }
    }

    /// Switches data versions; nil leaves a source unchanged.
    public func setVersion(tvmaze: TVMazeDataVersion? = nil, brastlewark: BrastlewarkDataVersion? = nil, viaplay: ViaplayDataVersion? = nil) async {
        await state.setVersions(tvmaze: tvmaze, brastlewark: brastlewark, viaplay: viaplay)
    }
}

public enum SampleUpstreamError: Error, CustomStringConvertible {
    case invalidConfiguration(String)
    case couldNotStart(String)

    public var description: String {
        switch self {
        case .invalidConfiguration(let why): "invalid configuration: \(why)"
        case .couldNotStart(let why): "sample upstream could not start: \(why)"
        }
    }
}
