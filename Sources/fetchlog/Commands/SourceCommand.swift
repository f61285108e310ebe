import ArgumentParser
import FetchlogCore
import Foundation

/// `source add FILE | list | show NAME`: sources defined by manifests (dlt's `rest_api`
/// JSON), kept in the log as `source.defined` events. The same grammar on the command line
/// and in the shell.
struct SourceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "source",
        abstract: "Define sources from manifests (dlt rest_api JSON) and list them.",
        subcommands: [Add.self, Try.self, List.self, Show.self])
    static let usage = "source add FILE | try FILE | list | show NAME"
    static let usages = ["add": "source add FILE", "try": "source try FILE", "list": "source list", "show": "source show NAME"]

    /// A manifest file, parsed and checked (errors name the file and the key path).
    static func manifest(_ file: String) throws -> RestManifest {
        guard let data = FileManager.default.contents(atPath: file) else { throw CommandError.failed("\(file): cannot be read") }
        let json: JSONValue
        do { json = try JSONValue.parse(bytes: Array(data)) } catch { throw CommandError.failed("\(file): not JSON: \(error)") }
        do { return try RestManifest(json: json) } catch { throw CommandError.failed("\(file): \(error)") }
    }

    /// The live store of a command: the shell's, or one opened for the command line.
    static func store(_ context: CommandContext) async throws -> Store {
        if let store = context.session?.store { return store }
        return try await openStore(context.maintenance, clock: context.clock)
    }

    struct Add: SharedCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Validate a manifest and append it to the log.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var outputOptions: OutputOptions
        @Argument(help: "The manifest (JSON, dlt's rest_api form, with a top-level name).") var file: String

        func run() async throws { try await runOnCommandLine() }

        func output(_ context: CommandContext) async throws -> Output? {
            let manifest = try SourceCommand.manifest(file)
            let store = try await SourceCommand.store(context)
            let previous = store.snapshot.state.manifests[manifest.name]
            do { try await store.define(manifest) } catch let error as ManifestError { throw CommandError.failed("\(file): \(error)") }
            let seq = store.snapshot.state.manifests[manifest.name]?.seq ?? 0
            let names = manifest.resources.map(\.name)
            let verb = previous == nil ? "defined" : "redefined"
            // Secrets are read at fetch time; one not set now is named now, not at the first fetch.
            let unset = ManifestSource(manifest).unsetSecrets(environment: ProcessInfo.processInfo.environment)
            // dlt's table hints have no table here: said, so nobody expects them to act.
            let notes = unset.map { "note: \($0); until then its fetches send nothing" }
                + manifest.acceptedWithoutEffect.map { "note: \($0) is dlt's; accepted, no effect in Fetchlog" }
            var json: [(String, JSONValue)] = [("source", .string(manifest.name)), ("resources", .array(names.map(JSONValue.string))),
                                               ("seq", .number(seq)), ("redefined", .bool(previous != nil))]
            if !notes.isEmpty { json.append(("notes", .array(notes.map(JSONValue.string)))) }
            return .message((["\(verb) source \(manifest.name) (\(names.count) resource\(names.count == 1 ? "" : "s"): \(names.joined(separator: ", "))) at seq \(seq)"]
                                + notes).joined(separator: "\n"),
                            json: .object(json))
        }
    }

    /// `source try FILE`: what the manifest would make of the held bodies, per resource —
    /// added, removed, changed items — fetching nothing and writing nothing.
    struct Try: SharedCommand {
        static let configuration = CommandConfiguration(
            commandName: "try", abstract: "Apply an edited manifest to the held bodies and show what would change (nothing is fetched or written).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var outputOptions: OutputOptions
        @Argument(help: "The edited manifest.") var file: String

        func run() async throws { try await runOnCommandLine() }

        func output(_ context: CommandContext) async throws -> Output? {
            let manifest = try SourceCommand.manifest(file)
            let state = try await context.liveState()
            let trial = ManifestTrial(manifest, on: state)
            let rows = trial.resources.map { change in
                [change.resource, "\(change.before) → \(change.after)", String(change.added.count), String(change.removed.count), String(change.changed.count),
                 change.changed.prefix(3).map { "\($0.key): \($0.fields.joined(separator: ","))" }.joined(separator: "; ") + (change.changed.count > 3 ? " …" : "")]
            }
            let records: [JSONValue] = trial.resources.map { change in
                var members: [(String, JSONValue)] = [
                    ("resource", .string(change.resource)), ("before", .number(change.before)), ("after", .number(change.after)),
                    ("added", .array(change.added.map(JSONValue.string))), ("removed", .array(change.removed.map(JSONValue.string))),
                    ("changed", .array(change.changed.map { .object([("key", .string($0.key)), ("fields", .array($0.fields.map(JSONValue.string)))]) }))]
                if let next = change.next { members.append(("next", .string(next))) }
                return .object(members)
            }
            let unchanged = trial.resources.allSatisfy { $0.added.isEmpty && $0.removed.isEmpty && $0.changed.isEmpty }
            // An incremental resource's next request is the state it keeps: shown, so it can be checked.
            let next = trial.resources.compactMap { change in change.next.map { "\n\(change.resource)'s next fetch asks \($0)" } }.joined()
            return .table(columns: ["resource", "items", "added", "removed", "changed", "changed fields (first 3)"], rows: rows, records: records,
                          footer: (unchanged ? "no item would change; nothing was fetched or written"
                                             : "nothing was fetched or written; source add \(file) to apply it") + next)
        }
    }

    struct List: SharedCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "The sources defined by manifests.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var outputOptions: OutputOptions

        func run() async throws { try await runOnCommandLine() }

        func output(_ context: CommandContext) async throws -> Output? {
            let state = try await context.liveState()
            let defined = state.manifests.keys.sorted().map { state.manifests[$0]! }
            let rows = defined.map { [$0.manifest.name, $0.manifest.baseURL, $0.manifest.resources.map(\.name).joined(separator: ", "), String($0.seq)] }
            let records: [JSONValue] = defined.map {
                .object([("source", .string($0.manifest.name)), ("base", .string($0.manifest.baseURL)),
                         ("resources", .array($0.manifest.resources.map { .string($0.name) })), ("seq", .number($0.seq))])
            }
            return .table(columns: ["source", "base", "resources", "defined at seq"], rows: rows, records: records,
                          footer: defined.isEmpty ? "no source defined by a manifest yet: source add FILE" : nil)
        }
    }

    struct Show: SharedCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "A source's manifest as defined.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var outputOptions: OutputOptions
        @Argument(help: "The source's name.") var name: String

        func run() async throws { try await runOnCommandLine() }

        func output(_ context: CommandContext) async throws -> Output? {
            let state = try await context.liveState()
            guard let defined = state.manifests[name] else {
                let names = state.manifests.keys.sorted()
                throw CommandError.failed("no source '\(name)' is defined by a manifest\(Suggest.didYouMean(name, names))"
                    + (names.isEmpty ? "" : ": defined are \(names.joined(separator: ", "))"))
            }
            return .json(defined.manifest.json)
        }
    }
}
