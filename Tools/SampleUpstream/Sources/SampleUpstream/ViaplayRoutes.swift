import Foundation

/// viaplay: pages addressed by path; the query (`dtg`, `productsPerPage`, ...) is ignored.
///
///   /ios-se                      → viaplay/ios-se-root-2022.json (root page)
///   /ios-se/serier, /ios-se/film,
///   /ios-se/sport, /ios-se/barn  → viaplay/androidv2-se-serier-section-2016.json
///                                  (the paths of the root's `viaplay:sections` hrefs, template
///                                  `{?dtg}` dropped; only one section page was recorded, so every
///                                  section the root names answers it)
///   /androidv2-se/serier         → the same section page, at its own `self` path
///   /pc-se/serier/samtliga       → viaplay/pc-se-serier-samtliga-category.json (category page)
///   anything else                → 404 JSON
enum ViaplayRoutes {
    static let rootFile = "viaplay/ios-se-root-2022.json"
    static let sectionFile = "viaplay/androidv2-se-serier-section-2016.json"
    static let categoryFile = "viaplay/pc-se-serier-samtliga-category.json"

    /// Derived from the root fixture so the served paths always match the hrefs it names.
    static let sectionPaths: Set<String> = {
        guard let root = Fixtures.json(rootFile) as? [String: Any],
              let links = root["_links"] as? [String: Any],
              let sections = links["viaplay:sections"] as? [[String: Any]] else { return [] }
        var paths: Set<String> = ["/androidv2-se/serier"]
        for section in sections {
            guard let href = section["href"] as? String else { continue }
            let plain = href.split(separator: "{", maxSplits: 1).first.map(String.init) ?? href
            if let path = URL(string: plain)?.path, !path.isEmpty { paths.insert(path) }
        }
        return paths
    }()

    static func respond(path: String, fullPath: String) -> RouteResult {
        switch path {
        case "/ios-se": return .ok(Fixtures.data(rootFile))
        case "/pc-se/serier/samtliga": return .ok(Fixtures.data(categoryFile))
        case _ where sectionPaths.contains(path): return .ok(Fixtures.data(sectionFile))
        default:
            return .error(404, JSONBody.encode(["error": "no such route", "path": fullPath, "responseCode": ["httpStatus": 404, "message": "Page not found"]] as [String: Any]))
        }
    }
}
