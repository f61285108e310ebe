import FetchlogCore

extension ImageChoice {
    /// The list image of a show: medium, else original, else the placeholder.
    package static func showListImage(_ links: TVMazeImageLinks?, in state: LogState) -> ImageChoice {
        choose(listCandidates(links), in: state)
    }

    public static func listCandidates(_ links: TVMazeImageLinks?) -> [(kind: String, url: String)] {
        [("medium", links?.medium ?? ""), ("original", links?.original ?? "")].filter { !$0.1.isEmpty }
    }

    /// The detail image: the main poster, else the first poster, else the placeholder;
    /// each poster's original, then its medium rendition.
    package static func showDetailImage(_ images: [TVMazeImage], in state: LogState) -> ImageChoice {
        choose(detailCandidates(images), in: state)
    }

    public static func detailCandidates(_ images: [TVMazeImage]) -> [(kind: String, url: String)] {
        let posters = images.filter { $0.type == "poster" }
        var ordered: [(String, TVMazeImage)] = []
        if let main = posters.first(where: { $0.main }) { ordered.append(("main-poster", main)) }
        if let first = posters.first(where: { !$0.main }) { ordered.append(("first-poster", first)) }
        return ordered.flatMap { kind, image in
            [(kind, image.original?.url ?? ""), (kind + " medium", image.medium?.url ?? "")].filter { !$0.1.isEmpty }
        }
    }
}
