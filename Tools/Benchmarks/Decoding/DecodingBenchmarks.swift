import Benchmark
import FetchlogCore
import FetchlogSources
import Foundation

// Body decoding and the queries built on it, under ordo-one/benchmark: wall-clock
// percentiles, throughput and malloc counts per call, and baselines to compare a change
// against. From the repository root:
//
//     swift package --allow-writing-to-package-directory benchmark --target DecodingBenchmarks
//     swift package --allow-writing-to-package-directory benchmark baseline update main
//     swift package benchmark baseline compare main
//
// `fetchlog-bench --decode` prints the same decoding figures as MB/s beside Foundation's
// parser; this suite adds allocations, which are most of what is left to win.

/// The repository root, from this file's place in it (Tools/Benchmarks/Decoding/…).
private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

private func fixture(_ name: String) -> [UInt8] {
    let url = root.appendingPathComponent("Tools/SampleUpstream/Sources/SampleUpstream/Fixtures/" + name)
    guard let data = try? Data(contentsOf: url) else { fatalError("DecodingBenchmarks: cannot read \(url.path)") }
    return [UInt8](data)
}

/// Ten copies of the census (13,370 gnomes, ids and names made unique) with two TVmaze
/// pages and an active filter, folded into one state: the query benchmarks' data.
private func tenCensusState() -> LogState {
    let census = try! JSONValue.parse(bytes: fixture("brastlewark/census.json"))
    var gnomes: [JSONValue] = []
    for copy in 0 ..< 10 {
        for gnome in census["Brastlewark"]?.arrayValue ?? [] {
            guard case .object(let members) = gnome else { continue }
            gnomes.append(.object(members.map { key, value in
                switch key {
                case "id": (key, .number((value.intValue ?? 0) + copy * 1337))
                case "name": (key, .string((value.stringValue ?? "") + (copy == 0 ? "" : " \(copy)")))
                default: (key, value)
                }
            }))
        }
    }
    var state = LogState(sources: .seed)
    var seq: UInt64 = 0
    func feed(_ resource: Resource, _ body: [UInt8]) {
        seq += 1
        LogReducer.apply(Event(seq: seq, recordedAt: Timestamp(milliseconds: 0), kind: .fetched, source: resource.source.rawValue,
                               label: resource.path, response: Event.Response(status: 200), body: body), to: &state)
    }
    feed(.brastlewarkCensus, Array(JSONValue.object([("Brastlewark", .array(gnomes))]).canonicalText().utf8))
    feed(.tvmazeShowsPage(0), fixture("tvmaze/shows-page-0-2024.json"))
    feed(.tvmazeShowsPage(1), fixture("tvmaze/shows-page-1-2025-04-18.json"))
    seq += 1
    LogReducer.apply(Event(seq: seq, recordedAt: Timestamp(milliseconds: 0), kind: .intent, source: "brastlewark", label: "filter.set",
                           body: Array(#"{"hair_color":"pink","age_min":100,"age_max":300}"#.utf8)), to: &state)
    return state
}

let benchmarks: @Sendable () -> Void = {
    let metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident]
    Benchmark.defaultConfiguration = .init(metrics: metrics, maxDuration: .seconds(2))

    let bodies: [(String, DocumentKind)] = [
        ("brastlewark/census.json", .brastlewarkCensus),
        ("tvmaze/shows-page-0-2024.json", .tvmazeShowsPage),
        ("viaplay/pc-se-serier-samtliga-category.json", .viaplayPage),
        ("thmanyah/home-sections-page-1.json", .thmanyahHome),
    ]
    for (name, kind) in bodies {
        let body = fixture(name)
        Benchmark("DocumentDecoder \(name) (\(body.count) B)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try SeedSources.decode(kind, body: body)) }
        }
        Benchmark("JSONValue.parse \(name) (\(body.count) B)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try JSONValue.parse(bytes: body)) }
        }
    }

    // Views are rebuilt from every snapshot; these are the queries a user waits on.
    nonisolated(unsafe) var state = LogState(sources: .seed)
    Benchmark("gnome search 'tink' (13,370 gnomes)", configuration: .init(setup: { state = tenCensusState() })) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(GnomesView(state: state).search("tink").count) }
    }
    Benchmark("filtered list ∧ search 'fiz' (13,370 gnomes)", configuration: .init(setup: { state = tenCensusState() })) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(FiltersView(state: state).filtered(search: "fiz").count) }
    }
    Benchmark("show page 6 of 20 (485 shows)", configuration: .init(setup: { state = tenCensusState() })) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(ShowsView(state: state).page(5, size: 20).count) }
    }
}
