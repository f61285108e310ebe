import ArgumentParser
import FetchlogCore
import Foundation
import NIOHTTP1
import Testing
@testable import fetchlog

/// Issue 44, item 3: no number crashes the program. Every option of every command is
/// walked (from ArgumentParser's own description of the command tree, so an option added
/// later is walked too): one that takes a number refuses `inf`, `nan`, `-1`, `1e19` and a
/// 25-digit number with exit 64 and a message naming it and its range (before, `sql
/// --timeout inf` died of SIGILL, exit 132); one that takes text is listed as such, and an
/// option in neither list fails the test. The shell's numeric words and the HTTP API's
/// numeric parameters refuse them alike (64; 400).
@Suite struct NumericOptionsTests {
    /// What every numeric option is tried with: none is a number it takes.
    static let badValues = ["inf", "nan", "-1", "1e19", "9999999999999999999999999"]

    /// The numeric options, by name (the same range in every command that takes it) or by
    /// "COMMAND PATH --name", with what their refusal says.
    static let numeric: [String: String] = [
        "--connect-timeout": "--connect-timeout takes seconds from 0.001 to 86400",
        "--read-timeout": "--read-timeout takes seconds from 0.001 to 86400",
        "--retry-after-cap": "--retry-after-cap takes seconds from 0.001 to 86400",
        "--deadline": "--deadline takes seconds from 0.001 to 86400",
        "--retries": "--retries takes a whole number from 0 to 100",
        "--min-rate": "--min-rate takes bytes per second from 0 to 1073741824",
        "--max-body": "--max-body takes bytes from 1 to 4294967296",
        "--port": "--port takes a whole number from 0 to 65535",
        "sql --timeout": "--timeout takes seconds from 0.001 to 86400",
        "sql --at": "--at takes a seq, a whole number from 0 to 18446744073709551615",
        "export --at": "--at takes a seq, a whole number from 0 to 18446744073709551615",
        "replay --to": "--to takes a seq, a whole number from 0 to 18446744073709551615",
        "log export --from": "--from takes a seq, a whole number from 0 to 18446744073709551615",
        "log export --since": "--since takes a seq, a whole number from 0 to 18446744073709551615",
        "log compact --before": "--before takes a seq, a whole number from 0 to 18446744073709551615",
        "log compact --older-than": "--older-than takes a duration from 0s to 36500d",
        "log tail --n": "-n takes a whole number from 0 to 1000000000",
        "fetch --limit": "--limit takes a whole number from 1 to 100",
        "fetch --first": "--first takes a whole number from 0 to 1000000",
        "fetch --concurrency": "--concurrency takes a whole number from 1 to 64",
        "fetch --max-pages": "--max-pages takes a whole number from 1 to 1000000",
        "fetch --pages": "(pages 0 to 10000)",
        "fetch --retain": "--retain takes a duration from 0s to 36500d",
        "items --limit": "--limit takes a whole number from 1 to 1000000",
        "items --page": "--page takes a whole number from 1 to 1000000000",
        "sync --per-origin": "--per-origin takes a whole number from 1 to 64",
        "replicate init --replicas": "--replicas takes a whole number from 1 to 5",
        "upstream serve --census-copies": "--census-copies takes a whole number from 1 to 10000",
        "dev append-loop --batch": "--batch takes a whole number from 1 to 100000",
        "dev append-loop --map-size": "--map-size takes bytes from 4096 to 1099511627776",
        // An answer's byte cap (issue 44 item 1): 1 KiB to 4 GiB.
        "serve --max-answer": "--max-answer takes bytes from 1024 to 4294967296",
    ]

    /// The options that take text (names, paths, URLs, modes), by name or "COMMAND PATH --name".
    static let text: Set<String> = [
        "--store", "--format", "--upstream", "--redact-param", "--out", "--nats", "--stream", "--domain",
        "fetch --with", "items --where", "serve --bind", "serve --token", "upstream serve --host", "upstream serve --fault",
        "dev sample-log --fixtures", "item add --json",
    ]

    /// Words a command needs besides the option, so that the option is what is refused.
    static let positionals: [String: [String]] = [
        "fetch": ["brastlewark", "census"], "items": ["catalog", "pages"], "sql": ["SELECT 1"], "export": ["gnomes"],
    ]

    // MARK: ArgumentParser's description of the command tree (`--experimental-dump-help`)

    struct Dump: Decodable { let command: Command }
    struct Command: Decodable {
        let commandName: String
        let arguments: [Argument]?
        let subcommands: [Command]?
    }
    struct Argument: Decodable {
        let kind: String
        let names: [Name]?
        let preferredName: Name?
    }
    struct Name: Decodable {
        let kind: String
        let name: String
        var spelled: String { (kind == "short" ? "-" : "--") + name }
    }

    /// Every option that takes a value: the command's words (without `fetchlog`) and the
    /// option's name as written (its long name when it has one).
    static func optionsWithValues() async throws -> [(path: [String], name: String)] {
        let result = try await runFetchlog(["--experimental-dump-help"])
        try #require(result.status == 0, "\(result.stderr)")
        let dump = try JSONDecoder().decode(Dump.self, from: Data(result.stdout.utf8))
        var found: [(path: [String], name: String)] = []
        func walk(_ command: Command, _ path: [String]) {
            for argument in command.arguments ?? [] where argument.kind == "option" {
                let names = argument.names ?? []
                guard let name = names.first(where: { $0.kind != "short" }) ?? names.first ?? argument.preferredName else { continue }
                found.append((path, name.spelled))
            }
            for sub in command.subcommands ?? [] where sub.commandName != "help" { walk(sub, path + [sub.commandName]) }
        }
        walk(dump.command, [])
        return found
    }

    /// The table's entry for `name` in the command at `path`.
    static func lookUp<T>(_ table: [String: T], _ path: [String], _ name: String) -> T? {
        table[(path + [name]).joined(separator: " ")] ?? table[name]
    }

    @Test func everyOptionIsClassifiedAndEveryNumericOneRefusesWhatItCannotTake() async throws {
        let options = try await Self.optionsWithValues()
        // The walk found the tree (the commands this test was written against, at least).
        let paths = Set(options.map { $0.path.joined(separator: " ") })
        for expected in ["sql", "fetch", "serve", "sync", "log tail", "log compact", "items", "repl", "demo", "upstream serve", "replicate init"] {
            #expect(paths.contains(expected), "no options found for \(expected): \(paths.sorted())")
        }
        var unclassified: [String] = []
        var tried: [(path: [String], name: String, expected: String)] = []
        for (path, name) in options {
            let key = (path + [name]).joined(separator: " ")
            if let expected = Self.lookUp(Self.numeric, path, name) {
                tried.append((path, name, expected))
            } else if Self.text.contains(key) || Self.text.contains(name) {
                continue
            } else {
                unclassified.append(key)
            }
        }
        #expect(unclassified.isEmpty, "options neither numeric nor text (classify them in NumericOptionsTests): \(unclassified)")
        #expect(tried.count >= 60, "\(tried.count) numeric options tried")
        let dir = TemporaryDirectory("numeric-options")
        let store = dir.sub("store")
        // Each option with each value, a few processes at a time.
        let cases = tried.flatMap { option in Self.badValues.map { (option.path, option.name, option.expected, $0) } }
        let failures = try await withThrowingTaskGroup(of: String?.self) { group in
            var failures: [String] = []
            var next = 0
            func add() {
                guard next < cases.count else { return }
                let (path, name, expected, value) = cases[next]
                next += 1
                let words = ["--store", store] + path + [name + "=" + value] + (Self.positionals[path.joined(separator: " ")] ?? [])
                group.addTask {
                    let result = try await runFetchlog(words)
                    let said = result.stderr
                    guard !result.signaled, result.status == 64, said.contains(name), said.contains(expected) else {
                        return "\(words.dropFirst(2).joined(separator: " ")): status \(result.status)\(result.signaled ? " (signal)" : ""): \(said.prefix(300))"
                    }
                    return nil
                }
            }
            for _ in 0 ..< 6 { add() }
            while let failure = try await group.next() {
                if let failure { failures.append(failure) }
                add()
            }
            return failures
        }
        #expect(failures.isEmpty, "\(failures.count) of \(cases.count) refused otherwise:\n\(failures.joined(separator: "\n"))")
        // Nothing was opened or created for a refused number.
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    /// The refusal as it reads, whole, for the numbers that crashed (exit 132 before).
    @Test func theNumbersThatCrashedAreUsageErrors() async throws {
        let dir = TemporaryDirectory("numeric-exact")
        let store = dir.sub("store")
        let timeout = try await runFetchlog(["--store", store, "sql", "--timeout", "inf", "SELECT 1"])
        #expect(timeout.status == 64 && !timeout.signaled)
        #expect(timeout.stderr.hasPrefix("Error: The value 'inf' is invalid for '--timeout <seconds>': --timeout takes seconds from 0.001 to 86400\n"),
                "\(timeout.stderr)")
        // A global option before the command, and the value as its own word.
        for option in ["--connect-timeout", "--read-timeout", "--retry-after-cap", "--deadline"] {
            let result = try await runFetchlog(["--store", store, option, "1e19", "fetch", "brastlewark", "census"])
            #expect(result.status == 64 && !result.signaled, "\(option): \(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: The value '1e19' is invalid for '\(option) <seconds>': \(option) takes seconds from 0.001 to 86400\n"),
                    "\(result.stderr)")
        }
        // A duration past the range (its milliseconds past Int64: a trap when subtracted).
        let compact = try await runFetchlog(["--store", store, "log", "compact", "--older-than", "9223372036854775s"])
        #expect(compact.status == 64)
        #expect(compact.stderr.hasPrefix("Error: --older-than takes a duration from 0s to 36500d, a number and a unit, s m h d or w (30d, 12h), not '9223372036854775s'\n"),
                "\(compact.stderr)")
        // Numbers in range still work: the top of --timeout (its lowest, 1 ms, may stop any query).
        let edge = try await runFetchlog(["--store", store, "sql", "--timeout", "86400", "--format", "csv", "SELECT 1 AS one"])
        #expect(edge.status == 0, "\(edge.stderr)")
        #expect(edge.stdout == "one\r\n1\r\n")
        let below = try await runFetchlog(["--store", store, "sql", "--timeout=0.0009", "SELECT 1"])
        #expect(below.status == 64 && below.stderr.contains("--timeout takes seconds from 0.001 to 86400"))
        // A negative as its own word is no value to ArgumentParser (it reads as an option):
        // still a usage error, and the option's help line names the range.
        let negative = try await runFetchlog(["--store", store, "sql", "--timeout", "-1", "SELECT 1"])
        #expect(negative.status == 64 && !negative.signaled)
        #expect(negative.stderr.hasPrefix("Error: Missing value for '--timeout <seconds>'\nHelp:  --timeout <seconds>  Stop a query after this many seconds, 0.001 to 86400 (10).\n"),
                "\(negative.stderr)")
        // Numeric positionals too: log tail COUNT, log show SEQ, pending retry ID.
        for (words, said) in [(["log", "tail", "inf"], "COUNT takes a whole number from 0 to 1000000000"),
                              (["log", "show", "1e19"], "SEQ takes a seq, a whole number from 1 to 18446744073709551615"),
                              (["log", "show", "0"], "SEQ takes a seq, a whole number from 1 to 18446744073709551615"),
                              (["pending", "retry", "nan"], "ID takes a seq, a whole number from 1 to 18446744073709551615"),
                              (["pending", "discard", "99999999999999999999"], "ID takes a seq, a whole number from 1 to 18446744073709551615")] {
            let result = try await runFetchlog(["--store", store] + words)
            #expect(result.status == 64 && !result.signaled, "\(words): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(said), "\(words): \(result.stderr)")
        }
    }

    /// A bad value found after parsing is a usage error at every door that asks `ExitStatus.of`.
    @Test func aValidationErrorIsAUsageError() throws {
        let refused = ExitStatus.of(ValidationError("--timeout takes seconds from 0.001 to 86400"))
        #expect(refused.status == 64)
        #expect(refused.message == "--timeout takes seconds from 0.001 to 86400")
        // The range check itself: the edges in, the first values past them out.
        #expect(try Bounded.checkedSeconds("0.001", "--timeout") == 0.001)
        #expect(try Bounded.checkedSeconds("86400", "--timeout") == 86_400)
        #expect(throws: Bounded.Refusal.self) { try Bounded.checkedSeconds("86400.001", "--timeout") }
        #expect(try Bounded.checkedWhole("65535", "--port", Bounded.portRange) == 65_535)
        #expect(throws: Bounded.Refusal.self) { try Bounded.checkedWhole("65536", "--port", Bounded.portRange) }
        #expect(Bounded.duration(seconds: 86_400) == .seconds(86_400))
        #expect(Bounded.duration(seconds: .infinity) == .seconds(86_400))
        #expect(Bounded.duration(seconds: .nan) == .milliseconds(1))
    }

    /// The shell parses its commands with the same parsers, and its own numeric words (at
    /// SEQ, diff SEQ SEQ) say their range: a script stops with 64.
    @Test func theShellRefusesTheSameNumbers() async throws {
        let dir = TemporaryDirectory("numeric-shell")
        let store = dir.sub("store")
        #expect(try await runFetchlog(["--store", store, "log", "import", Repo.sampleLog]).status == 0)
        for (line, said) in [("sql --timeout inf SELECT 1", "--timeout takes seconds from 0.001 to 86400"),
                             ("log tail -n 1e19", "-n takes a whole number from 0 to 1000000000"),
                             ("export gnomes --at=-1", "--at takes a seq, a whole number from 0 to 18446744073709551615"),
                             ("at inf status", "at takes a seq, a whole number from 0 to 18446744073709551615 (log stats shows the last), not 'inf'"),
                             ("at -1 status", "at takes a seq, a whole number from 0 to 18446744073709551615 (log stats shows the last), not '-1'"),
                             ("diff nan 2 gnomes", "diff takes a seq, a whole number from 0 to 18446744073709551615")] {
            let result = try await runFetchlog(["--store", store], stdin: line + "\n")
            #expect(result.status == 64 && !result.signaled, "\(line): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(said), "\(line): \(result.stderr)")
        }
        // `fetchlog query "…"` is the shell's door too.
        let query = try await runFetchlog(["--store", store, "query", "sql --timeout nan SELECT 1"])
        #expect(query.status == 64 && query.stderr.contains("--timeout takes seconds from 0.001 to 86400"), "\(query.stderr)")
        // In range, the shell's at SEQ still answers.
        let pinned = try await runFetchlog(["--store", store, "--format", "csv"], stdin: "at 13 sql SELECT count(*) AS n FROM events\n")
        #expect(pinned.status == 0, "\(pinned.stderr)")
        #expect(pinned.stdout == "n\r\n13\r\n")
    }

    /// Every numeric parameter of the HTTP API (as its OpenAPI document lists them: query,
    /// path and header) refuses the same values with 400, naming the parameter and its range.
    @Test func theAPIsNumericParametersAnswer400() async throws {
        let dir = TemporaryDirectory("numeric-serve")
        let store = dir.sub("store")
        #expect(try await runFetchlog(["--store", store, "log", "import", Repo.sampleLog]).status == 0)
        let server = try await ServeProcess(store: store, readsActionToken: true)
        let document = try JSONValue.parse(try await server.get("/api/openapi.json").body)
        // Values for the parameters a route needs besides the one tried.
        let fill = ["q": "SELECT 1", "view": "gnomes", "from": "0", "to": "13", "name": "gnomes", "source": "catalog", "resource": "pages", "key": "1"]
        var tried: [String] = []
        func members(_ value: JSONValue?) -> [(String, JSONValue)] {
            if case .object(let members)? = value { return members }
            return []
        }
        for (path, item) in members(document["paths"]) {
            for (method, operation) in members(item) {
                let parameters = operation["parameters"]?.arrayValue ?? []
                for parameter in parameters where parameter["schema"]?["type"]?.stringValue == "integer" {
                    let name = parameter["name"]?.stringValue ?? ""
                    let location = parameter["in"]?.stringValue ?? ""
                    for value in Self.badValues {
                        var target = path
                        var query: [String] = []
                        var headers: [(String, String)] = [("Authorization", "Bearer \(server.actionToken)")]
                        for other in parameters {
                            let otherName = other["name"]?.stringValue ?? ""
                            let given = otherName == name ? value : fill[otherName]
                            guard let given else { continue }
                            let required = other["required"]?.boolValue ?? false
                            switch other["in"]?.stringValue {
                            case "path": target = target.replacingOccurrences(of: "{\(otherName)}", with: given)
                            case "query" where otherName == name || required: query.append("\(otherName)=\(given.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? given)")
                            case "header" where otherName == name: headers.append((otherName, given))
                            default: break
                            }
                        }
                        let url = target + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
                        let answer = try await server.get(url, method: HTTPMethod(rawValue: method.uppercased()),
                                                          headers: headers + (method == "post" ? [("Content-Type", "application/json")] : []),
                                                          body: method == "post" ? "{}" : nil)
                        let minimum = parameter["schema"]?["minimum"].map { $0.canonicalText() } ?? "?"
                        #expect(answer.status == 400, "\(method) \(url) (\(location) \(name)): \(answer.status) \(answer.body.prefix(200))")
                        #expect(answer.body.contains(name) && answer.body.contains("from \(minimum)"),
                                "\(method) \(url) (\(location) \(name)): \(answer.body.prefix(300))")
                        tried.append("\(method) \(path) \(name)")
                    }
                }
            }
        }
        try await server.stop()
        // The API's numeric parameters, as the document lists them today (one a line is 5 tries).
        #expect(Set(tried).count >= 12, "\(Set(tried).sorted())")
        for expected in ["get /api/sql timeout", "get /api/sql offset", "get /api/sql limit", "get /api/sql at", "get /api/items/{source}/{resource} page",
                         "get /api/events/{seq} seq", "get /api/stream Last-Event-ID", "post /api/pending/{id}/retry id"] {
            #expect(tried.contains(expected), "\(expected) was not tried: \(Set(tried).sorted())")
        }
    }
}
