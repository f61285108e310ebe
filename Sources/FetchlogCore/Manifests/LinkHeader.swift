import Foundation

/// RFC 8288 `Link` headers: `<https://api.example/items?page=2>; rel="next", <…>; rel="last"`.
package enum LinkHeader {
    /// The target of the `next` relation, nil when there is none.
    package static func next(_ header: String) -> String? { target(header, relation: "next") }

    /// The target of `relation` (compared ignoring case, as RFC 8288 says), nil when there
    /// is none: a manifest's `links_next_key`.
    package static func target(_ header: String, relation: String) -> String? {
        let relation = relation.lowercased()
        for link in header.split(separator: ",") {
            let parts = link.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let target = parts.first, target.hasPrefix("<"), target.hasSuffix(">") else { continue }
            let relations = parts.dropFirst().compactMap { parameter -> [String]? in
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2, pair[0].lowercased() == "rel" else { return nil }
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased().split(separator: " ").map(String.init)
            }.flatMap { $0 }
            if relations.contains(relation) { return String(target.dropFirst().dropLast()) }
        }
        return nil
    }
}
