// swift-tools-version: 6.1
import PackageDescription

// One folder per layer; each name says which layer it is.
//   CLMDB            – the C liblmdb, as a system library (Debian: liblmdb-dev)
//   CNATS            – the C nats.c client with JetStream, as a system library (Debian: libnats-dev)
//   FetchlogNATS     – a thin safe Swift layer over it (connection, JetStream streams, publish, read)
//   FetchlogReplication – the log through a JetStream stream: attach (seed or replica), follow
//   CFetchlogSupport – tiny C helpers that must be fast even in debug builds (CRC32C)
//   FetchlogLMDB     – a thin, safe Swift binding of LMDB (no knowledge of events)
//   FetchlogCore     – the engine: event log, store, reducers, fetching, freshness, replay,
//                      export; it names no source (sources are plug-ins, `SourcePlugin`)
//   FetchlogShell    – what only a shell needs: commands and their grammar, completion data,
//                      `fetch` targets and their flags, the demo and tour plans; beside
//                      the engine (a library client never needs it), never inside it
//   FetchlogSources  – the five seed sources as plug-ins, one folder each (no shell: an app
//                      that wants them never builds the shell)
//   FetchlogSeedShell – the seed sources' shell commands, `fetch` targets and demo plan
//   FetchlogSync     – `SyncService`: the sync loop (`fetchlog sync`) as a swift-service-lifecycle service
//   CSQLite          – the C SQLite 3.40, as a system library (Debian: libsqlite3-dev)
//   FetchlogSQLite   – a thin, safe Swift binding of SQLite (no knowledge of events), as FetchlogLMDB
//   FetchlogSQL      – SQL over a store (issue 35): its views, manifest resources and log as
//                      tables, saved views, `Store.sql(_:)`; a client of the engine
//   FetchlogServe    – `fetchlog serve`: an HTTP read API over a store (Hummingbird), the store's client
//   fetchlog         – the command-line front end, one client of the engine
//   SampleUpstream   – the bundled sample upstream server (code lives under Tools/)
let package = Package(
    name: "Fetchlog",
    platforms: [.macOS(.v15)],
    products: [
        // The engine alone: an app names its own sources (`Store.open(at:sources:)`).
        .library(name: "Fetchlog", targets: ["FetchlogCore"]),
        // The five seed sources (`SeedSources.openStore(at:)`), for those who want them.
        .library(name: "FetchlogSeedSources", targets: ["FetchlogSources"]),
        .library(name: "FetchlogLMDB", targets: ["FetchlogLMDB"]),
        // SQL over a store's views, resources and log (`import FetchlogSQL`; `store.sql(_:)`).
        .library(name: "FetchlogSQL", targets: ["FetchlogSQL"]),
        // The sync loop as a service an app adds to its ServiceGroup (`SyncService`).
        .library(name: "FetchlogSync", targets: ["FetchlogSync"]),
        .executable(name: "fetchlog", targets: ["fetchlog"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Only its MallocInterposer trait: the package resolves on Linux with it alone.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // `swift package generate-documentation` (scripts/docs): a command plugin, never linked into a product.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        .systemLibrary(
            name: "CNATS",
            pkgConfig: "libnats",
            providers: [.apt(["libnats-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "FetchlogSQLite",
            dependencies: ["CSQLite"]
        ),
        .target(
            name: "FetchlogSQL",
            dependencies: ["FetchlogCore", "FetchlogSQLite", "CSQLite"]
        ),
        .target(
            name: "FetchlogNATS",
            dependencies: ["CNATS"]
        ),
        .target(
            name: "FetchlogReplication",
            dependencies: ["FetchlogCore", "FetchlogNATS"]
        ),
        .systemLibrary(
            name: "CEditLine",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"])]
        ),
        .target(
            name: "CFetchlogSupport",
            // Checksums run over every body byte; keep them optimised in debug builds too.
            cSettings: [.unsafeFlags(["-O2"])]
        ),
        .target(
            name: "FetchlogLMDB",
            dependencies: ["CLMDB", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "FetchlogSources",
            dependencies: ["FetchlogCore", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "FetchlogSync",
            dependencies: ["FetchlogCore", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        .target(
            name: "FetchlogSeedShell",
            dependencies: ["FetchlogCore", "FetchlogSources", "FetchlogShell"]
        ),
        .target(
            name: "FetchlogShell",
            dependencies: ["FetchlogCore"]
        ),
        .target(
            name: "FetchlogCore",
            dependencies: [
                "FetchlogLMDB", "CFetchlogSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "FetchlogServe",
            dependencies: [
                "FetchlogCore", "FetchlogSQL",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The bundled sample upstream: recorded responses over real HTTP, with faults.
        // Never needed by the engine at run time; `fetchlog upstream serve` starts it.
        .target(
            name: "SampleUpstream",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tools/SampleUpstream/Sources/SampleUpstream",
            resources: [.copy("Fixtures")]
        ),
        .executableTarget(
            name: "fetchlog",
            dependencies: [
                "FetchlogCore", "FetchlogSources", "FetchlogSeedShell", "SampleUpstream", "CEditLine", "FetchlogNATS", "FetchlogReplication",
                "FetchlogShell", "FetchlogServe", "FetchlogSQL", "FetchlogSQLite",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources/sample-log.ndjson")]
        ),
        // Release-built benchmark tool: `swift run -c release fetchlog-bench` (BENCHMARKS.md):
        // the log beside raw liblmdb in the same run, and the replay and open tables.
        .executableTarget(
            name: "fetchlog-bench",
            dependencies: ["FetchlogCore", "FetchlogSources", "FetchlogLMDB", "CLMDB", "SampleUpstream", "CNATS", "FetchlogNATS", "FetchlogReplication",
                           "FetchlogServe", "FetchlogSQL", "FetchlogSQLite", .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "Logging", package: "swift-log")],
            path: "Tools/FetchlogBench",
            exclude: ["sqlite-search.py", "scale-peers.py"]
        ),
        // ordo-one/benchmark suites (`swift package benchmark`): percentiles, malloc counts,
        // baselines to compare against. The plugin finds targets in a folder named Benchmarks.
        .executableTarget(
            name: "DecodingBenchmarks",
            dependencies: ["FetchlogCore", "FetchlogSources", .product(name: "Benchmark", package: "benchmark")],
            path: "Tools/Benchmarks/Decoding",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .testTarget(
            name: "FetchlogTests",
            dependencies: [
                "FetchlogCore", "FetchlogSources", "FetchlogSeedShell", "FetchlogSync", "FetchlogLMDB", "CLMDB", "SampleUpstream", "fetchlog", "FetchlogNATS", "FetchlogReplication",
                "FetchlogShell", "FetchlogSQL", "FetchlogSQLite",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            // Golden outputs and other projects' test data (Data/, the JSONPath suite) are read from the source tree by path, not bundled.
            exclude: ["REPL/Golden", "Behaviour/Golden", "Plugins/books.schema.json", "Manifests/DltConfigs", "Manifests/JSONPathCTS", "Data",
                      "SQL/differential-queries.txt", "SQL/sql-oracle.py"]
        ),
        .testTarget(
            name: "SampleUpstreamTests",
            dependencies: [
                "SampleUpstream",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tools/SampleUpstream/Tests/SampleUpstreamTests"
        ),
    ]
)
