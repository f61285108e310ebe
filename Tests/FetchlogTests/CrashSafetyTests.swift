import Foundation
import Testing
@testable import Fetchlog

/// A child process appends in a loop and is SIGKILLed at random moments, 20 times.
/// After each kill the store opens, verifies, and holds every event the child had
/// reported committed, intact.
@Suite struct CrashSafetyTests {
    @Test func killedWritersLoseNothingTheyReportedCommitted() throws {
        let dir = TemporaryDirectory("crash")
        var random = TestPattern.Generator(seed: 20_261_122)
        var reportedTotal: UInt64 = 0
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
            #expect(process.terminationReason == .uncaughtSignal)

            // Only whole lines count: the kill may cut the last one.
            let lines = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            let reported = lines.compactMap { line -> UInt64? in
                let parts = line.split(separator: " ")
                return parts.count == 3 && parts[0] == "committed" ? UInt64(parts[2]) : nil
            }.max() ?? reportedTotal
            #expect(reported >= reportedTotal)
            reportedTotal = reported

            let log = try EventLog.open(at: dir.path)
            let report = try log.verify()
            #expect(report.isHealthy, "round \(round): \(report.problems.first.map(String.init(describing:)) ?? "")")
            let last = try log.lastSeq()
            #expect(last >= reported, "round \(round): reported \(reported), log ends at \(last)")
            var damaged = 0
            try log.scan { event in
                var expected = TestPattern.event(seq: event.seq)
                expected.seq = event.seq
                if event != expected { damaged += 1 }
                return true
            }
            #expect(damaged == 0)
            log.close()
        }
        #expect(reportedTotal > 20, "the child committed too little to prove anything")
    }
}
