import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// A child process appends in a loop and is SIGKILLed at random moments, 20 times.
/// After each kill the store opens, verifies, and holds every event the child had
/// reported committed, intact.
@Suite struct CrashSafetyTests {
    @Test func killedWritersLoseNothingTheyReportedCommitted() async throws {
        let outcome = try await offPool { try Self.killLoop() }
        #expect(outcome.problems == [], "\(outcome.problems)")
        #expect(outcome.kills == 20)
        #expect(outcome.reportedTotal > 20, "the child committed too little to prove anything")
    }

    /// Runs outside the test's task (on its own thread); problems come back as text.
    private static func killLoop() throws -> (problems: [String], kills: Int, reportedTotal: UInt64) {
        let dir = TemporaryDirectory("crash")
        var random = TestPattern.Generator(seed: 20_261_122)
        var reportedTotal: UInt64 = 0
        var problems: [String] = []
        var kills = 0
        for round in 1 ... 20 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Repo.executable)
            // A small initial map, so kills also land during map growth.
            process.arguments = ["dev", "append-loop", "--store", dir.path, "--batch", String(1 + round % 5), "--map-size", "262144"]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            try pipe.fileHandleForWriting.close()
            let delay = 150 + Int(random.next() % 400)
            usleep(useconds_t(delay * 1000))
            kill(process.processIdentifier, SIGKILL)
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal { kills += 1 }

            // Only whole lines count: the kill may cut the last one.
            let lines = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            let reported = lines.compactMap { line -> UInt64? in
                let parts = line.split(separator: " ")
                return parts.count == 3 && parts[0] == "committed" ? UInt64(parts[2]) : nil
            }.max() ?? reportedTotal
            if reported < reportedTotal { problems.append("round \(round): reports went backwards") }
            reportedTotal = reported

            let log = try EventLog.open(at: dir.path)
            let report = try log.verify()
            if let first = report.problems.first { problems.append("round \(round): verify: \(first)") }
            let last = try log.lastSeq()
            if last < reported { problems.append("round \(round): reported \(reported), log ends at \(last)") }
            try log.scan { event in
                var expected = TestPattern.event(seq: event.seq)
                expected.seq = event.seq
                if event != expected { problems.append("round \(round): event \(event.seq) differs") }
                return true
            }
            log.close()
        }
        return (problems, kills, reportedTotal)
    }
}
