import Foundation
import Testing
@testable import fetchlog
@testable import FetchlogCore
@testable import FetchlogSQL

/// Issue 36: one mapping from errors to exit statuses (`ExitStatus.of`). The same error
/// exits with the same status whichever door it came through: a one-shot command, the
/// shell's line run by `query`, `log`, `sql`.
@Suite struct ExitStatusTests {
    @Test func eachErrorHasOneStatus() {
        #expect(ExitStatus.of(StoreError.notLMDB(path: "/x", reason: "not LMDB")).status == ExitStatus.refused)
        #expect(ExitStatus.of(MaintenanceError.cancelled("stopped")).status == ExitStatus.interrupted)
        #expect(ExitStatus.of(MaintenanceError.cancelled("stopped")).message == "stopped")
        #expect(ExitStatus.of(SQLError(.refused, "no")).status == ExitStatus.usage)
        #expect(ExitStatus.of(SQLError(.interrupted, "stopped")).status == ExitStatus.interrupted)
        #expect(ExitStatus.of(SQLError(.invalid, "bad")).status == ExitStatus.failure)
        #expect(ExitStatus.of(CommandError(message: "kept", status: 7)).status == 7)
        #expect(ExitStatus.of(CocoaError(.fileNoSuchFile)).status == ExitStatus.failure)
    }

    /// A path that cannot be a store is refused (3) by every door, `query`'s shell line
    /// included (it said 1 there before: the shell's door had a mapping of its own).
    @Test func aPathThatCannotBeAStoreExitsThreeThroughEveryDoor() async throws {
        let dir = TemporaryDirectory("exit-doors")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        try "x".write(toFile: dir.sub("file"), atomically: false, encoding: .utf8)
        let store = dir.sub("file/store")
        for arguments in [["status"], ["query", "status"], ["log", "stats"], ["sql", "SELECT 1"]] {
            let result = try await runFetchlog(["--store", store] + arguments)
            #expect(result.status == ExitStatus.refused, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("file/store"), "\(arguments): \(result.stderr)")
            #expect(result.stdout == "", "\(arguments)")
        }
    }
}
