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
