import ArgumentParser
import FetchlogCore
import FetchlogServe
import Foundation

/// `serve`: the API (and a page at /) over the store, until interrupted. The engine work
/// is FetchlogServe's; this door opens the store (fetching with the network options, for
/// `POST /api/fetch`) and hands it the CLI's own rendering of an event header and its
/// commands' answers (`ServeAnswers.commandLine`), so the API answers what the CLI prints.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve an API over the store (and a page at /); the first line printed is its address.",
        discussion: """
        GET /api/status, /api/views, /api/views/NAME[?at=SEQ] (as `export NAME --format json`, with an ETag), \
        /api/items/SOURCE/RESOURCE?q=TEXT&where=F=V&limit=N&page=N (as `items … --format json`), \
        /api/log?from=SEQ&limit=N (as `log tail --format json`), /api/events/SEQ (as `log show SEQ --format json`), \
        /api/diff?view=NAME&from=SEQ&to=SEQ (as the shell's `diff`), \
        /api/sync (the sync schedule: each resource's next refresh and backoff, and with --sync the loop's last pass), \
        /api/stream (Server-Sent Events: one per appended event, then one per view that changed; resumes after Last-Event-ID), /api/openapi.json. \
        POST /api/fetch {"source": S, "resource": R} fetches as `fetch S R --format json`, with the network options below; \
        it needs Authorization: Bearer T with the server's token, or without one the token made at start, which only \
        the page at / holds. GET /api/pending answers as `pending --format json`; the writes need the same token: \
        POST /api/items/SOURCE/RESOURCE (the body the item's fields), PATCH|PUT|DELETE /api/items/SOURCE/RESOURCE/KEY, \
        POST /api/push, POST /api/pending/ID/retry {"force": B} and /discard, as item add, set, set --replace, delete, \
        push and pending retry|discard --format json. Errors are {"error": message, "exit": the CLI's exit status}. \
        Loopback by default (requests naming another Host are refused); any other --bind needs --token T \
        (or --generate-token), and every request must then carry it: Authorization: Bearer T, or ?token=T.
        """)
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var network: NetworkOptions
    @Option(help: "Port, 0 to 65535; 0 picks a free one.", transform: Bounded.whole("--port", Bounded.portRange)) var port = 8420
    @Option(help: "Address to bind (loopback unless told otherwise).") var bind = "127.0.0.1"
    @Option(help: "Every request must carry this token.") var token: String?
    @Flag(help: "Make a token, print it on the second line, and require it.") var generateToken = false
    @Flag(help: "Keep every resource in sync while serving, as fetchlog sync does (one sync per store).") var sync = false
    @Option(name: .customLong("max-answer"),
            help: ArgumentHelp("The most bytes one answer of GET /api/sql or /api/views/NAME may hold, 1024 to 4294967296 (64 MiB); a larger one is refused (413) saying how to page.", valueName: "bytes"),
            transform: Bounded.whole("--max-answer", 1024 ... 1 << 32, "bytes"))
    var maxAnswer: Int = ServeConfiguration.defaultMaxAnswerBytes

    func validate() throws {
        if generateToken && token != nil { throw ValidationError("give --token T or --generate-token, not both") }
        if !generateToken, let refusal = ServeConfiguration.refusal(host: bind, token: token) { throw ValidationError(refusal) }
    }

    func run() async throws {
        let fetching = try reportingErrors { try network.configuration() }
        let maintenance = try reportingErrors { try storeOptions.open() }
        // Fetching as `fetch` would: `POST /api/fetch` goes through this store.
        let store = try await reportingErrors { try await openStore(maintenance, clock: fetching.clock, fetching: fetching) }
        let token = generateToken ? ServeConfiguration.generateToken() : token
        var configuration = ServeConfiguration(host: bind, port: port, token: token)
        configuration.maxAnswerBytes = maxAnswer
        // `--sync`: the store's sync claim for the server's life, and its loop behind the
        // API (a pass asked for by POST /api/sync takes turns with it).
        var driver: SyncDriver?
        var claim: SyncClaim?
        if sync {
            do {
                claim = try reportingErrors { try SyncClaim.take(maintenance.path, started: fetching.clock.now()) }
            } catch {
                await store.close()
                throw error
            }
            driver = SyncDriver(SyncRunner(store: store, policy: FreshnessPolicy(sources: store.durableState.sources), clock: fetching.clock))
        }
        defer { claim?.release() }
        // Woken too by a write recorded while it sleeps (`POST /api/items`, or another process's
        // that `watch()` catches up with): sent now, not at the next due time.
        let loop = driver.map { driver in Task { try? await driver.run(sleeper: TaskSleeper(store: store)) } }
        defer { loop?.cancel() }
        do {
            try await serveStore(store, clock: fetching.clock, configuration: configuration, sync: driver) { address in
                var lines = address + "\n"
                if generateToken, let token { lines += "token \(token) (open \(address)/?token=\(token))\n" }
                return lines
            }
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }
}

/// Serves `store` (the API and the page) until SIGINT or SIGTERM: what `serve` and
/// `demo --web` share. `announce` turns the base URL into what stdout says once the socket
/// listens (the address first: scripts and tests read it).
func serveStore(_ store: Store, clock: any WallClock, configuration: ServeConfiguration, sync: SyncDriver? = nil,
                announce: @escaping @Sendable (String) -> String) async throws {
    // Other processes' appends (a `fetch` beside the server) reach the snapshots, and so
    // the event stream, through the store's own catch-up.
    let watcher = store.watch()
    defer { watcher.cancel() }
    let content = ServeContent(store: store, clock: clock, eventHeader: { LogRendering.tailRecord($0) },
                               answers: .commandLine(store, sync: sync), sync: sync)
    do {
        try await FetchlogServer.run(content, configuration: configuration) { address in
            // FileHandle writes are unbuffered: the address is out before the first request.
            FileHandle.standardOutput.write(Data(announce(address).utf8))
            // The action token made at start, for whoever started the server (curl, a
            // script); stdout stays the address alone. Other sites cannot read either.
            if configuration.token == nil {
                printError("actions (POST /api/fetch, the writes, push) need Authorization: Bearer \(configuration.actionToken) (the page at / holds it)")
            }
        }
    } catch {
        printError("cannot serve on \(configuration.host):\(configuration.port): \(error)")
        throw ExitCode(ExitStatus.failure)
    }
}
