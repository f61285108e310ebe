import FetchlogCore
import Foundation
import SampleUpstream
import Testing

/// The store the SQL suites ask: the demo store (all five seed sources, through the bundled
/// sample upstream), the census and catalog manifests (`docs/manifests`) fetched from the
/// sample upstream on loopback (census gnomes, catalog items and their reviews), and one saved
/// view, `hair_counts` (a `view.saved` event).
struct SQLTestStore {
    /// Kept for the store's life: the directory goes when it does.
    let dir: TemporaryDirectory
    let store: String
    /// Every event as `log tail --format json` prints it, in seq order.
    let events: [JSONValue]

    /// The saved view the set-up creates.
    static let savedView = "CREATE VIEW hair_counts AS SELECT hairColor, count(*) AS n FROM gnomes GROUP BY hairColor"

    static func make(_ name: String) async throws -> SQLTestStore {
        let dir = TemporaryDirectory(name)
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let store = dir.sub("store")
        let demo = try await runDemoScript([], store: store)
        try #require(demo.status == 0, "\(demo.stderr)")

        let upstream = try SampleUpstream(configuration: SampleUpstreamConfiguration())
        let base = try await upstream.start().absoluteString
        func fetchlog(_ words: [String]) async throws {
            let result = try await runFetchlog(["--store", store, "--upstream", base, "--retries", "0"] + words, environment: demoEnvironment)
            try #require(result.status == 0, "\(words): \(result.stderr)")
        }
        try await fetchlog(["source", "add", Repo.root + "/docs/manifests/census.json"])
        try await fetchlog(["source", "add", Repo.root + "/docs/manifests/catalog.json"])
        try await fetchlog(["fetch", "census", "gnomes"])
        try await fetchlog(["fetch", "catalog", "items"])
        try await fetchlog(["fetch", "catalog", "reviews"])
        await upstream.stop()
        try await fetchlog(["sql", savedView])

        let tail = try await runFetchlog(["--store", store, "log", "tail", "-n", "100000", "--format", "json"])
        try #require(tail.status == 0, "\(tail.stderr)")
        let events = try JSONValue.parse(tail.stdout).arrayValue ?? []
        return SQLTestStore(dir: dir, store: store, events: events)
    }

    /// The seq of the first event of `source` whose label is `label` (or starts with it).
    func seq(source: String, label: String, prefix: Bool = false) -> UInt64? {
        events.first { event in
            event["source"]?.stringValue == source
                && (prefix ? event["label"]?.stringValue?.hasPrefix(label) == true : event["label"]?.stringValue == label)
        }?["seq"].flatMap { $0.intValue }.map(UInt64.init)
    }

    /// `fetchlog --store STORE ARGUMENTS…`.
    func run(_ arguments: [String], stdin: String? = nil) async throws -> CommandResult {
        try await runFetchlog(["--store", store] + arguments, environment: demoEnvironment, stdin: stdin)
    }
}

/// Runs `jobs` at most `width` at a time (each a child process: two cores shared), keeping
/// their order.
func boundedParallel<T: Sendable>(_ count: Int, width: Int = 4, _ job: @escaping @Sendable (Int) async throws -> T) async throws -> [T] {
    try await withThrowingTaskGroup(of: (Int, T).self) { group in
        var results = [T?](repeating: nil, count: count)
        var next = 0
        while next < min(width, count) {
            let i = next
            group.addTask { (i, try await job(i)) }
            next += 1
        }
        while let (i, result) = try await group.next() {
            results[i] = result
            if next < count {
                let j = next
                group.addTask { (j, try await job(j)) }
                next += 1
            }
        }
        return results.map { $0! }
    }
}
