import ArgumentParser
import FetchlogCore
import FetchlogServe
import Foundation

/// `serve`: the read API (and a page at /) over the store, until interrupted. The engine
/// work is FetchlogServe's; this door opens the store and hands it the CLI's own rendering
/// of an event header, so the API answers what `log tail --format json` prints.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a read API over the store (and a page at /); the first line printed is its address.",
        discussion: """
        GET /api/status, /api/views, /api/views/NAME[?at=SEQ] (as `export NAME --format json`, with an ETag), \
        /api/log?from=SEQ&limit=N (as `log tail --format json`), /api/events/SEQ (as `log show SEQ --format json`), \
        /api/stream (Server-Sent Events: one per appended event, then one per view that changed; resumes after Last-Event-ID). \
        Loopback by default; any other --bind needs --token T (or --generate-token), and every request must then \
        carry it: Authorization: Bearer T, or ?token=T.
        """)
    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "Port; 0 picks a free one.") var port = 8420
    @Option(help: "Address to bind (loopback unless told otherwise).") var bind = "127.0.0.1"
    @Option(help: "Every request must carry this token.") var token: String?
    @Flag(help: "Make a token, print it on the second line, and require it.") var generateToken = false

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port \(port) is not a port: give 0…65535 (0 picks a free one)") }
        if generateToken && token != nil { throw ValidationError("give --token T or --generate-token, not both") }
        if !generateToken, let refusal = ServeConfiguration.refusal(host: bind, token: token) { throw ValidationError(refusal) }
    }

    func run() async throws {
        let clock = try reportingErrors { try cliClock() }
        let maintenance = try reportingErrors { try storeOptions.open() }
        let store = try await reportingErrors { try await openStore(maintenance, clock: clock) }
        // Other processes' appends (a `fetch` beside the server) reach the snapshots, and so
        // the event stream, through the store's own catch-up.
        let watcher = store.watch()
        defer { watcher.cancel() }
        let token = generateToken ? ServeConfiguration.generateToken() : token
        let content = ServeContent(store: store, clock: clock, eventHeader: { LogRendering.tailRecord($0) })
        do {
            try await FetchlogServer.run(content, configuration: ServeConfiguration(host: bind, port: port, token: token)) { address in
                // FileHandle writes are unbuffered: the address is out before the first request.
                var lines = address + "\n"
                if generateToken, let token { lines += "token \(token) (open \(address)/?token=\(token))\n" }
                FileHandle.standardOutput.write(Data(lines.utf8))
            }
        } catch {
            printError("cannot serve on \(bind):\(port): \(error)")
            throw ExitCode(1)
        }
    }
}
