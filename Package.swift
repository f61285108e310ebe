// swift-tools-version: 6.1
import PackageDescription

// One folder per layer; each name says which layer it is.
//   CLMDB            – the C liblmdb, as a system library (Debian: liblmdb-dev)
//   CFetchlogSupport – tiny C helpers that must be fast even in debug builds (CRC32C)
//   FetchlogLMDB     – a thin, safe Swift binding of LMDB (no knowledge of events)
//   Fetchlog         – the engine: event log, store directory, (later) sources, views, store
//   fetchlog         – the command-line front end, one client of the engine
//   SampleUpstream   – the bundled sample upstream server (code lives under Tools/)
let package = Package(
    name: "Fetchlog",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Fetchlog", targets: ["Fetchlog"]),
        .library(name: "FetchlogLMDB", targets: ["FetchlogLMDB"]),
        .executable(name: "fetchlog", targets: ["fetchlog"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        .target(
            name: "CFetchlogSupport",
            // Checksums run over every body byte; keep them optimised in debug builds too.
            cSettings: [.unsafeFlags(["-O2"])]
        ),
        .target(
            name: "FetchlogLMDB",
            dependencies: ["CLMDB"]
        ),
        .target(
            name: "Fetchlog",
            dependencies: ["FetchlogLMDB", "CFetchlogSupport"]
        ),
        .executableTarget(
            name: "fetchlog",
            dependencies: [
                "Fetchlog",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            resources: [.copy("Resources/sample-log.ndjson")]
        ),
        // Release-built benchmark tool: `swift run -c release fetchlog-bench` (BENCHMARKS.md).
        .executableTarget(
            name: "fetchlog-bench",
            dependencies: ["Fetchlog", "FetchlogLMDB", "CLMDB"],
            path: "Tools/Benchmarks"
        ),
        .testTarget(
            name: "FetchlogTests",
            dependencies: ["Fetchlog", "FetchlogLMDB", "CLMDB", "fetchlog"]
        ),
    ]
)
