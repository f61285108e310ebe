import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Opening a store never races another process and never surprises (issue 13, items 3
/// and 8): concurrent first opens, readers across map growth, a dangling link, a file in
/// the way, modes tightened and said so, a full disk named as such.
@Suite(.serialized) struct StoreOpeningTests {
    /// Runs `count` copies of the binary at once and returns their results.
    func together(_ count: Int, _ arguments: [String]) async throws -> [CommandResult] {
        try await withThrowingTaskGroup(of: CommandResult.self) { group in
            for _ in 0 ..< count { group.addTask { try await runFetchlog(arguments) } }
            var results: [CommandResult] = []
            for try await result in group { results.append(result) }
            return results
        }
    }

    @Test func eightProcessesOpeningANewStoreAreNeverRefused() async throws {
        let dir = TemporaryDirectory("open-race")
        var refusals: [String] = []
        var storeIDs: Set<String> = []
        for trial in 0 ..< 50 {
            let store = dir.sub("store-\(trial)")
            for result in try await together(8, ["--store", store, "log", "stats", "--format", "json"]) {
                if result.status != 0 { refusals.append("trial \(trial): \(result.status) \(result.stderr)") }
                else if let id = try? JSONValue.parse(result.stdout)["storeId"]?.stringValue { storeIDs.insert(id) }
            }
        }
        #expect(refusals.isEmpty, "\(refusals.prefix(5))")
        // Each store was created once: the 8 openers of a trial agree on its id.
        #expect(storeIDs.count == 50)
    }

    @Test func readersAreNeverRefusedWhileAnotherProcessGrowsTheMap() async throws {
        let dir = TemporaryDirectory("open-growth")
        let store = dir.sub("store")
        // A writer in this process starting from a 256 KiB map: it grows nine times or more.
        var options = EventLog.Options()
        options.initialMapSize = 256 << 10
        let log = try EventLog.open(at: store, options: options)
        let finished = LockedBox<Bool>(false)
        // On a thread of its own: a blocking writer on the cooperative pool would stall every
        // other test running beside this one.
        let writer = Task { try await offPool {
            defer { finished.set(true) }
            for batch in 0 ..< 200 {
                var events: [Event] = []
                for i in 0 ..< 10 {
                    // A different body each time: bodies are stored once, and the map must grow.
                    var body = [UInt8](repeating: UInt8(ascii: "x"), count: 48 << 10)
                    withUnsafeBytes(of: UInt32(batch * 10 + i).bigEndian) { body.replaceSubrange(0 ..< 4, with: $0) }
                    events.append(Event(recordedAt: fixedTime, kind: .fetched, source: "tvmaze", label: "/shows/\(batch * 10 + i)",
                                        request: Event.Request(url: "http://127.0.0.1:1/tvmaze/shows/\(i)"),
                                        response: Event.Response(status: 200, headers: []), body: body))
                }
                _ = try log.appendBlocking(contentsOf: events)
            }
        } }
        var runs = 0
        var refusals: [String] = []
        while true {
            let done = finished.get()
            for result in try await together(4, ["--store", store, "log", "stats", "--format", "json"]) {
                runs += 1
                if result.status != 0 { refusals.append(result.stderr) }
            }
            if done { break }
        }
        try await writer.value
        #expect(refusals.isEmpty, "\(refusals.count) of \(runs) refused: \(refusals.prefix(3))")
        #expect(runs >= 8)
        #expect(log.environmentInfo.mapSize >= 64 << 20)
        #expect(try log.lastSeq() == 2000)
    }

    @Test func aPathThatCannotBeAStoreIsOneLineAndExitThree() async throws {
        let dir = TemporaryDirectory("open-paths")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir.sub("link"), withDestinationPath: dir.sub("nowhere"))
        let dangling = try await runFetchlog(["--store", dir.sub("link"), "status"])
        #expect(dangling.status == 3)
        #expect(dangling.stderr == "fetchlog: \(dir.sub("link")) is a symbolic link to \(dir.sub("nowhere")), which does not exist. Nothing was changed. Create the link's target directory, or point --store at another directory.\n")
        #expect(!FileManager.default.fileExists(atPath: dir.sub("nowhere")))
        try "x".write(toFile: dir.sub("file"), atomically: false, encoding: .utf8)
        let underFile = try await runFetchlog(["--store", dir.sub("file/store"), "status"])
        #expect(underFile.status == 3)
        #expect(underFile.stderr == "fetchlog: \(dir.sub("file/store")) cannot be used as a store: \(dir.sub("file")) is a file, not a directory. Nothing was changed. Choose a --store path you can create and write.\n")
    }

    /// A directory the user may not enter: one line, the cause, exit 3 (run as `nobody`,
    /// since root passes every permission check).
    @Test func aDirectoryWithoutPermissionIsOneLineAndExitThree() async throws {
        let dir = TemporaryDirectory("open-denied")
        try FileManager.default.createDirectory(atPath: dir.sub("closed"), withIntermediateDirectories: true)
        chmod(dir.path, 0o755)
        chmod(dir.sub("closed"), 0o700)
        // A copy of the binary nobody can run, wherever the checkout is.
        let binary = dir.sub("fetchlog")
        try FileManager.default.copyItem(atPath: Repo.executable, toPath: binary)
        chmod(binary, 0o755)
        let result = try await offPool {
            try runProcessBlocking("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", binary,
                                                        "--store", dir.sub("closed/store"), "status"], environment: ["HOME": dir.path])
        }
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr == "fetchlog: \(dir.sub("closed/store")) cannot be used as a store: permission denied. Nothing was changed. Choose a --store path you can create and write.\n")
        #expect(!FileManager.default.fileExists(atPath: dir.sub("closed/store")))
    }

    @Test func aStoreIsPrivateAndTighteningIsSaid() async throws {
        let dir = TemporaryDirectory("open-modes")
        let fresh = dir.sub("fresh/nested")
        #expect(try await runFetchlog(["--store", fresh, "log", "stats"]).status == 0)
        func mode(_ path: String) -> UInt32 {
            var info = stat()
            return stat(path, &info) == 0 ? UInt32(info.st_mode & 0o777) : 0
        }
        #expect([mode(fresh), mode(fresh + "/data.mdb"), mode(fresh + "/lock.mdb")] == [UInt32(0o700), 0o600, 0o600])
        // A store in a directory others may read, with files an older build made 0644.
        chmod(fresh, 0o755)
        chmod(fresh + "/data.mdb", 0o644)
        let opened = try await runFetchlog(["--store", fresh, "log", "stats", "--format", "json"])
        #expect(opened.status == 0)
        #expect(opened.stderr == "fetchlog: note: made \(fresh) private (mode 755 → 700)\nfetchlog: note: made \(fresh)/data.mdb private (mode 644 → 600)\n")
        #expect([mode(fresh), mode(fresh + "/data.mdb")] == [UInt32(0o700), 0o600])
        #expect(try await runFetchlog(["--store", fresh, "log", "stats"]).stderr == "")
    }

    /// A full disk (a 1 MiB tmpfs in a private mount namespace) is named as such, with
    /// what was kept and what to free; the store still opens and verifies afterwards.
    @Test func aFullDiskIsSaidToBeFull() async throws {
        let script = """
        set -e
        mount -t tmpfs -o size=1m tmpfs "$1"
        "$2" --store "$1/store" log import "$3" && exit 99 || status=$?
        echo "import-status=$status"
        "$2" --store "$1/store" log verify
        """
        let dir = TemporaryDirectory("open-full")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let result = try await offPool {
            try runProcessBlocking("/usr/bin/unshare", ["-m", "sh", "-c", script, "sh", dir.path, Repo.executable, Repo.sampleLog])
        }
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.hasPrefix("import-status=1\nok: the log is empty\n"), "\(result.stdout)")
        #expect(result.stderr.contains("fetchlog: the disk holding \(dir.path)/store is full ("), "\(result.stderr)")
        #expect(result.stderr.contains("the write of 13 events (1.5 MiB) was not committed; every event committed before it is kept. Free at least 3.1 MiB on that disk"), "\(result.stderr)")
    }
}
