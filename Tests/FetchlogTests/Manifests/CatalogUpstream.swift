import FetchlogCore
import Testing
import Foundation
import SampleUpstream

/// The sample upstream's generic catalog API (`CatalogRoutes`), every paginator style,
/// addressed by the `--upstream` rule as the source `catalog` (`BASE/catalog/<path>`), with
/// the paths it was asked (catalog routes only, query included).
final class CatalogUpstream: Sendable {
    let server: SampleUpstream
    let base: String

    var asked: [String] {
        get async { await server.receivedPaths.filter { $0.hasPrefix("/catalog/") } }
    }

    static func item(_ id: Int) -> String { CatalogRoutes.item(id) }

    private init(server: SampleUpstream, base: String) {
        self.server = server
        self.base = base
    }

    static func start() async throws -> CatalogUpstream {
        let server = try SampleUpstream()
        let url = try await server.start()
        var base = url.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return CatalogUpstream(server: server, base: base)
    }

    func stop() async { await server.stop() }
}

/// A store on the command line with one manifest defined (`source add`), and the catalog
/// upstream its fetches go to: the set-up of the manifest tests that run the real binary.
struct ManifestCLIRig {
    let upstream: CatalogUpstream
    /// Kept for the rig's life: the directory goes when it does.
    let dir: TemporaryDirectory
    let store: String
    /// The manifest's file (what `source add` and `source try` read).
    let file: String

    static func start(_ name: String, manifest: String) async throws -> ManifestCLIRig {
        let upstream = try await CatalogUpstream.start()
        let dir = TemporaryDirectory(name)
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let rig = ManifestCLIRig(upstream: upstream, dir: dir, store: dir.sub("store"), file: dir.sub("catalog.json"))
        try manifest.write(toFile: rig.file, atomically: true, encoding: .utf8)
        let add = try await runFetchlog(["--store", rig.store, "source", "add", rig.file])
        #expect(add.status == 0, "\(add.stderr)")
        return rig
    }

    /// `fetch catalog ARGUMENTS…` through the upstream, no retries.
    func fetch(_ arguments: [String], environment: [String: String] = [:]) async throws -> CommandResult {
        try await runFetchlog(["--store", store, "--upstream", upstream.base, "--retries", "0", "fetch", "catalog"] + arguments,
                              environment: environment)
    }

    /// The ids of `items/catalog/RESOURCE` (with `--at SEQ` and the like).
    func ids(_ resource: String, _ extra: [String] = []) async throws -> [Int] {
        let export = try await runFetchlog(["--store", store, "export", "items/catalog/" + resource] + extra)
        #expect(export.status == 0, "\(export.stderr)")
        return (try JSONValue.parse(bytes: Array(export.stdout.utf8))["items"]?.arrayValue ?? []).compactMap { $0["id"]?.intValue }
    }

    func stop() async { await upstream.stop() }
}
