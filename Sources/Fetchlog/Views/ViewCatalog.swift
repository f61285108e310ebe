/// Every view by its export name: what `export VIEW` and `replay` know.
public enum ViewCatalog {
    /// Views with a fixed name, in the order replay prints them.
    public static let fixedNames = ["artists", "artworks", "assets", "filters", "friends", "gnomes", "pages", "search", "sections", "shows", "status"]
    /// Everything `export` accepts.
    public static let exportNames = fixedNames + ["show/ID", "all"]

    /// The sources whose events feed each view (for replay's "events applied").
    public static let sources: [String: Set<String>] = [
        "artists": ["artic"], "artworks": ["artic"], "assets": ["assets"], "filters": ["brastlewark"], "friends": ["brastlewark"],
        "gnomes": ["brastlewark"], "pages": ["viaplay"], "search": ["thmanyah", "tvmaze"], "sections": ["thmanyah"],
        "shows": ["tvmaze"], "status": ["tvmaze", "brastlewark", "viaplay", "thmanyah", "artic", "assets"],
    ]

    /// The canonical export of `name` (`show/ID` for one show, `all` for every fixed view).
    public static func export(_ name: String, state: LogState) throws(ViewNameError) -> JSONValue {
        let seq = state.seq
        switch name {
        case "artists": return ArtistsView(state: state).export(asOf: seq)
        case "artworks": return ArtworksView(state: state).export(asOf: seq)
        case "assets": return AssetsView(state: state).export(asOf: seq)
        case "filters": return FiltersView(state: state).export(asOf: seq)
        case "friends": return FriendsView(state: state).export(asOf: seq)
        case "gnomes": return GnomesView(state: state).export(asOf: seq)
        case "pages": return PagesView(state: state).export(asOf: seq)
        case "search": return SearchView(state: state).export(asOf: seq)
        case "sections": return SectionsView(state: state).export(asOf: seq)
        case "shows": return ShowsView(state: state).export(asOf: seq)
        case "status": return StatusView(state: state).export(asOf: seq)
        case "all":
            var members: [(String, JSONValue)] = []
            for view in fixedNames { members.append((view, try export(view, state: state))) }
            return .object([("view", .string("all")), ("asOf", .number(seq)), ("views", .object(members))])
        default:
            if name.hasPrefix("show/"), let id = Int(name.dropFirst(5)), id >= 0 {
                return ShowDetailView(state: state, id: id).export(asOf: seq)
            }
            throw ViewNameError(name: name)
        }
    }

    /// SHA-256 of each fixed view's canonical export.
    public static func hashes(of state: LogState) -> [(view: String, sha256: String)] {
        fixedNames.map { view in
            let text = (try? export(view, state: state).canonicalText()) ?? ""
            return (view, SHA256.hex(text))
        }
    }
}

public struct ViewNameError: Error, CustomStringConvertible, Equatable {
    public let name: String
    public var description: String {
        "no view named '\(name)'\(Suggest.didYouMean(name, ViewCatalog.exportNames)): views are \(ViewCatalog.exportNames.joined(separator: ", "))"
    }
}

/// "did you mean" for a mistyped word (Levenshtein distance, small).
public enum Suggest {
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var row = Array(0 ... b.count)
        for i in 1 ... a.count {
            var previous = row[0]
            row[0] = i
            for j in 1 ... b.count {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }

    /// ` (did you mean 'x'?)`, or empty when nothing is close.
    public static func didYouMean(_ word: String, _ options: [String]) -> String {
        guard let best = options.min(by: { distance(word, $0) < distance(word, $1) }),
              distance(word, best) <= max(2, best.count / 3) else { return "" }
        return " (did you mean '\(best)'?)"
    }
}
