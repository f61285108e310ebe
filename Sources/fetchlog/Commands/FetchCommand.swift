import ArgumentParser
import FetchlogCore
import FetchlogShell
import FetchlogSources
import Foundation
import Synchronization

/// `fetchlog fetch <source> <what> …`: every attempt becomes an event.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch from a source; every attempt's outcome is appended to the log.",
        discussion: FetchCommand.discussion)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var network: NetworkOptions
    @OptionGroup var outputOptions: OutputOptions
    @Argument(help: ArgumentHelp(Engine.shell.fetchSources.filter { $0 != "assets" }.joined(separator: ", ") + ", assets or asset.")) var source: String
    @Argument(help: "What to fetch (see above).") var what: String
    @Argument(help: "An id, a text or an href.") var values: [String] = []
    @Option(help: "Pages: N, A-B or all.") var pages: String?
    @Option(help: "Items per page (lists that take a page size), 1 to 100.", transform: Bounded.whole("--limit", 1 ... 100)) var limit: Int = 12
    @Option(name: .customLong("with"), help: "Extras for a show: images,episodes.") var extras: String?
    @Option(help: "How many shows' images (assets shows), 0 to 1000000.", transform: Bounded.whole("--first", 0 ... 1_000_000)) var first: Int = 100
    @Option(help: "Asset downloads at once (assets …), 1 to 64.", transform: Bounded.whole("--concurrency", 1 ... 64)) var concurrency: Int = 4
    @Option(name: .customLong("max-pages"),
            help: ArgumentHelp("Ceiling on the pages of a manifest resource's list that never says it ended, 1 to 1000000 (default \(PageSelection.limit), or the paginator's maximum_page); reaching it is said.", valueName: "n"),
            transform: Bounded.whole("--max-pages", 1 ... 1_000_000))
    var maxPages: Int?
    @Option(help: ArgumentHelp("After the fetch, drop superseded bodies recorded longer ago than this, 0s to 36500d (log compact --older-than).", valueName: "duration"))
    var retain: String?

    /// Every registered target's synopsis, two to a line when they fit (as `fetch --help` shows them).
    static var discussion: String {
        var lines: [String] = []
        var pending: String?
        for synopsis in Engine.shell.fetchTargets.compactMap(\.synopsis) + ["asset URL"] {
            if let first = pending {
                lines.append(first.padding(toLength: 37, withPad: " ", startingAt: 0) + synopsis)
                pending = nil
            } else if synopsis.count <= 36 {
                pending = synopsis
            } else {
                lines.append(synopsis)
            }
        }
        if let pending { lines.append(pending) }
        lines.append("SOURCE RESOURCE [--pages all|N|A-B] [--max-pages N] [--with images]  a source defined by a manifest (source add FILE)")
        return lines.joined(separator: "\n")
            + "\n\nExit status 0 when anything usable came back (a body, a 304, an end of list), else 1 with the reason."
    }

    /// The registry `fetch` is parsed and checked against: the command line's, or the
    /// shell's (set around its parse), whose store may serve more sources.
    @TaskLocal static var registry: ShellRegistry = Engine.shell
    /// The sources the shell's store defines by manifests (nil on the command line, where
    /// the store is not open yet when the arguments are checked).
    @TaskLocal static var definedSources: Set<String>? = nil

    /// True when `source` may be one defined by a manifest in the store: the shell knows;
    /// the command line defers to the open store when the store exists.
    func mayBeDefined(_ source: String) -> Bool {
        if let defined = Self.definedSources { return defined.contains(source) }
        return FileManager.default.fileExists(atPath: storeOptions.path + "/data.mdb")
    }

    /// What each SOURCE word can fetch (the grammar `fetch SOURCE WHAT`), from the registry.
    static var whats: [String: [String]] {
        Dictionary(grouping: registry.fetchTargets, by: \.source).mapValues { $0.map(\.what) }
    }

    /// Everything that can be checked without the network or the store is checked here,
    /// before either is touched: a bad source, WHAT, --pages or --limit is a usage error
    /// with this command's usage, and no store is created for it.
    func validate() throws {
        // --max-pages, --concurrency, --first and --limit are bounded as they are parsed (`Bounded`).
        if let retain { _ = try Bounded.durationText(retain, "--retain") }
        // The names, as far as they can be told before the store is open (a source no
        // plug-in fetches may be one the store defines: checked once it is open).
        do {
            _ = try FetchReference.resolve(source: source, what: what, shell: Self.registry, state: nil, mayBeDefined: mayBeDefined(source))
        } catch {
            throw ValidationError(error.message)
        }
        if let pages {
            guard let selection = PageSelection(pages) else { throw ValidationError("--pages takes N, A-B or all, not '\(pages)' (pages 0 to \(PageSelection.limit))") }
            if case .range(let r) = selection, r.upperBound > PageSelection.limit {
                throw ValidationError("--pages goes up to \(PageSelection.limit), not \(r.upperBound) (all fetches until the list ends)")
            }
        }
    }

    func run() async throws {
        let configuration = try reportingErrors { try network.configuration() }
        let maintenance = try reportingErrors { try storeOptions.open() }
        // Every fetch goes through the store: it supplies the validators, records the outcome.
        let store = try await reportingErrors { try await openStore(maintenance, clock: configuration.clock, fetching: configuration) }
        let printer = FetchPrinter()
        let mode = try outputOptions.mode() ?? .table
        printer.live = !mode.isMachine
        var renderer = Renderer()
        renderer.mode = mode
        do {
            let reports = try await perform(store, printer)
            await store.close()
            if let output = printer.finish(reports) { writeOut(Data(renderer.render(output).utf8)) }
            if let retain, let seconds = DurationText.seconds(retain) {
                // The retention policy: what `log compact --older-than` would drop, after
                // the fetch (whose new bodies are what supersede the old ones).
                let cutoff = Timestamp(milliseconds: configuration.clock.now().milliseconds - Int64(seconds) * 1000)
                // A checkpoint keeps the bodies it restores from; one at the head names only
                // the bodies held now, so every superseded one can go.
                try? await store.saveCheckpoint(views: false)
                let plan = try store.maintenance.compactionPlan(recordedBefore: cutoff)
                if plan.events > 0 {
                    // Through the store, which folds the change (its state stays the log's).
                    let done = try await store.compact(plan)
                    printError("retain \(retain): dropped \(done.events) superseded bod\(done.events == 1 ? "y" : "ies") recorded before \(cutoff.iso8601) (\(Format.bytes(done.bodyBytesDropped)) as received)")
                }
            }
            keepReadModelCurrent(store)
            // No report at all: every asset asked for was held already.
            if !reports.isEmpty && !reports.contains(where: \.isUsable) {
                printError("nothing usable came back: \(Self.reason(reports))")
                throw ExitCode(ExitStatus.failure)
            }
        } catch let error as ExitCode {
            throw error
        } catch let error as ValidationError {
            await store.close()
            throw error
        } catch {
            await store.close()
            printError("\(error)")
            throw ExitCode(ExitStatus.failure)
        }
    }

    /// Why nothing usable came back: the last attempt's failure.
    static func reason(_ reports: [FetchReport]) -> String {
        reports.last.map { report -> String in
            if case .failed(let failureClass, let message) = report.outcome { return "\(failureClass): \(message)" }
            return "no answer"
        } ?? "nothing was requested"
    }

    /// `store` must have a fetcher; the shell passes its `policy` (the same store's) and
    /// its registry. The target comes from the registry; its usage errors are this command's.
    func perform(_ store: Store, _ printer: FetchPrinter, policy: OfflineFirst? = nil,
                 shell: ShellRegistry = FetchCommand.registry) async throws -> [FetchReport] {
        guard let fetching = store.fetchConfiguration else { throw StoreUsageError.noFetcher }
        let policy = policy ?? OfflineFirst(store: store, clock: fetching.clock)
        let reference: FetchReference?
        do {
            reference = try FetchReference.resolve(source: source, what: what, shell: shell, state: store.durableState)
        } catch {
            throw ValidationError(error.message)
        }
        let target: FetchTarget
        switch reference {
        case .asset(let url)?:
            let report = try await policy.fetchAsset(url)
            printer.report(report)
            return [report]
        case .defined(let source, let resource)?:
            return try await fetchDefined(store, printer, policy: policy, source: source, resource: resource)
        case .target(let found)?:
            if maxPages != nil {
                throw ValidationError("--max-pages is for sources defined by a manifest (source add FILE); \(source) takes --pages")
            }
            target = found
        case nil:
            preconditionFailure("a resolution against an open store's state is never deferred")
        }
        // Bulk downloads report each image as it ends (several run at once), with the
        // planned count for the progress bar.
        let request = FetchRequest(values: values, pages: pages, limit: limit, with: extras, first: first, concurrency: concurrency,
                                   store: store, policy: policy, expect: { printer.expect($0) }, report: { printer.report($0) })
        do {
            return try await target.perform(request)
        } catch let error as ShellError where error.status == 64 {
            throw ValidationError(error.message)
        }
    }
}

extension FetchCommand {
    /// `fetch SOURCE RESOURCE [--pages all|N|A-B]` for a source defined by a manifest: every
    /// page its paginator reaches (`all`, as dlt), page N, or pages A to B — `--pages` as every
    /// source reads it (`PageSelection`, one grammar, one meaning: issue 36), a manifest's
    /// pages counted from 1 (a `page_number` or `offset` paginator starts at A, others read
    /// their way there).
    /// `--with images` then downloads the items' images (`fetchlog.images`) as assets.
    func fetchDefined(_ store: Store, _ printer: FetchPrinter, policy: OfflineFirst, source: String,
                      resource: RestResource) async throws -> [FetchReport] {
        let what = resource.name
        let withImages: Bool
        switch extras {
        case nil: withImages = false
        case "images"?: withImages = true
        case let other?: throw ValidationError("--with takes images for \(source) (fetchlog.images), not '\(other)'")
        }
        var pageCount: Int?
        var firstPage = 1
        // Parsed and bounded by `validate()`; here only where a manifest's pages start.
        if case .range(let range)? = pages.flatMap(PageSelection.init) {
            guard range.lowerBound >= 1 else {
                throw ValidationError("--pages counts \(source)'s pages from 1, not \(range.lowerBound): give \(PageSelection.range(max(1, range.lowerBound) ... max(1, range.upperBound)))")
            }
            firstPage = range.lowerBound
            pageCount = range.count
        }
        do {
            // The resource as resolved (`FetchReference`), paged by the store's client.
            _ = try await store.catchUp()
            let pager = try ManifestPager(store: store, source: Source(source), maxPages: pageCount, pageCeiling: maxPages)
            var reports = try await pager.fetch(resource, firstPage: firstPage) { printer.report($0) }
            if withImages {
                reports += try await policy.fetchManifestImages(source: source, resource: what, concurrency: concurrency,
                                                                progress: AssetProgress(onPlan: { printer.expect($0) }, onReport: { printer.report($0) }))
            }
            return reports
        } catch let error as ManifestFetchError where error.isUsage {
            throw ValidationError(error.message)
        }
    }
}

/// `--upstream`, timeouts and retries, shared by commands that touch the network.
struct NetworkOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Send every request to this server instead (BASE/<source>/<path>); default $FETCHLOG_UPSTREAM.", valueName: "base"))
    var upstream: String?
    @Option(help: ArgumentHelp("Connect timeout in seconds, 0.001 to 86400.", valueName: "seconds"), transform: Bounded.seconds("--connect-timeout"))
    var connectTimeout: Double = 10
    @Option(help: ArgumentHelp("Read timeout in seconds, 0.001 to 86400.", valueName: "seconds"), transform: Bounded.seconds("--read-timeout"))
    var readTimeout: Double = 20
    @Option(help: "Retries after a failed attempt, 0 to 100.", transform: Bounded.whole("--retries", 0 ... 100)) var retries: Int = 3
    @Option(help: ArgumentHelp("Longest Retry-After honoured, in seconds, 0.001 to 86400.", valueName: "seconds"), transform: Bounded.seconds("--retry-after-cap"))
    var retryAfterCap: Double = 30
    @Flag(help: "Forbid the network: answer from held data only.") var offline = false
    @Option(help: ArgumentHelp("Longest one attempt may take, headers and body, in seconds, 0.001 to 86400.", valueName: "seconds"),
            transform: Bounded.seconds("--deadline"))
    var deadline: Double = 60
    @Option(name: .customLong("min-rate"),
            help: ArgumentHelp("Slowest body accepted, in bytes per second over the last 10 s, 0 to 1073741824; 0 turns the check off.", valueName: "bytes-per-s"),
            transform: Bounded.whole("--min-rate", 0 ... 1 << 30, "bytes per second"))
    var minRate: Int = 1024
    @Option(name: .customLong("max-body"),
            help: ArgumentHelp("Largest answer accepted, in bytes, 1 to 4294967296 (every request: fetches, assets, pushes, token requests); a larger one is a failure.", valueName: "bytes"),
            transform: Bounded.whole("--max-body", 1 ... 1 << 32, "bytes"))
    var maxBody: Int = 256 << 20
    @Flag(help: "Let URLs named by bodies (images), manifests' base URLs and redirects reach loopback, link-local and private addresses.")
    var allowPrivateHosts = false
    @Option(name: .customLong("redact-param"),
            help: ArgumentHelp("Also mask this query parameter's value in recorded URLs (repeatable; api_key, apikey, token, access_token, key, password, secret and signature always are).", valueName: "name"))
    var redactParams: [String] = []

    func validate() throws {
        if let upstream, !upstream.isEmpty { try Self.checkUpstream(upstream, "--upstream") }
        // The numbers are bounded as they are parsed (`Bounded`).
        for name in redactParams where name.isEmpty || name.contains("=") || name.contains("&") {
            throw ValidationError("--redact-param takes a query parameter name such as api_key, not '\(name)'")
        }
    }

    /// An upstream base must be an absolute http(s) URL with a host: anything else is a
    /// usage error before a store is opened or created.
    static func checkUpstream(_ text: String, _ name: String) throws {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil else {
            throw ValidationError("\(name) takes an http(s) URL such as http://127.0.0.1:8080, not '\(text)'")
        }
    }

    func configuration() throws -> FetchConfiguration {
        if upstream?.isEmpty ?? true, let fromEnvironment = ProcessInfo.processInfo.environment["FETCHLOG_UPSTREAM"], !fromEnvironment.isEmpty {
            try Self.checkUpstream(fromEnvironment, "FETCHLOG_UPSTREAM")
        }
        var configuration = FetchConfiguration()
        configuration.upstream = FetchConfiguration.upstream(explicit: upstream)
        configuration.connectTimeout = Bounded.duration(seconds: connectTimeout)
        configuration.readTimeout = Bounded.duration(seconds: readTimeout)
        configuration.retry.retries = max(0, retries)
        configuration.retry.retryAfterCap = Bounded.duration(seconds: retryAfterCap)
        configuration.offline = offline
        configuration.deadline = Bounded.duration(seconds: deadline)
        configuration.minimumRate.bytesPerSecond = minRate
        configuration.maxBodyBytes = maxBody
        configuration.allowPrivateHosts = allowPrivateHosts
        configuration.redaction.queryParameters.formUnion(redactParams.map { $0.lowercased() })
        configuration.clock = try cliClock()
        return configuration
    }
}

/// Prints one line per attempt and a summary for people, or one record per attempt for
/// programs (`--format json|ndjson|csv`); on a terminal, a progress bar on stderr with the
/// count, bytes, rate and (when the total is known) time left.
///
/// `@unchecked Sendable`: reports arrive from concurrent downloads; the counts are in a
/// `Mutex`, and a report's lines are written while it is held (one report's lines at a time).
/// `write`, `live` and `warn` are set before the first report and never after.
final class FetchPrinter: @unchecked Sendable {
    /// Where lines go (the REPL sends them through its output).
    var write: (String) -> Void = { say($0) }
    /// Lines as each attempt ends (people); false collects records for `finish` (programs).
    var live = true
    /// Where a report's notices go (stderr; the shell prints them above the prompt), in
    /// every mode: a list that stopped early is news to people and programs alike.
    var warn: (String) -> Void = { printError("warning: " + $0) }
    private struct Counts {
        var expected = 0
        var done = 0
        var bytes = 0
    }

    /// Concurrent asset downloads report from several tasks.
    private let counts = Mutex(Counts())
    private let started = ContinuousClock.now
    private let progressBar = ProgressBar()

    func expect(_ count: Int) { counts.withLock { $0.expected += count } }

    func report(_ report: FetchReport) {
        counts.withLock { counts in
            counts.done += 1
            counts.bytes += report.bodyBytes
            progressBar.clear()
            if live {
                for attempt in report.attempts { write(Self.line(report, attempt)) }
            }
            for notice in report.notices { warn("\(report.resource): \(notice.message)") }
            drawProgress(counts, report.resource.description)
        }
    }

    static func line(_ report: FetchReport, _ attempt: FetchReport.Attempt) -> String {
        var line = (attempt.pendingSync ? "  pending" : attempt.seq == 0 ? "  session" : "  seq \(attempt.seq)") + "  GET \(report.url)  → "
        if let status = attempt.status { line += "\(status) " }
        line += attempt.kind.name
        if let failure = attempt.failure { line += " (\(failure.failureClass.name): \(failure.message))" }
        if attempt.bodyBytes > 0 { line += ", \(Format.bytes(attempt.bodyBytes))" }
        if let wait = attempt.retryAfter { line += "; retrying in \(String(format: "%.2f", Format.seconds(wait))) s" }
        if attempt.pendingSync {
            line += " — pending sync: in the outbox until the stream takes it"
        } else if attempt.sessionOnly == .noStore {
            // RFC 9111 §5.2.2.5: the log keeps only that it was asked (`NoStore`).
            line += " — kept for this session only: the upstream said no-store (fetchlog.keep_no_store keeps it)"
        } else if attempt.seq == 0 {
            let from = report.firstItemIndex.map { "items from \($0) are" } ?? "its first item's index is unknown (earlier pages not held), so it is taken as"
            line += " — kept for this session only: \(from) past the durable window"
        }
        return line
    }

    /// An attempt as a row; `pendingSync: true` is added for one in a replicated store's outbox.
    static func record(_ report: FetchReport, _ attempt: FetchReport.Attempt, notices: [FetchNotice] = []) -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("seq", attempt.seq == 0 ? .null : .number(Int(attempt.seq))), ("sessionOnly", .bool(attempt.seq == 0 && !attempt.pendingSync)),
            ("source", .string(report.resource.source.rawValue)), ("path", .string(report.resource.path)), ("url", .string(report.url)),
            ("status", attempt.status.map { .number(Int($0)) } ?? .null), ("kind", .string(attempt.kind.name)),
            ("failureClass", attempt.failure.map { .string($0.failureClass.name) } ?? .null),
            ("failure", attempt.failure.map { .string($0.message) } ?? .null),
            ("bodyBytes", .number(attempt.bodyBytes)),
            ("retryAfterSeconds", attempt.retryAfter.map { .number(CanonicalNumber.text(Format.seconds($0))) } ?? .null),
        ]
        if attempt.pendingSync { pairs.append(("pendingSync", .bool(true))) }
        if attempt.sessionOnly == .noStore { pairs.append(("sessionOnlyBecause", .string("no-store"))) }
        if !notices.isEmpty { pairs.append(("notices", .array(notices.map(\.json)))) }
        return .object(pairs)
    }

    /// Only the progress bar (the demo's quiet loading).
    func progress(_ report: FetchReport) {
        counts.withLock { counts in
            counts.done += 1
            counts.bytes += report.bodyBytes
            drawProgress(counts, report.resource.description)
            if counts.done == counts.expected { progressBar.clear() }
        }
    }

    /// The summary line (people), or every attempt as a record (programs).
    func finish(_ reports: [FetchReport]) -> Output? {
        progressBar.clear()
        let attempts = reports.flatMap { report in report.attempts.map { (report, $0) } }
        guard live else {
            return .table(columns: ["seq", "url", "status", "kind", "failure", "bytes"],
                          rows: attempts.map { [String($1.seq), $0.url, $1.status.map(String.init) ?? "-", $1.kind.name,
                                                $1.failure.map { "\($0.failureClass.name): \($0.message)" } ?? "-", String($1.bodyBytes)] },
                          // A report's notices ride on its last attempt's record.
                          records: reports.flatMap { report in
                              report.attempts.indices.map { i in
                                  Self.record(report, report.attempts[i], notices: i == report.attempts.count - 1 ? report.notices : [])
                              }
                          })
        }
        // A refused URL (a scheme or an address Fetchlog does not go to) is an event, but
        // no request was sent.
        let isRefused = { (attempt: FetchReport.Attempt) in attempt.status == nil && attempt.failure?.message.hasPrefix("refused:") == true }
        var statuses: [String: Int] = [:]
        for (_, attempt) in attempts where !isRefused(attempt) {
            statuses[attempt.status.map(String.init) ?? (attempt.failure?.failureClass.name ?? "-"), default: 0] += 1
        }
        let statusText = statuses.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")
        let seqs = attempts.map(\.1.seq).filter { $0 > 0 }
        let range = seqs.isEmpty ? "" : seqs.count == 1 ? " (seq \(seqs[0]))" : " (seq \(seqs.min()!)…\(seqs.max()!))"
        let bytes = attempts.reduce(0) { $0 + $1.1.bodyBytes }
        let refused = attempts.filter { isRefused($0.1) }.count
        let pending = attempts.filter(\.1.pendingSync).count
        let n = attempts.count - refused, e = seqs.count, session = attempts.count - e - pending
        write("\(n) request\(n == 1 ? "" : "s")" + (statusText.isEmpty ? "" : " (\(statusText))") + (refused > 0 ? ", \(refused) refused" : "")
              + "; \(e) event\(e == 1 ? "" : "s") appended\(range)"
              + (pending > 0 ? ", \(pending) pending sync in the outbox" : "")
              + (session > 0 ? ", \(session) kept for this session only" : "") + "; \(Format.bytes(bytes)) of bodies")
        return nil
    }

    private func drawProgress(_ counts: Counts, _ label: String) {
        guard counts.expected > 1 || counts.expected == 0 else { return }
        progressBar.draw(done: counts.done, total: counts.expected == 0 ? nil : counts.expected, bytes: counts.bytes, since: started, label: label)
    }
}
