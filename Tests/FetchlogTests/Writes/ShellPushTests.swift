import FetchlogCore
import Foundation
import Testing

/// Issue 26, when it sends: the shell pushes by itself once the upstream answers again (a
/// background fetch it started came back), never while it does not answer.
@Suite struct ShellPushTests {
    @Test func theShellSendsTheWaitingWritesOnceTheUpstreamAnswersAgain() async throws {
        let rig = try await ManifestCLIRig.start("writes-shell-push", manifest: OfflineWritesTests.manifest)
        #expect(try await rig.fetch(["notes"]).status == 0)
        let made = try await runFetchlog(["--store", rig.store, "item", "set", "catalog", "notes", "1", "done=true", "--offline", "--format", "json"])
        #expect(made.status == 0, "\(made.stderr)")
        let id = try #require(try JSONValue.parse(made.stdout)["mutation"]?.intValue)
        func pending() async throws -> [String] {
            let listed = try JSONValue.parse(try await runFetchlog(["--store", rig.store, "pending", "--format", "json"]).stdout)
            return (listed.arrayValue ?? []).map { "\($0["id"]?.intValue ?? 0) \($0["state"]?.stringValue ?? "") \($0["attempts"]?.intValue ?? -1)" }
        }

        // The upstream does not answer: the gnomes the shell fetches fail, and nothing is sent.
        let gone = try await CatalogUpstream.start()
        let down = gone.base
        await gone.stop()
        let offline = try await runFetchlog(["repl", "--store", rig.store, "--upstream", down, "--retries", "0"], stdin: "gnome 0\n")
        #expect(offline.status == 1, "\(offline.stderr)")
        #expect(try await pending() == ["\(id) queued 0"])

        // It answers again: the gnomes' fetch comes back, and the change goes with no push
        // typed, before the script's next line.
        let online = try await runFetchlog(["repl", "--store", rig.store, "--upstream", rig.upstream.base], stdin: "gnome 0\npending\n")
        #expect(online.status == 0, "\(online.stderr)")
        #expect(online.stdout.hasSuffix("nothing is pending\n"), "\(online.stdout)")
        #expect(await rig.upstream.server.appliedWrites.map { "\($0.method) \($0.path) \($0.status)" } == ["PATCH /catalog/notes/1 200"])
        #expect(await rig.upstream.server.notes[1] == #"{"id":1,"title":"buy milk","done":true,"priority":2,"version":2}"#)
        #expect(try await pending() == [])

        // --offline never sends, though the shell fetches nothing and reads what is held.
        let again = try await runFetchlog(["--store", rig.store, "item", "set", "catalog", "notes", "3", "done=true", "--offline"])
        #expect(again.status == 0, "\(again.stderr)")
        let quiet = try await runFetchlog(["repl", "--store", rig.store, "--upstream", rig.upstream.base, "--offline"], stdin: "gnome 0\n")
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(await rig.upstream.server.appliedWrites.count == 1)
        await rig.stop()
    }
}
