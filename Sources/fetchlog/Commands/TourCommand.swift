import ArgumentParser
import Fetchlog
import Foundation

/// A short tour on a store built from the shipped sample log.
struct TourCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tour",
        abstract: "Import the shipped sample log into a store and show what the log commands do.")
    @OptionGroup var storeOptions: StoreOptions

    func run() throws {
        try reportingErrors {
            let path = storeOptions.store ?? NSTemporaryDirectory() + "fetchlog-tour-" + String(UUID().uuidString.prefix(8))
            let log = try EventLog.open(at: path)
            let out = OutputBuffer()
            out.line("Fetchlog tour — store \(path)")
            if try log.lastSeq() == 0 {
                guard let sample = Bundle.module.path(forResource: "sample-log", ofType: "ndjson") else {
                    printError("the sample log is missing from this build")
                    throw ExitCode(ExitStatus.failure)
                }
                let count = try log.importNDJSON(path: sample)
                out.line("imported \(count) recorded events (five sources: a retry, a 304, an end of list, a failure, an intent)")
            }
            out.line("\n$ fetchlog log stats")
            LogRendering.stats(try log.statistics(), log: log, into: out)
            out.line("\n$ fetchlog log tail -n 5")
            for event in try log.tail(5) { out.line(Format.tailLine(event)) }
            out.line("\n$ fetchlog log show 11")
            if let event = try log.event(at: 11) { LogRendering.show(event, into: out) }
            out.line("\n$ fetchlog log verify")
            let report = try log.verify()
            out.line(report.isHealthy ? "ok: \(report.checked) events, seq 1…\(report.lastSeq), every checksum valid"
                                      : "damaged: first bad seq \(report.problems[0])")
            out.line("\n$ fetchlog log export --out F; fetchlog --store COPY log import F; fetchlog --store COPY log export")
            var first = ""
            try log.exportNDJSON { first += $0 }
            let copyPath = path + "-copy"
            try? FileManager.default.removeItem(atPath: copyPath)
            let file = NSTemporaryDirectory() + "fetchlog-tour-\(getpid()).ndjson"
            try first.write(toFile: file, atomically: true, encoding: .utf8)
            let copy = try EventLog.open(at: copyPath)
            try copy.importNDJSON(path: file)
            var second = ""
            try copy.exportNDJSON { second += $0 }
            try? FileManager.default.removeItem(atPath: file)
            out.line("exported \(first.utf8.count) bytes; re-imported and exported again: " + (first == second ? "byte-identical" : "DIFFERENT"))
            out.line("\nTry: fetchlog --store \(path) log show 1")
            out.flush()
        }
    }
}
