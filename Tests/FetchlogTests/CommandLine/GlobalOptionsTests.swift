import FetchlogCore
import Foundation
import Testing
@testable import fetchlog

/// Issue 25, item 7: global options behave as in git. Before the subcommand every command
/// accepts them and applies those it uses; after it only the command's own are accepted,
/// and one it does not take is refused by name, changing nothing.
@Suite struct GlobalOptionsTests {
    static let manifest = #"""
    {"name":"catalog","client":{"base_url":"https://catalog.example"},
     "resources":[{"name":"pages","primary_key":"id","endpoint":{"path":"pages","data_selector":"data"}}]}
    """#

    private func sampleStore(_ dir: TemporaryDirectory) async throws -> String {
        let path = dir.sub("store")
        let result = try await runFetchlog(["--store", path, "log", "import", Repo.sampleLog])
        #expect(result.stdout == "imported 13 events into \(path), seq 1…13\n")
        return path
    }

    private func manifestFile(_ dir: TemporaryDirectory) throws -> String {
        let file = dir.sub("catalog.json")
        try Self.manifest.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Was "give the file once": the upstream URL, moved after `--out F`, was read as the
    /// file argument of `export`, which takes no --upstream.
    @Test func exportTakesAGlobalUpstreamItDoesNotUse() async throws {
        let dir = TemporaryDirectory("global-export")
        let store = try await sampleStore(dir)
        let out = dir.sub("gnomes.json")
        let result = try await runFetchlog(["--store", store, "--upstream", "http://127.0.0.1:9", "export", "gnomes", "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        let direct = try await runFetchlog(["--store", store, "export", "gnomes"])
        #expect(direct.status == 0)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == direct.stdout)
        #expect(try JSONValue.parse(direct.stdout)["count"] == .number(1337))
    }

    /// Was "Unknown option '--upstream'": `source add` fetches nothing.
    @Test func sourceAddTakesAGlobalUpstreamItDoesNotUse() async throws {
        let dir = TemporaryDirectory("global-source-add")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let store = dir.sub("store")
        let file = try manifestFile(dir)
        let add = try await runFetchlog(["--upstream", "http://127.0.0.1:9", "--store", store, "--format", "json", "source", "add", file])
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout == #"{"redefined":false,"resources":["pages"],"seq":1,"source":"catalog"}"# + "\n")
        let list = try await runFetchlog(["--store", store, "--format", "json", "source", "list"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(try JSONValue.parse(list.stdout).arrayValue?.compactMap { $0["source"]?.stringValue } == ["catalog"])
    }

    /// After the subcommand, an option it does not take is refused by name (with where a
    /// global option goes), before anything is opened or written.
    @Test func anOptionAfterACommandThatDoesNotTakeItIsRefused() async throws {
        let dir = TemporaryDirectory("global-after")
        let store = try await sampleStore(dir)
        let file = try manifestFile(dir)
        let add = try await runFetchlog(["--store", store, "source", "add", file, "--upstream", "http://127.0.0.1:9"])
        #expect(add.status == 64)
        #expect(add.stdout == "")
        #expect(add.stderr == "fetchlog: 'fetchlog source add' takes no option --upstream; fetchlog source add --help lists its options (global options go before the command: fetchlog --upstream … source add)\n")
        let out = dir.sub("gnomes.json")
        let export = try await runFetchlog(["--store", store, "export", "gnomes", "--out", out, "--offline"])
        #expect(export.status == 64)
        #expect(export.stderr == "fetchlog: 'fetchlog export' takes no option --offline; fetchlog export --help lists its options (global options go before the command: fetchlog --offline export)\n")
        #expect(!FileManager.default.fileExists(atPath: out))
        let typo = try await runFetchlog(["--store", store, "log", "tail", "--formt", "json"])
        #expect(typo.status == 64)
        #expect(typo.stderr == "fetchlog: 'fetchlog log tail' takes no option --formt (did you mean '--format'?); fetchlog log tail --help lists its options\n")
        // Nothing was added: the log still ends at the sample's last seq.
        let stats = try await runFetchlog(["--store", store, "--format", "json", "log", "stats"])
        #expect(try JSONValue.parse(stats.stdout)["lastSeq"] == .number(13))
    }

    /// The same global options before several commands: each applies what it uses
    /// (--store, --format) and answers as with its own options after it.
    @Test(arguments: [["log", "stats"], ["log", "tail", "2"], ["status"], ["export", "gnomes"], ["replay"], ["source", "list"]])
    func globalOptionsBeforeCommands(_ command: [String]) async throws {
        let dir = TemporaryDirectory("global-before")
        let store = try await sampleStore(dir)
        let globals = ["--store", store, "--format", "json", "--upstream", "http://127.0.0.1:9", "--offline", "--retries", "0"]
        let before = try await runFetchlog(globals + command)
        let after = try await runFetchlog(command + ["--store", store, "--format", "json"])
        #expect(before.status == 0, "\(before.stderr)")
        #expect(after.status == 0, "\(after.stderr)")
        #expect(before.stdout == after.stdout)
        #expect(before.stderr == after.stderr)
        // JSON, so --format was applied, and the sample store's, so --store was.
        let json = try JSONValue.parse(before.stdout)
        switch command {
        case ["log", "stats"]: #expect(json["lastSeq"] == .number(13))
        case ["log", "tail", "2"]: #expect(json.arrayValue?.compactMap { $0["seq"]?.intValue } == [12, 13])
        case ["export", "gnomes"]: #expect(json["count"] == .number(1337))
        case ["source", "list"]: #expect(json.arrayValue == [])
        default: #expect(json != .null)
        }
    }

    /// The line ArgumentParser parses: global options right after the subcommand, only
    /// those it declares; the group's own position (`log --format json tail`) counts as before.
    @Test func arrangedLines() throws {
        #expect(try GlobalOptions.arrange(["--upstream", "U", "--store", "S", "export", "gnomes", "--out", "F"])
            == ["export", "--store", "S", "gnomes", "--out", "F"])
        #expect(try GlobalOptions.arrange(["--store", "S", "log", "--format=json", "tail", "2", "--format", "table"])
            == ["log", "tail", "--store", "S", "--format=json", "2", "--format", "table"])
        #expect(try GlobalOptions.arrange(["--offline", "--store", "S"]) == ["--offline", "--store", "S"])
        #expect(try GlobalOptions.arrange(["--store", "S", "--help"]) == ["--help"])
        #expect(try GlobalOptions.arrange(["--store", "S", "help", "log"]) == ["help", "log"])
        #expect(throws: GlobalOptions.Misplaced.self) { try GlobalOptions.arrange(["export", "gnomes", "--upstream", "U"]) }
        // A group with a default subcommand is that command unless a word names another:
        // the global options go to it, and what follows it is its own.
        #expect(try GlobalOptions.arrange(["--store", "S", "pending", "--format", "json"]) == ["pending", "--store", "S", "--format", "json"])
        #expect(try GlobalOptions.arrange(["--store", "S", "--format", "json", "pending"]) == ["pending", "--store", "S", "--format", "json"])
        #expect(try GlobalOptions.arrange(["--store", "S", "item", "catalog", "items", "1"]) == ["item", "--store", "S", "catalog", "items", "1"])
        #expect(try GlobalOptions.arrange(["--store", "S", "pending", "retry", "3"]) == ["pending", "retry", "--store", "S", "3"])
        #expect(throws: GlobalOptions.Misplaced.self) { try GlobalOptions.arrange(["pending", "--upstream", "U"]) }
    }

    /// The global options are options of the commands (the list and the commands cannot
    /// drift apart): the shell, the default command, declares them all, each with or
    /// without a value as the list says.
    @Test func everyGlobalOptionIsTheShells() {
        let shell = GlobalOptions.Grammar(ReplCommand.self)
        #expect(GlobalOptions.withValue.filter { shell.options[$0] != true }.sorted() == [])
        #expect(GlobalOptions.flags.filter { shell.options[$0] != false }.sorted() == [])
    }

    /// `fetchlog --help`'s overview is wrapped once, by ArgumentParser: no line of it ends
    /// where the next line's first word would still have fit (a hard newline inside a
    /// paragraph, which broke "`fetchlog --store DIR log` / `stats`").
    @Test(arguments: [80, 200])
    func helpOverviewIsWrappedOnce(_ width: Int) async throws {
        let help = try await runFetchlog(["--help"], environment: ["COLUMNS": "\(width)"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("fetchlog [<global options>] <subcommand>"))
        #expect(Self.unforcedBreaks(help.stdout, width: width) == [])
        // After global options, --help is still fetchlog's own (was the shell's).
        let afterGlobals = try await runFetchlog(["--store", NSTemporaryDirectory() + "fetchlog-help-unused", "--offline", "--help"],
                                                 environment: ["COLUMNS": "\(width)"])
        #expect(afterGlobals.stdout == help.stdout)
    }

    /// The check can fail: a paragraph broken by hand where ArgumentParser would not have.
    @Test func theWrapCheckFindsAHardBreak() {
        let text = "OVERVIEW: one two\n\nShared options may come before the subcommand: `fetchlog --store DIR log\nstats`,\n`fetchlog --offline`.\n\nUSAGE: x\n"
        #expect(Self.unforcedBreaks(text, width: 80) == ["Shared options may come before the subcommand: `fetchlog --store DIR log | stats`,",
                                                         "stats`, | `fetchlog --offline`."])
    }

    /// The pairs of lines, before USAGE:, whose break was not needed at `width`.
    static func unforcedBreaks(_ help: String, width: Int) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.hasPrefix("USAGE:") }.map(String.init)
        var found: [String] = []
        for (line, next) in zip(lines, lines.dropFirst()) where !line.isEmpty && !next.isEmpty {
            let word = next.prefix { $0 != " " }
            if line.count + 1 + word.count <= width { found.append("\(line) | \(next)") }
        }
        return found
    }
}
