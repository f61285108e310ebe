import Foundation
import SampleUpstream
import Testing
@testable import FetchlogCore
@testable import FetchlogSources
@testable import fetchlog

/// The shell driven through stdin scripts on the demo store: exact output, the
/// documented exit statuses, and nothing written to the log by a failing command.
@Suite(.serialized) struct ReplScriptTests {
    /// Every example that `help` shows runs, in order, and prints exactly what
    /// Golden/help-examples.txt holds (set FETCHLOG_RECORD_GOLDEN=1 to rewrite it after
    /// an intended change, then review the diff).
    @Test func everyHelpExampleRunsAndPrintsItsGolden() async throws {
        let dir = TemporaryDirectory("repl-help")
        let examples = CommandTableExamples.all
        #expect(examples.count == 40) // pending and push (issue 26); sql, .tables, .schema (issue 35)
        let result = try await runDemoScript(examples, store: dir.sub("demo"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("error:"), "\(result.stderr)")
        let golden = Repo.root + "/Tests/FetchlogTests/REPL/Golden/help-examples.txt"
        let output = normalized(result.stdout)
        if ProcessInfo.processInfo.environment["FETCHLOG_RECORD_GOLDEN"] == "1" {
            try output.write(toFile: golden, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOfFile: golden, encoding: .utf8)
        #expect(output == expected)
    }

    @Test func theDemoLoadsAllFiveSources() async throws {
        let dir = TemporaryDirectory("repl-demo")
        let result = try await runDemoScript(["sources"], store: dir.sub("demo"))
        #expect(result.status == 0)
        #expect(result.stderr.contains("all five sources loaded · type help for the commands, quit to leave\n"))
        #expect(result.stdout == """
            source       base                                                          held  last success
            ───────────  ────────────────────────────────────────────────────────────  ────  ────────────────────────
            tvmaze       https://api.tvmaze.com                                        4     2026-11-22T09:00:00.000Z
            brastlewark  https://raw.githubusercontent.com/rrafols/mobile_test/master  1     2026-11-22T09:00:00.000Z
            viaplay      https://content.viaplay.com                                   1     2026-11-22T09:00:00.000Z
            thmanyah     https://api-v2-b2sit6oh3a-uc.a.run.app                        1     2026-11-22T09:00:00.000Z
            artic        https://api.artic.edu                                         1     2026-11-22T09:00:00.000Z

            """)
    }

    @Test func aScriptStopsAtTheFirstFailingCommandWithItsStatusAndWritesNothing() async throws {
        let dir = TemporaryDirectory("repl-errors")
        let store = dir.sub("demo")
        let cases: [(String, Int32, String)] = [
            ("bogus", 64, "error: unknown command 'bogus'; type help for the list\n"),
            ("gnoms", 64, "error: unknown command 'gnoms' (did you mean 'gnomes'?); type help for the list\n"),
            ("gnome Nobody Atall", 1, "error: no gnome named 'Nobody Atall'\n"),
            ("gnome 5000", 1, "error: no gnome with id 5000 (ids run 0…1336)\n"),
            ("export bogus", 1, "error: no view named 'bogus': views are artists, artworks, assets, filters, friends, gnomes, pages, search, sections, shows, status, show/ID, all\n"),
            // Each run of the demo appends 8 events (fetches, then 304s): this is the 6th run.
            ("at 999 shows", 1, "error: seq 999 is past the end of the log (the last is 48)\n"),
            ("shows --pgae 2", 64, "error: unknown option --pgae (did you mean '--page'?)\nusage: shows [--page N] [--genre G]\n"),
            ("gnomes --limt 3 tink", 64, "error: unknown option --limt (did you mean '--limit'?)\nusage: gnomes [--limit N] [--page N] [TEXT]\n"),
            ("filter set colour=red", 64, "error: no filter field 'colour'; type help filter\nusage: filter show | set FIELD=VALUE… | reset\n"),
            ("gnome \"unterminated", 64, "error: unterminated \" quote\n"),
            ("log tail --bogus", 64, "error: Unknown option '--bogus'\nusage: log tail [N] (or -n N)\n"),
        ]
        for (command, status, message) in cases {
            let result = try await runDemoScript([command, "sources"], store: store)
            #expect(result.status == status, "\(command)")
            #expect(result.stderr.hasSuffix(message), "\(command): \(result.stderr)")
            #expect(result.stdout == "", "\(command): the command after the failing one did not run")
        }
        // The demo fetched its 8 resources; every later run got 304s (8 each) and the
        // failing commands appended nothing.
        let log = try EventLog.open(at: store)
        let kinds = try log.events(from: 1).map(\.kind)
        #expect(kinds.count == 8 * cases.count)
        #expect(kinds.filter { $0 == .intent }.isEmpty)
    }

    @Test func keepGoingRunsPastFailures() async throws {
        let dir = TemporaryDirectory("repl-keep")
        let result = try await runDemoScript(["bogus", "gnome 0", "nope"], store: dir.sub("demo"), extraArguments: ["--keep-going"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("id           0\nname         Tobus Quickwhistle\n"))
        #expect(result.stderr.contains("error: unknown command 'bogus'"))
        #expect(result.stderr.contains("error: unknown command 'nope'"))
    }

    @Test func outputModesAndRedirection() async throws {
        let dir = TemporaryDirectory("repl-modes")
        let file = dir.sub("tinkers.ndjson")
        let result = try await runDemoScript([
            ".mode json", "path 0 237", ".mode ndjson", ".output \(file)", "gnomes tinker", ".output stdout",
            ".mode line", "artwork 4", ".mode table", ".timer on", "gnome 0",
        ], store: dir.sub("demo"))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == #"{"path":[0,654,605,967,855,237],"steps":5}"#)
        #expect(lines[1] == "id      4")
        #expect(lines[2] == "title   Priest and Boy")
        #expect(result.stdout.contains("hair         Pink\n"))
        #expect(result.stdout.range(of: #"time: [0-9]+\.[0-9]{3} s\n$"#, options: .regularExpression) != nil)
        let records = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        #expect(records.count == 20)
        #expect(try JSONValue.parse(String(records[0]))["name"] == .string("Tobus Quickwhistle"))
    }

    @Test func gnomesCanBeCutToAPage() async throws {
        let dir = TemporaryDirectory("repl-gnome-pages")
        let result = try await runDemoScript(["gnomes --limit 2 tinker", "gnomes --page 101 --limit 2 tinker", "gnomes --page 11 tinker"],
                                             store: dir.sub("demo"))
        #expect(result.status == 0, "\(result.stderr)")
        let footers = result.stdout.split(separator: "\n").filter { $0.contains(" gnomes") }
        // 202 tinkers: 101 pages of 2 (the last holds ids 1325 and 1330), 11 pages of 20 (the last holds the same two).
        #expect(footers == ["page 1 of 101 · 202 gnomes", "page 101 of 101 · 202 gnomes", "page 11 of 11 · 202 gnomes"])
        let ids = result.stdout.split(separator: "\n").compactMap { Int($0.prefix(while: { $0 != " " })) }
        #expect(ids == [0, 4, 1325, 1330, 1325, 1330])
    }

    /// Global options before the subcommand mean the same as the command's own after it.
    @Test func sharedOptionsMayStandBeforeTheSubcommand() async throws {
        let dir = TemporaryDirectory("repl-hoist")
        let store = dir.sub("demo")
        #expect(try await runDemoScript([], store: store).status == 0)
        let before = try await runFetchlog(["--store", store, "--offline", "--format", "json", "query", "gnome", "0"], environment: demoEnvironment)
        let after = try await runFetchlog(["query", "gnome", "0", "--store", store, "--offline", "--format", "json"], environment: demoEnvironment)
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdout == after.stdout && before.stderr == after.stderr)
        #expect(try JSONValue.parse(before.stdout)["name"] == .string("Tobus Quickwhistle"))
        // Global options, as in git (issue 25): before a command that does not use one it is
        // accepted; after it, refused by name.
        let accepted = try await runFetchlog(["--store", store, "--offline", "status"], environment: demoEnvironment)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stdout == (try await runFetchlog(["status", "--store", store], environment: demoEnvironment)).stdout)
        let refused = try await runFetchlog(["status", "--store", store, "--offline"], environment: demoEnvironment)
        #expect(refused.status == 64)
        #expect(refused.stderr.hasPrefix("fetchlog: 'fetchlog status' takes no option --offline;"))
    }

    @Test func queryRunsOneCommand() async throws {
        let dir = TemporaryDirectory("repl-query")
        let store = dir.sub("demo")
        #expect(try await runDemoScript([], store: store).status == 0)
        let result = try await runFetchlog(["--store", store, "query", "path", "0", "237", "--format", "json"], environment: demoEnvironment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "{\"path\":[0,654,605,967,855,237],\"steps\":5}\n")
        let one = try await runFetchlog(["--store", store, "query", "gnome 5000"], environment: demoEnvironment)
        #expect(one.status == 1)
        #expect(one.stderr == "error: no gnome with id 5000 (ids run 0…1336)\n")
    }
}

/// The examples `help` shows, in the order it shows them (commands, then dot commands).
enum CommandTableExamples {
    /// Every example `help` shows, in its order: the engine's commands and every registered
    /// source's (the table is built from the registry), then the dot-commands.
    static var all: [String] {
        (CommandTable.all.map(\.example) + CommandTable.dotCommands.map(\.2)).filter { $0 != "quit" }
    }
}

/// The README's shell transcript (the ```fetchlog-repl block) is real: its commands run on
/// a demo store and print exactly what the README shows.
@Suite struct ReadmeTranscriptTests {
    @Test func theReadmeTranscriptIsWhatTheShellPrints() async throws {
        let readme = try String(contentsOfFile: Repo.root + "/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "```fetchlog-repl\n"))
        let end = try #require(readme.range(of: "\n```", range: start.upperBound ..< readme.endIndex))
        let block = readme[start.upperBound ..< end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
        var commands: [String] = []
        var expected = ""
        for line in block {
            if line.hasPrefix("fetchlog> ") { commands.append(String(line.dropFirst(10))) } else { expected += line + "\n" }
        }
        #expect(commands.count == 8)
        let dir = TemporaryDirectory("readme")
        let result = try await runDemoScript(commands, store: dir.sub("demo"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == expected)
    }
}

/// The commands of a README shell transcript (the ```FENCE block: `fetchlog> ` lines,
/// manifests named by their path in this checkout whatever the working directory) and what
/// the shell prints for them (every other line).
func readmeTranscript(_ fence: String) throws -> (commands: [String], expected: String) {
    let readme = try String(contentsOfFile: Repo.root + "/README.md", encoding: .utf8)
    let start = try #require(readme.range(of: "```\(fence)\n"))
    let end = try #require(readme.range(of: "\n```", range: start.upperBound ..< readme.endIndex))
    var commands: [String] = []
    var expected = ""
    for line in readme[start.upperBound ..< end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("fetchlog> ") {
            commands.append(String(line.dropFirst(10)).replacingOccurrences(of: "docs/manifests/", with: Repo.root + "/docs/manifests/"))
        } else {
            expected += line + "\n"
        }
    }
    return (commands, expected)
}

/// The README's manifest transcript (the ```fetchlog-repl-manifests block): the catalog and
/// census manifests defined, fetched and asked in the demo's shell, every line as shown
/// (the upstream's port written PORT).
@Suite struct ReadmeManifestTranscriptTests {
    @Test func theReadmeManifestTranscriptIsWhatTheShellPrints() async throws {
        let (commands, expected) = try readmeTranscript("fetchlog-repl-manifests")
        #expect(commands.count == 8)
        let dir = TemporaryDirectory("readme-manifests")
        let result = try await runDemoScript(commands, store: dir.sub("demo"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(normalized(result.stdout) == expected)
    }
}

/// `asset save` writes exactly the bytes the upstream served.
@Suite struct AssetSaveTests {
    @Test func savedBytesEqualServedBytes() async throws {
        let dir = TemporaryDirectory("asset-save")
        let url = "https://static.tvmaze.com/uploads/images/medium_portrait/81/202627.jpg"
        let file = dir.sub("poster.jpg")
        let result = try await runDemoScript(["fetch asset \(url)", "asset save \(url) \(file)", "asset show \(url)"], store: dir.sub("demo"))
        #expect(result.status == 0, "\(result.stderr)")
        let saved = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(Array(saved.prefix(2)) == [0xFF, 0xD8])
        #expect(result.stdout.contains("wrote \(saved.count) bytes (sha256 \(SHA256.hex(saved))) to \(file)\n"))
        #expect(result.stdout.contains("sha256  \(SHA256.hex(saved))\n"))
        // The bytes the sample upstream serves for that URL, read here directly.
        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        let served = try await FetchHarness.servedBytes(base: base, path: SampleAssets.assetPath(for: url)!)
        await upstream.stop()
        #expect(bytesEqual(saved, served))
    }
}
