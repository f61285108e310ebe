import ArgumentParser
import FetchlogCore
import FetchlogSources
import Foundation

/// Offline writes on the command line (issue 26): `item add|set|delete` record a change at
/// once (durable, shown by `items` and `item` marked pending) and send it when the upstream
/// answers (never under `--offline`), `pending` lists what waits,
/// `push` sends it, `pending retry|discard` resolve what the server refused.

/// `item`: one item (`item SOURCE RESOURCE KEY`, the default) or a change to one.
struct ItemGroupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "item",
        abstract: "One item of a manifest resource (item SOURCE RESOURCE KEY), or a change to one: item add, set, delete — recorded at once, sent when the upstream answers (else by push).",
        subcommands: [ItemCommand.self, ItemAddCommand.self, ItemSetCommand.self, ItemDeleteCommand.self],
        defaultSubcommand: ItemCommand.self)
    static let usage = "item SOURCE RESOURCE KEY | item add SOURCE RESOURCE FIELD=VALUE… | item set SOURCE RESOURCE KEY FIELD=VALUE… | item delete SOURCE RESOURCE KEY"
}

/// The store a write command works on: the shell's, else the live store opened on demand.
func writeStore(_ context: CommandContext) async throws -> Store {
    if let session = context.session { return session.store }
    return try await openStore(context.maintenance, clock: context.clock)
}

/// A `WriteError` (bad input, nothing recorded) as the command's failure.
func reportingWriteErrors<T>(_ body: () async throws -> T) async throws -> T {
    do { return try await body() } catch let error as WriteError { throw CommandError.failed(error.message) }
}

/// What a recorded mutation says: its id, its item and how it stands. `sent`: the lines of
/// the push tried after it (nil: none was tried, as under `--offline` or in the shell).
func mutationOutput(_ mutation: PendingMutation, _ store: Store, sent lines: [String]? = nil) -> Output {
    let writes = store.snapshot.state.writes
    let key = writes.itemKey(mutation)
    let now = writes.mutations[mutation.seq]
    // Gone from the waiting ones after a push: the server confirmed it.
    let state = now?.state.rawValue ?? (lines == nil ? mutation.state.rawValue : "confirmed")
    let described = "mutation \(mutation.seq) (\(mutation.op.rawValue) \(mutation.resource) \(key))"
    // The push's line for this mutation, without its id: what was sent and what came back.
    let line = lines?.first { $0.hasPrefix("\(mutation.seq) ") }.map { String($0.drop(while: { $0 != " " }).dropFirst()) }
    let text: String
    switch (now?.state, lines) {
    case (_, nil): text = "pending: \(described); push sends it"
    case (nil, _): text = "sent: \(described)" + (line.map { ": " + $0 } ?? "")
    case (.conflict?, _), (.rejected?, _), (.paused?, _):
        text = "\(state): \(described)" + (line.map { ": " + $0 } ?? "") + "; pending retry \(mutation.seq) or pending discard \(mutation.seq)"
    default:
        text = "pending: \(described)" + (line.map { ": " + $0 } ?? "")
            + "; push, the next fetch of \(mutation.source) \(mutation.resource) or the shell when online sends it"
    }
    return .record(pairs: [("mutation", String(mutation.seq)), ("op", mutation.op.rawValue), ("resource", mutation.resource), ("key", key),
                           ("state", state), ("note", text)],
                   json: .object([("mutation", .number(mutation.seq)), ("op", .string(mutation.op.rawValue)), ("source", .string(mutation.source)),
                                  ("resource", .string(mutation.resource)), ("key", .string(key)), ("state", .string(state)),
                                  ("fields", mutation.fields), ("note", .string(text))]))
}

/// `item add|set|delete`: records the mutation (committed before anything is sent), then,
/// on the command line and unless `--offline`, sends that resource's writes at once. An
/// unreachable upstream leaves it pending (exit 0): push, a fetch or the shell sends it later.
/// In the shell the mutation is only recorded: the shell pushes by itself when online.
func recordingWrite(_ context: CommandContext, _ network: NetworkOptions, source: String, resource: String,
                    _ record: @escaping (Store) async throws -> PendingMutation) async throws -> Output {
    if let session = context.session {
        let mutation = try await reportingWriteErrors { try await record(session.store) }
        return mutationOutput(mutation, session.store)
    }
    let configuration = try network.configuration()
    let store = try await openStore(context.maintenance, clock: context.clock, fetching: configuration.offline ? nil : configuration)
    do {
        let output = try await recordedWrite(store, sending: !configuration.offline, source: source, resource: resource, record)
        keepReadModelCurrent(store)
        await store.close()
        return output
    } catch {
        await store.close()
        throw error
    }
}

/// `recordingWrite`'s work on a store already open (the command line's, or `serve`'s for
/// the API's writes): records the mutation, then, when `sending`, sends that resource's writes.
func recordedWrite(_ store: Store, sending: Bool, source: String, resource: String,
                   _ record: (Store) async throws -> PendingMutation) async throws -> Output {
    let mutation = try await reportingWriteErrors { try await record(store) }
    var lines: [String]?
    if sending {
        // Automatic sending: an earlier failure of the resource waits for its Retry-After.
        // The mutation is already durable, so an error here only leaves it pending.
        // Unattended: a change of the resource left in doubt waits for `push` or `pending retry`.
        lines = (try? await store.push(source: source, resource: resource, automatic: true, who: .unattended))?.lines ?? []
    }
    return mutationOutput(mutation, store, sent: lines)
}

struct ItemAddCommand: SharedCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Create an item: recorded at once (its key local:ID until the server names one), then sent when the upstream answers (--offline: by push).")
    static let usage = "item add SOURCE RESOURCE FIELD=VALUE… | --json FILE"
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var network: NetworkOptions
    @Argument(help: "The source (defined by a manifest).") var source: String
    @Argument(help: "The resource.") var resource: String
    @Argument(help: ArgumentHelp("The item's fields, typed as the resource's fields are (numbers stay numbers).", valueName: "field=value"))
    var assignments: [String] = []
    @Option(help: ArgumentHelp("A file holding the item as one JSON object.", valueName: "file")) var json: String?

    func run() async throws { try await runOnCommandLine() }

    func output(_ context: CommandContext) async throws -> Output? {
        var members: [(String, JSONValue)]?
        if let json {
            guard assignments.isEmpty else { throw CommandError.usage("give the fields as FIELD=VALUE or --json FILE, not both\nusage: \(Self.usage)") }
            guard let data = FileManager.default.contents(atPath: json) else { throw CommandError.failed("cannot read \(json)") }
            guard case .object(let object) = try? JSONValue.parse(bytes: Array(data)) else {
                throw CommandError.failed("\(json) does not hold one JSON object ({\"title\": \"buy bread\"})")
            }
            members = object
        }
        let (source, resource, assignments) = (source, resource, assignments)
        return try await recordingWrite(context, network, source: source, resource: resource) { store in
            if let members { return try await store.write(.create, source: source, resource: resource, fields: members) }
            return try await store.write(.create, source: source, resource: resource, assignments: assignments)
        }
    }
}

extension ItemAddCommand {
    /// `item add SOURCE RESOURCE --json FILE` on an open store (`POST /api/items/…` answers it).
    static func answer(_ store: Store, sending: Bool, source: String, resource: String, fields: [(String, JSONValue)]) async throws -> Output {
        try await recordedWrite(store, sending: sending, source: source, resource: resource) {
            try await $0.write(.create, source: source, resource: resource, fields: fields)
        }
    }
}

struct ItemSetCommand: SharedCommand {
    static let configuration = CommandConfiguration(commandName: "set", abstract: "Change fields of an item: recorded at once, then sent when the upstream answers (--offline: by push; If-Match with the ETag held).")
    static let usage = "item set SOURCE RESOURCE KEY FIELD=VALUE…"
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var network: NetworkOptions
    @Argument(help: "The source (defined by a manifest).") var source: String
    @Argument(help: "The resource.") var resource: String
    @Argument(help: "The item's primary key (or a created item's local:ID).") var key: String
    @Argument(help: ArgumentHelp("The fields to change.", valueName: "field=value")) var assignments: [String] = []
    @Flag(help: "Replace the item (the resource's replace write): fields not given go back to the server's defaults.") var replace = false

    func run() async throws { try await runOnCommandLine() }

    func output(_ context: CommandContext) async throws -> Output? {
        let (source, resource, key, assignments, op) = (source, resource, key, assignments, replace ? RestWrites.Operation.replace : .update)
        return try await recordingWrite(context, network, source: source, resource: resource) { store in
            try await store.write(op, source: source, resource: resource, key: key, assignments: assignments)
        }
    }
}

extension ItemSetCommand {
    /// `item set [--replace] SOURCE RESOURCE KEY …` on an open store (`PATCH`/`PUT /api/items/…/KEY` answer it).
    static func answer(_ store: Store, sending: Bool, source: String, resource: String, key: String,
                       fields: [(String, JSONValue)], replace: Bool) async throws -> Output {
        try await recordedWrite(store, sending: sending, source: source, resource: resource) {
            try await $0.write(replace ? .replace : .update, source: source, resource: resource, key: key, fields: fields)
        }
    }
}

struct ItemDeleteCommand: SharedCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete an item: gone from the views at once, then sent when the upstream answers (--offline: by push).")
    static let usage = "item delete SOURCE RESOURCE KEY"
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var network: NetworkOptions
    @Argument(help: "The source (defined by a manifest).") var source: String
    @Argument(help: "The resource.") var resource: String
    @Argument(help: "The item's primary key (or a created item's local:ID).") var key: String

    func run() async throws { try await runOnCommandLine() }

    func output(_ context: CommandContext) async throws -> Output? {
        let (source, resource, key) = (source, resource, key)
        return try await recordingWrite(context, network, source: source, resource: resource) { store in
            try await store.write(.delete, source: source, resource: resource, key: key, assignments: [])
        }
    }
}

extension ItemDeleteCommand {
    /// `item delete SOURCE RESOURCE KEY` on an open store (`DELETE /api/items/…/KEY` answers it).
    static func answer(_ store: Store, sending: Bool, source: String, resource: String, key: String) async throws -> Output {
        try await recordedWrite(store, sending: sending, source: source, resource: resource) {
            try await $0.write(.delete, source: source, resource: resource, key: key, assignments: [])
        }
    }
}

/// `pending`: every mutation waiting; `pending retry ID [--force]`, `pending discard ID`.
struct PendingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pending",
        abstract: "The changes waiting to be sent (item add/set/delete): each one's state and last answer; retry or discard one.",
        subcommands: [PendingListCommand.self, PendingRetryCommand.self, PendingDiscardCommand.self],
        defaultSubcommand: PendingListCommand.self)
    static let usage = "pending | pending retry ID [--force] | pending discard ID"
}

struct PendingListCommand: SharedCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Every mutation waiting, in log order: its state and last answer.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputOptions: OutputOptions

    func run() async throws { try await runOnCommandLine() }

    func output(_ context: CommandContext) async throws -> Output? {
        Self.answer(try await context.liveState(), claim: PushClaim.holder(context.maintenance.log.path))
    }

    /// The list as of `state` (`GET /api/pending` answers it too). `claim`: who holds the
    /// store's push claim now (`PushClaim.holder`), nil when nobody does. A `sending`
    /// mutation is being sent when the claim is held, and in doubt when it is free (its
    /// sender is gone: killed, or stopped before an answer came).
    static func answer(_ state: LogState, claim: PushClaim.Holder?) -> Output {
        let pending = state.writes.pending
        var rows: [[String]] = [], records: [JSONValue] = [], notes: [String] = []
        for mutation in pending {
            let key = state.writes.itemKey(mutation)
            let answer = mutation.lastStatus.map { "\($0)" + (mutation.lastMessage.map { " " + $0 } ?? "") } ?? mutation.lastMessage ?? "-"
            let (shown, note) = Self.sending(mutation, claim: claim, state: state)
            if let note { notes.append("\(mutation.seq): \(note)") }
            // In doubt (its sender gone): whether sync sends it again, and the server's item held.
            let doubt = mutation.state == .sending && claim != nil ? nil : WritePush.doubt(mutation, state: state)
            rows.append([String(mutation.seq), mutation.op.rawValue, mutation.source + " " + mutation.resource, key, shown,
                         String(mutation.attempts), answer])
            records.append(.object([
                ("id", .number(mutation.seq)), ("op", .string(mutation.op.rawValue)), ("source", .string(mutation.source)),
                ("resource", .string(mutation.resource)), ("key", .string(key)), ("fields", mutation.fields),
                ("state", .string(mutation.state.rawValue)), ("attempts", .number(mutation.attempts)),
                ("lastStatus", mutation.lastStatus.map { .number($0) } ?? .null), ("lastMessage", mutation.lastMessage.map(JSONValue.string) ?? .null),
                ("server", mutation.current ?? doubt?.serverItem ?? .null), ("idempotencyKey", .string(mutation.idempotencyKey)),
                ("inDoubt", .bool(doubt != nil)), ("waitsForAPerson", .bool(doubt?.waitsForAPerson ?? false)),
                ("sender", mutation.state == .sending ? claim.map { .object([("pid", .number($0.pid)), ("doing", .string($0.doing)),
                                                                            ("started", .string($0.started.iso8601))]) } ?? .null : .null),
                ("note", note.map(JSONValue.string) ?? .null),
            ]))
        }
        let footer = pending.isEmpty ? "nothing is pending" : "\(pending.count) pending · push sends them"
        return .table(columns: ["id", "op", "resource", "key", "state", "attempts", "last answer"], rows: rows, records: records,
                      footer: ([footer] + notes).joined(separator: "\n"))
    }

    /// A `sending` mutation's state cell and note: being sent by the claim's holder, or in
    /// doubt (the claim is free: whoever recorded the attempt is gone without an answer). A
    /// failure with no whole answer after its request may have arrived is in doubt too.
    /// In doubt, the note says whether `sync` sends it again by itself (issue 44: only when
    /// that cannot apply it twice) and, when it does not, the server's item held now.
    static func sending(_ mutation: PendingMutation, claim: PushClaim.Holder?, state: LogState) -> (state: String, note: String?) {
        let sent = "sent at seq \(mutation.sentSeq.map(String.init) ?? "?")" + (mutation.sentAt.map { " (\($0.iso8601))" } ?? "")
        if mutation.state == .sending, let claim {
            return ("sending", "being sent now by pid \(claim.pid) (\(claim.doing) started \(claim.started.iso8601)): \(sent), its answer not back yet")
        }
        guard let doubt = WritePush.doubt(mutation, state: state) else { return (mutation.state.rawValue, nil) }
        let what = mutation.state == .sending ? "\(sent), no answer recorded; its sender is gone"
            : "\(sent), no whole answer (\(mutation.lastMessage ?? "none")); the request may have reached the server"
        guard doubt.waitsForAPerson else {
            return ("in doubt", "in doubt: \(what); the next push sends it again with the same Idempotency-Key \(mutation.idempotencyKey)")
        }
        let server = doubt.serverItem.map { "the server's item as last held: \($0.canonicalText())" } ?? "no server item is held for it"
        return ("in doubt", "in doubt: \(what); sync does not send it again by itself (\(doubt.why ?? "not safe to repeat")): "
            + "pending retry \(mutation.seq) sends it again with the same Idempotency-Key \(mutation.idempotencyKey) (as push does), "
            + "pending discard \(mutation.seq) drops it; \(server)")
    }
}

struct PendingRetryCommand: SharedCommand {
    static let configuration = CommandConfiguration(commandName: "retry", abstract: "Send a mutation again with the next push; --force sends a conflicting one over the server's version.")
    static let usage = "pending retry ID [--force]"
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputOptions: OutputOptions
    @Argument(help: "The mutation's id (pending lists them).", transform: Bounded.seq("ID", from: 1)) var id: UInt64
    @Flag(help: "After a conflict (412): send your change over the server's version.") var force = false

    func run() async throws { try await runOnCommandLine() }

    func output(_ context: CommandContext) async throws -> Output? {
        try await Self.answer(try await writeStore(context), id: id, force: force)
    }

    /// Queues mutation `id` again (`POST /api/pending/ID/retry` answers it too).
    static func answer(_ store: Store, id: UInt64, force: Bool) async throws -> Output {
        do {
            try await store.retryMutation(id, force: force)
        } catch let error as WriteError {
            throw CommandError.failed(error.message.replacingOccurrences(of: "retry it with force", with: "pending retry \(id) --force"))
        }
        return .message("mutation \(id) will be sent again by the next push", json: .object([("mutation", .number(id)), ("state", .string("queued")), ("force", .bool(force))]))
    }
}

struct PendingDiscardCommand: SharedCommand {
    static let configuration = CommandConfiguration(commandName: "discard", abstract: "Drop a mutation: never sent, gone from the views (a create takes its item's later changes with it).")
    static let usage = "pending discard ID"
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputOptions: OutputOptions
    @Argument(help: "The mutation's id (pending lists them).", transform: Bounded.seq("ID", from: 1)) var id: UInt64

    func run() async throws { try await runOnCommandLine() }

    func output(_ context: CommandContext) async throws -> Output? {
        try await Self.answer(try await writeStore(context), id: id)
    }

    /// Drops mutation `id` (`POST /api/pending/ID/discard` answers it too).
    static func answer(_ store: Store, id: UInt64) async throws -> Output {
        try await reportingWriteErrors { try await store.discardMutation(id) }
        return .message("mutation \(id) discarded", json: .object([("mutation", .number(id)), ("state", .string("discarded"))]))
    }
}

/// `push`: sends every mutation this store made that can be sent now.
struct PushCommand: SharedCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Send the changes waiting (item add/set/delete) to the upstream, exactly once: each with Idempotency-Key, If-Match when an ETag is held; every attempt and answer is an event.")
    static let usage = "push"
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var network: NetworkOptions

    func run() async throws { try await runOnCommandLine() }

    func output(_ context: CommandContext) async throws -> Output? {
        let report: PushReport
        if let session = context.session {
            report = try await reportingWriteErrors { try await session.store.push(who: .person) }
        } else {
            let configuration = try network.configuration()
            if configuration.offline { throw CommandError.failed("--offline forbids the network: nothing was sent (pending lists what waits)") }
            let store = try await openStore(context.maintenance, clock: configuration.clock, fetching: configuration)
            do {
                // Another push holds the store's claim: said at once, on stderr, before the wait.
                report = try await reportingWriteErrors {
                    try await store.push(source: nil, resource: nil, automatic: false, who: .person, waiting: { holder in
                        printError("push: another push (\(holder)) is sending this store's writes; waiting for it to finish…")
                    })
                }
                keepReadModelCurrent(store)
                await store.close()
            } catch {
                await store.close()
                throw error
            }
        }
        return Self.answer(report)
    }

    /// What a push reports (`POST /api/push` answers it too).
    static func answer(_ report: PushReport) -> Output {
        let counts = [("confirmed", report.confirmed), ("conflict", report.conflicts), ("rejected", report.rejected), ("paused", report.paused),
                      ("failed", report.failed), ("held", report.held)].filter { !$0.1.isEmpty }
        let summary = counts.isEmpty ? "nothing to send" : counts.map { "\($0.1.count) \($0.0)" }.joined(separator: ", ")
        // One pusher at a time per store: a push that waited for another says so first.
        let waited = report.waitedFor.map { ["waited for another push (\($0)) to finish first"] } ?? []
        let text = (waited + report.lines + [summary]).joined(separator: "\n")
        return .message(text, json: .object(
            [("confirmed", report.confirmed), ("conflicts", report.conflicts), ("rejected", report.rejected), ("paused", report.paused),
             ("failed", report.failed), ("held", report.held)].map { ($0.0, .array($0.1.map { .number($0) })) }
            + [("lines", .array(report.lines.map(JSONValue.string))), ("waitedFor", report.waitedFor.map(JSONValue.string) ?? .null)]))
    }
}
