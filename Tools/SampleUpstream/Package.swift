// swift-tools-version: 6.1
import PackageDescription

// Standalone for now so it builds apart from the root package; the target is meant to
// move into the root Package.swift later, hence the library depends only on
// Hummingbird (+ ServiceLifecycle, NIO, Logging) and Foundation.
let package = Package(
    name: "SampleUpstream",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SampleUpstream", targets: ["SampleUpstream"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        .target(
            name: "SampleUpstream",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "SampleUpstreamTests",
            dependencies: [
                "SampleUpstream",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ]
)
