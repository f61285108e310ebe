import ArgumentParser
import FetchlogCore
import FetchlogNATS
import FetchlogReplication
import Foundation

/// `replicate init|status` and `follow`: the log through a NATS JetStream stream.
struct ReplicateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replicate",
        abstract: "Attach this store to a NATS JetStream stream, or show how it stands.",
        subcommands: [Init.self, Status.self]
    )

    /// Servers from `--nats` (comma-separated), else the ones the store remembers; the
    /// JetStream domain from `--domain`, else the remembered one.
    static func connect(_ nats: String?, domain: String? = nil, store: StoreMaintenance) throws -> (NATSConnection, Replication.Attachment?) {
        let attachment = try Replication.attachment(of: store)
        guard let servers = nats.map({ $0.split(separator: ",").map(String.init) }) ?? attachment?.servers else {
            throw CommandError.failed("this store is not attached to a stream: run `fetchlog replicate init --nats URL` first")
        }
        var options = NATSConnection.Options()
        options.domain = domain ?? attachment?.domain
        let stream = attachment?.stream ?? Replication.defaultStream
        options.onConnectionLost = { printError("warning: stream \(stream): \($0)") }
        do {
            return (try NATSConnection(servers: servers, options: options), attachment)
        } catch {
            throw CommandError.failed("\(error.description); check that nats-server runs there (with -js) and the URL is right")
        }
    }

    struct Init: SharedCommand {
        static let configuration = CommandConfiguration(
            abstract: "Attach the store: seed an empty stream with its log, or become a replica of a stream (the store must then be empty).",
            discussion: "The stream (created when missing, on subjects fetchlog.events.>) becomes the one total order: a replica's seqs are the stream's. The store remembers the stream and servers.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var outputOptions: OutputOptions
        @Option(help: ArgumentHelp("NATS server URLs, comma-separated.", valueName: "urls")) var nats: String
        @Option(help: "The stream.") var stream = Replication.defaultStream
        @Option(help: "Replicas of a stream created now, 1 to 5 (3 survives the loss of a node).", transform: Bounded.whole("--replicas", 1 ... 5)) var replicas = 1
        @Option(help: ArgumentHelp("The JetStream domain of the stream's cluster, for a store whose server is a leaf node.", valueName: "name"))
        var domain: String?

        func run() async throws { try await runOnCommandLine() }

        func output(_ context: CommandContext) async throws -> Output? {
            let (connection, _) = try ReplicateCommand.connect(nats, domain: domain, store: context.maintenance)
            let bar = ProgressBar()
            let started = ContinuousClock.now
            defer { bar.clear() }
            let attached: Replication.Attached
            do {
                attached = try Replication.attach(context.maintenance, nats: connection, stream: stream, replicas: replicas) { done, total in
                    bar.draw(done: done, total: total, bytes: 0, since: started, label: "seeding")
                }
            } catch let error as ReplicationError {
                throw CommandError.failed(error.description)
            } catch let error as NATSError {
                throw CommandError.failed(error.description)
            }
            switch attached {
            case .seeded(let events):
                return .message("seeded stream \(stream) with \(events) events; this store is attached to it",
                                json: .object([("stream", .string(stream)), ("seeded", .number(events))]))
            case .replica(let behind):
                return .message("this store is a replica of stream \(stream), \(behind) events behind: `fetchlog follow --once` catches up",
                                json: .object([("stream", .string(stream)), ("behind", .number(Int(behind)))]))
            case .already:
                return .message("this store is attached to stream \(stream) already", json: .object([("stream", .string(stream)), ("already", .bool(true))]))
            }
        }
    }

    struct Status: SharedCommand {
        static let configuration = CommandConfiguration(abstract: "The stream, its replicas and leader, its last seq, this store's, the lag, and the outbox.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var outputOptions: OutputOptions
        @Option(help: ArgumentHelp("NATS server URLs, comma-separated (default: the ones the store remembers).", valueName: "urls")) var nats: String?
        /// `--json`, as the issue names it: `--format json`.
        @Flag(name: .long, help: "The same as --format json.") var json = false
        var legacyJSON: Bool { json }

        func run() async throws { try await runOnCommandLine(legacyJSON: json) }

        func output(_ context: CommandContext) async throws -> Output? {
            guard let attachment = try Replication.attachment(of: context.maintenance) else {
                throw CommandError.failed("this store is not attached to a stream: run `fetchlog replicate init --nats URL` first")
            }
            let applied = try context.maintenance.lastSeq()
            let outbox = try context.maintenance.pendingSyncCount()
            // The stream unreachable: what this store knows, and a warning (offline first).
            let info: NATSConnection.StreamInfo
            do {
                let (connection, _) = try ReplicateCommand.connect(nats, store: context.maintenance)
                info = try connection.streamInfo(attachment.stream)
            } catch {
                let reason = (error as? CommandError)?.message ?? (error as? NATSError)?.description ?? "\(error)"
                printError("warning: stream \(attachment.stream) is unreachable: \(reason)")
                let pairs: [(String, String)] = [
                    ("stream", "\(attachment.stream) (unreachable)"), ("servers", attachment.servers.joined(separator: ",")),
                    ("applied seq", String(applied)), ("outbox", outbox == 0 ? "empty" : "\(outbox) pending sync"),
                ]
                let json = JSONValue.object([
                    ("stream", .string(attachment.stream)), ("servers", .array(attachment.servers.map { .string($0) })), ("reachable", .bool(false)),
                    ("replicas", .null), ("leader", .null), ("streamSeq", .null), ("appliedSeq", .number(Int(applied))), ("lag", .null),
                    ("outbox", .number(outbox)),
                ])
                return .record(pairs: pairs, json: json)
            }
            let lag = info.lastSeq > applied ? info.lastSeq - applied : 0
            let pairs: [(String, String)] = [
                ("stream", attachment.stream), ("servers", attachment.servers.joined(separator: ",")),
                ("replicas", String(info.replicas)), ("leader", info.leader ?? "(not clustered)"),
                ("stream seq", String(info.lastSeq)), ("applied seq", String(applied)), ("lag", String(lag)),
                ("outbox", outbox == 0 ? "empty" : "\(outbox) pending sync"),
            ]
            let json = JSONValue.object([
                ("stream", .string(attachment.stream)), ("servers", .array(attachment.servers.map { .string($0) })), ("reachable", .bool(true)),
                ("replicas", .number(info.replicas)), ("leader", info.leader.map { .string($0) } ?? .null),
                ("streamSeq", .number(Int(info.lastSeq))), ("appliedSeq", .number(Int(applied))), ("lag", .number(Int(lag))),
                ("outbox", .number(outbox)),
            ])
            return .record(pairs: pairs, json: json)
        }
    }
}

/// `follow [--once]`: keep a replica current with its stream.
struct FollowCommand: SharedCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "Keep this replica current with its stream (Ctrl-C stops); --once catches up to the stream's last seq and exits.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputOptions: OutputOptions
    @Option(help: ArgumentHelp("NATS server URLs, comma-separated (default: the ones the store remembers).", valueName: "urls")) var nats: String?
    @Flag(help: "Catch up once and exit.") var once = false

    func run() async throws { try await runOnCommandLine() }

    func output(_ context: CommandContext) async throws -> Output? {
        let (connection, attachment) = try ReplicateCommand.connect(nats, store: context.maintenance)
        guard let attachment else { throw CommandError.failed("this store is not attached to a stream: run `fetchlog replicate init --nats URL` first") }
        var total = 0
        var published = 0
        var delay = Duration.milliseconds(500)
        // What this store wrote while the stream was unreachable goes first, in order. Every
        // stream call waits out a leader election (a cluster just restarted) or a lost
        // connection as a write does, said once; a follow has no outbox to fall back on, so
        // it waits longer than a write (30 s) before it gives up.
        let outbox = Replication.outbox(of: context.maintenance, attachment: attachment) { connection }
        outbox.patience = .seconds(30)
        outbox.onRetry = { printError("warning: \($0)") }
        while true {
            do {
                let synced = try outbox.sync(context.maintenance)
                published += synced.published
                total += synced.applied
                delay = .milliseconds(500)
            } catch let error as ReplicationError {
                throw CommandError.failed(error.description)
            } catch let error as NATSError {
                // Lost connection, leader change, a restarting cluster: said, retried with backoff; --once fails.
                if once { throw CommandError.failed(error.description) }
                printError("warning: \(error.description); retrying in \(delay)")
                delay = min(delay * 2, .seconds(10))
            }
            if once || Task.isCancelled { break }
            do { try await Task.sleep(for: delay) } catch { break }
        }
        let applied = try context.maintenance.lastSeq()
        let pending = try context.maintenance.pendingSyncCount()
        var text = published > 0 ? "published \(published) pending event\(published == 1 ? "" : "s") from the outbox; " : ""
        text += "applied \(total) events from stream \(attachment.stream); this store is at seq \(applied)"
        if pending > 0 { text += "; \(pending) event\(pending == 1 ? "" : "s") still pending sync" }
        return .message(text, json: .object([("stream", .string(attachment.stream)), ("published", .number(published)), ("applied", .number(total)),
                                             ("seq", .number(Int(applied))), ("pending", .number(pending))]))
    }
}
