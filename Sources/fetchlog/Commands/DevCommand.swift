import ArgumentParser
import FetchlogCore
import FetchlogSources
import Foundation

/// Commands for tests and maintainers; hidden from help.
struct DevCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev",
        abstract: "Maintainer tools (crash tests, sample data).",
        shouldDisplay: false,
        subcommands: [AppendLoop.self, SampleLog.self]
    )

    /// Appends forever, printing `committed FIRST LAST` after every durable commit.
    /// The crash-safety test SIGKILLs it at random moments and checks that every
    /// reported event is present and intact.
    struct AppendLoop: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "append-loop")
        @OptionGroup var storeOptions: StoreOptions
        @Option(help: "Events a commit, 1 to 100000.", transform: Bounded.whole("--batch", 1 ... 100_000)) var batch: Int = 4
        @Option(help: "Initial map size in bytes, 4096 to 1099511627776 (small values exercise map growth under kills).",
                transform: Bounded.whole("--map-size", 4096 ... 1 << 40, "bytes")) var mapSize: Int = 1 << 20

        func run() throws {
            let log = try StoreMaintenance.openForCrashTest(path: storeOptions.path, initialMapSize: mapSize)
            var next = try log.lastSeq() + 1
            while true {
                let events = (0 ..< UInt64(batch)).map { TestPattern.event(seq: next + $0) }
                let range = try log.appendBlocking(contentsOf: events)
                guard range.lowerBound == next else {
                    printError("expected to append at \(next), got \(range.lowerBound)")
                    throw ExitCode(ExitStatus.failure)
                }
                // Written straight to the pipe: the line is out before the next append starts.
                writeOut(Data("committed \(range.lowerBound) \(range.upperBound - 1)\n".utf8))
                next = range.upperBound
            }
        }
    }

    /// Builds the shipped sample log from a directory of recorded responses.
    struct SampleLog: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "sample-log")
        @Option(help: "Directory of recorded responses (the fixtures).") var fixtures: String
        @Option(help: "Output NDJSON file.") var out: String

        func run() throws {
            let events = try SeedSampleLog.events(fixtures: fixtures)
            var text = ""
            for (index, var event) in events.enumerated() {
                event.seq = UInt64(index + 1)
                text += EventJSON.line(for: event, store: SeedSampleLog.storeID) + "\n"
            }
            try text.write(toFile: out, atomically: true, encoding: .utf8)
            say("wrote \(events.count) events to \(out)")
        }
    }
}
