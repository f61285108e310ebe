import ArgumentParser
import FetchlogCore
import FetchlogServe
import FetchlogShell
import Foundation

/// The API's answers from the commands' own code: `GET /api/items/…` runs `items`'s,
/// `GET /api/diff` the shell's `diff`, `POST /api/fetch` the shell's `fetch`,
/// `GET /api/views/NAME` `export`'s, `GET /api/pending` `pending`'s, and the write routes
/// `item add|set|delete`'s, `push`'s and `pending retry|discard`'s, each rendered as `--format json` renders it, so the
/// API and the CLI cannot drift apart. Their errors keep the CLI's message and exit status.
extension ServeAnswers {
    static func commandLine(_ store: Store, sync driver: SyncDriver? = nil) -> ServeAnswers {
        ServeAnswers(
            export: { name, state in
                try answering { try ExportCommand.document(name, state: state, maintenance: store.maintenance) }
            },
            items: { state, question in
                try answering {
                    json(try ItemsCommand.answer(state, source: question.source, resource: question.resource, text: question.text,
                                                 conditions: question.conditions, limit: question.limit, page: question.page))
                }
            },
            diff: { view, from, to in
                json(try await answeringAsync { try await Commands.viewDiff(store, view: view, from: from, to: to) })
            },
            fetch: { words in
                let printer = FetchPrinter()
                printer.live = false
                do {
                    let output = try await Commands.runFetch(words, store: store, shell: Engine.shell, policy: nil, printer: printer)
                    return FetchAnswer(text: output.map(json) ?? "[]\n", exit: 0, message: nil)
                } catch let error as CommandError where error.status == ExitStatus.failure && error.output != nil {
                    // The fetch ran and its events are in the log: the report, and why it failed.
                    return FetchAnswer(text: error.output.map(json) ?? "[]\n", exit: error.status, message: error.message)
                } catch let error as CommandError where error.status == 64 && namesNothingThere(words, store) {
                    // A source, or a source's resource, that is not there, answered as
                    // GET /api/items answers one (404), with the command's message and exit status.
                    throw APIError(code: 404, message: error.message, exit: error.status)
                } catch {
                    throw refusal(error)
                }
            },
            pending: { state in json(PendingListCommand.answer(state, claim: PushClaim.holder(store.log.path))) },
            write: { action in
                do {
                    return json(try await writeOutput(action, store))
                } catch let error as CommandError where error.status == ExitStatus.failure {
                    // Refused with nothing recorded: the CLI's words and exit status (1), as
                    // the request's mistake (400) unless what it names is not waiting (404)
                    // or waits on the user's choice (409).
                    throw APIError(code: writeRefusalCode(action, store), message: error.message, exit: error.status)
                } catch {
                    throw refusal(error)
                }
            },
            sync: {
                JSONValue.array(try await syncPass(store, driver: driver).rows.map(\.json)).canonicalText() + "\n"
            }
        )
    }

    /// The write command's own code for `action`, on the server's store. A change is sent
    /// at once, as `item add|set|delete` sends it without `--offline` (an unreachable
    /// upstream leaves it pending).
    static func writeOutput(_ action: WriteAction, _ store: Store) async throws -> Output {
        switch action {
        case let .add(source, resource, fields):
            return try await ItemAddCommand.answer(store, sending: true, source: source, resource: resource, fields: fields)
        case let .set(source, resource, key, fields, replace):
            return try await ItemSetCommand.answer(store, sending: true, source: source, resource: resource, key: key, fields: fields, replace: replace)
        case let .delete(source, resource, key):
            return try await ItemDeleteCommand.answer(store, sending: true, source: source, resource: resource, key: key)
        case .push:
            return PushCommand.answer(try await reportingWriteErrors { try await store.push(who: .person) })
        case let .retry(id, force):
            return try await PendingRetryCommand.answer(store, id: id, force: force)
        case let .discard(id):
            return try await PendingDiscardCommand.answer(store, id: id)
        }
    }

    /// True when a fetch's first word (after `--`, `APIResponder.fetchWords`) is no source
    /// a plug-in or a manifest defines, or its second none of that source's resources
    /// (`fetch`'s list for a built-in source, the manifest's for a defined one). `asset`
    /// takes a URL, not a resource.
    static func namesNothingThere(_ words: [String], _ store: Store) -> Bool {
        guard let dash = words.firstIndex(of: "--"), dash + 1 < words.count, words[dash + 1] != "asset" else { return false }
        let source = words[dash + 1]
        guard store.snapshot.state.plugin(source) != nil else { return true }
        guard dash + 2 < words.count else { return false }
        // A plug-in that has no `fetch` targets of its own is `fetch`'s to refuse.
        if FetchCommand.whats[source] == nil && store.snapshot.state.manifests[source] == nil { return false }
        // `fetch`'s own resolution (`FetchReference`): a name it refuses names nothing there.
        return (try? FetchReference.resolve(source: source, what: words[dash + 2], shell: FetchCommand.registry, state: store.snapshot.state)) == nil
    }

    /// The status a refused write is answered with.
    static func writeRefusalCode(_ action: WriteAction, _ store: Store) -> Int {
        let waiting = store.snapshot.state.writes.mutations
        switch action {
        case let .retry(id, force):
            guard let mutation = waiting[id] else { return 404 }
            return mutation.state == .conflict && !force ? 409 : 400
        case let .discard(id):
            return waiting[id] == nil ? 404 : 400
        case .push:
            return 409
        case let .add(source, resource, _), let .set(source, resource, _, _, _), let .delete(source, resource, _):
            // A path naming no source, or no resource of it that declares writes, names no
            // write target (404, as GET /api/items answers a resource that is not there); a
            // write the resource refuses is the request's mistake (400).
            guard let plugin = store.snapshot.state.plugin(source), plugin.writes(for: resource) != nil else { return 404 }
            return 400
        }
    }

    /// What `--format json` prints for `output`.
    static func json(_ output: Output) -> String {
        var renderer = Renderer()
        renderer.mode = .json
        return renderer.render(output)
    }

    static func answering<R>(_ body: () throws -> R) throws -> R {
        do { return try body() } catch { throw refusal(error) }
    }

    static func answeringAsync<R>(_ body: () async throws -> R) async throws -> R {
        do { return try await body() } catch { throw refusal(error) }
    }

    /// A command's error as the API sends it: the CLI's message and exit status; a usage
    /// error is a bad request, a failed command something not there (404), a view before
    /// the compaction horizon gone (410, with what `export --at` prints on stdout and the
    /// notice in a header).
    /// One sync pass now: through `serve --sync`'s driver, taking turns with its loop; else
    /// as `sync --once` runs it, holding the store's sync claim for the pass (another
    /// sync running on the store: 409, with `sync`'s own words and exit status).
    static func syncPass(_ store: Store, driver: SyncDriver?) async throws -> SyncPass {
        if let driver { return try await driver.passNow() }
        guard let clock = store.fetchConfiguration?.clock else { throw StoreUsageError.noFetcher }
        let claim: SyncClaim
        do {
            claim = try SyncClaim.take(store.maintenance.path, started: clock.now())
        } catch let held as SyncClaim.Held {
            throw APIError(code: 409, message: held.description, exit: ExitStatus.busy)
        }
        defer { claim.release() }
        return try await SyncRunner(store: store, policy: FreshnessPolicy(sources: store.durableState.sources), clock: clock).pass()
    }

    static func refusal(_ error: any Error) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as CommandError:
            if error.status == 64 { return APIError(code: 400, message: error.message, exit: error.status) }
            if case .message(_, .object(let members))? = error.output {
                return APIError(code: 410, message: error.message, exit: error.status, details: members, notice: error.message)
            }
            return APIError(code: 404, message: error.message, exit: error.status)
        case let error as MaintenanceError:
            let failure = ExitStatus.of(error)
            switch error {
            case .seqPastEnd, .noEvent: return APIError(code: 404, message: failure.message, exit: failure.status)
            case .cancelled: return APIError(code: 503, message: failure.message, exit: failure.status)
            default: return APIError(code: 500, message: failure.message, exit: failure.status)
            }
        case let error as ValidationError:
            return APIError(code: 400, message: error.message, exit: 64)
        default:
            return APIError(code: 500, message: "\(error)", exit: ExitStatus.failure)
        }
    }
}
