import Foundation

/// viaplay: pages addressed by path; the query (`dtg`, `productsPerPage`, ...) is ignored.
///
///   /ios-se                      → viaplay/ios-se-root-2022.json (version 2022, default) or
///                                  viaplay/ios-se-root-2024.json (version 2024), byte for byte
///   /ios-se/serier, /ios-se/film,
///   /ios-se/sport, /ios-se/barn  → viaplay/androidv2-se-serier-section-2016.json
///                                  (the paths of both roots' `viaplay:sections` hrefs, template
///                                  `{?dtg}` / `{?dtg,productsPerPage}` dropped; only one section
///                                  page was recorded, so every section a root names answers it)
///   /androidv2-se/serier         → the same section page, at its own `self` path
///   /pc-se/serier/samtliga       → viaplay/pc-se-serier-samtliga-category.json (category page)
///   anything else                → 404 JSON
enum ViaplayRoutes {
    static func rootFile(_ version: ViaplayDataVersion) -> String {
        version == .v2024 ? "viaplay/ios-se-root-2024.json" : "viaplay/ios-se-root-2022.json"
    }
    static let sectionFile = "viaplay/androidv2-se-serier-section-2016.json"
    static let categoryFile = "viaplay/pc-se-serier-samtliga-category.json"

    /// Derived from every root fixture so the served paths always match the hrefs they name,
    /// whichever version is active (a client may keep a section href across a switch).
    static let sectionPaths: Set<String> = {
        var paths: Set<String> = ["/androidv2-se/serier"]
        for version in ViaplayDataVersion.allCases {
            guard let root = Fixtures.json(rootFile(version)) as? [String: Any],
                  let links = root["_links"] as? [String: Any],
                  let sections = links["viaplay:sections"] as? [[String: Any]] else { continue }
            for section in sections {
                guard let href = section["href"] as? String else { continue }
                let plain = href.split(separator: "{", maxSplits: 1).first.map(String.init) ?? href
                if let path = URL(string: plain)?.path, !path.isEmpty { paths.insert(path) }
            }
        }
        return paths
    }()

    static func respond(path: String, version: ViaplayDataVersion, fullPath: String) -> RouteResult {
        switch path {
        case "/ios-se": return .ok(Fixtures.data(rootFile(version)))
        case "/pc-se/serier/samtliga": return .ok(Fixtures.data(categoryFile))
        case _ where sectionPaths.contains(path): return .ok(Fixtures.data(sectionFile))
        default:
            return .error(404, JSONBody.encode(["error": "no such route", "path": fullPath, "responseCode": ["httpStatus": 404, "message": "Page not found"]] as [String: Any]))
        }
    }
}
