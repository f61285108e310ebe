import Fetchlog

// TEMPORARY until the library's GnomesView.lookup lands (branch lib-items).
enum GnomeLookup { case found(GnomeRow), ambiguous([GnomeRow]), notFound }
extension GnomesView {
    func lookup(_ text: String) -> GnomeLookup {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let exact = gnomes.first(where: { $0.name == trimmed }) { return .found(exact) }
        let folded = gnomes.filter { $0.name.lowercased() == trimmed.lowercased() }
        if folded.count == 1 { return .found(folded[0]) }
        return folded.isEmpty ? .notFound : .ambiguous(folded)
    }
}

extension OfflineFirst {
    static func heldArtworksList(in state: LogState) -> (firstPage: Resource, limit: Int) {
        var limits: [Int] = []
        for key in state.documents.keys where key.source == "artic" && key.path.hasPrefix("/api/v1/artworks?") {
            if let range = key.path.range(of: "limit="), let n = Int(key.path[range.upperBound...]) { limits.append(n) }
        }
        let limit = limits.min() ?? 12
        return (.articArtworks(page: 1, limit: limit), limit)
    }
}
