import FetchlogCore
/// ARTIC artworks: every held list page's artworks once each, in first-seen order, then
/// any singly fetched artworks not on a held page.
public struct ArtworksView: ExportableView, Equatable {
    public static let viewName = "artworks"

    public struct ArtworkRow: Sendable, Equatable {
        public enum ImageKind: String, Sendable { case iiif, placeholder }
        public let id: Int
        public let title: String
        public let artistDisplay: String?
        public let artistId: Int?
        public let artistTitle: String?
        public let dateDisplay: String?
        public let imageId: String?
        /// `iiif_url/image_id/full/843,/0/default.jpg` from the config of the document the
        /// record came from; nil (placeholder) without an image id or without a base URL.
        public let imageURL: String?
        public var imageKind: ImageKind { imageURL == nil ? .placeholder : .iiif }

        init(_ a: ArticArtwork, iiifURL: String?) {
            (id, title, artistDisplay, artistId, artistTitle, dateDisplay) =
                (a.id, a.title, a.artistDisplay, a.artistID, a.artistTitle, a.dateDisplay)
            imageId = a.imageID
            imageURL = a.imageURL(iiifURL: iiifURL)
        }

        var json: JSONValue {
            .object([
                ("id", .number(id)), ("title", .string(title)), ("artistDisplay", .optional(artistDisplay)),
                ("artistId", .optional(artistId)), ("artistTitle", .optional(artistTitle)),
                ("dateDisplay", .optional(dateDisplay)), ("imageId", .optional(imageId)),
                ("imageURL", .optional(imageURL)), ("imageKind", .string(imageKind.rawValue)),
            ])
        }
    }

    public let artworks: [ArtworkRow]

    public init(state: LogState) {
        // List pages in (limit, page) order — the order a reader walks them — with the path as
        // a last tie-break; the key's query is read first, the body's pagination if it lacks one.
        let pages = state.documents.compactMap { key, held -> (limit: Int, page: Int, path: String, ArticArtworksPage)? in
            guard key.source == "artic", case .articArtworks(let page)? = held.artic else { return nil }
            let query = CatalogPaths.articListQuery(key)
            return (query.limit ?? page.pagination.limit, query.page ?? page.pagination.currentPage, key.path, page)
        }.sorted { ($0.limit, $0.page, $0.path) < ($1.limit, $1.page, $1.path) }
        var rows: [ArtworkRow] = []
        var seen = Set<Int>()
        for (_, _, _, page) in pages {
            for artwork in page.artworks where seen.insert(artwork.id).inserted {
                rows.append(ArtworkRow(artwork, iiifURL: page.iiifURL))
            }
        }
        // Singles by id; should two keys hold the same id, the later fetch (larger seq) wins.
        let singles = state.documents.compactMap { key, held -> (seq: UInt64, row: ArtworkRow)? in
            guard key.source == "artic", case .articArtwork(let artwork, let iiifURL)? = held.artic else { return nil }
            return (held.seq, ArtworkRow(artwork, iiifURL: iiifURL))
        }.sorted { ($0.row.id, $1.seq) < ($1.row.id, $0.seq) }
        for (_, row) in singles where seen.insert(row.id).inserted { rows.append(row) }
        artworks = rows
    }

    public var count: Int { artworks.count }

    /// The `limit` of the artworks list when none is held: the API's default page size.
    public static let defaultLimit = 12

    /// Which artworks list is the held one, so every reader opens the list the user fetched
    /// (`--limit 4` included): the page-1 resource and its `limit`. When lists of several
    /// limits are held, the most recently fetched page 1 (largest seq) decides; without any
    /// page 1, the most recently fetched page of any list; with no list held, the default
    /// limit (12).
    public static func heldList(in state: LogState) -> (page1: Resource, limit: Int) {
        var best: (isPageOne: Int, seq: UInt64, limit: Int)?
        for (key, held) in state.documents {
            guard key.source == Source.artic.rawValue, case .articArtworks(let page)? = held.artic else { continue }
            let query = CatalogPaths.articListQuery(key)
            let limit = query.limit ?? page.pagination.limit
            let candidate = (isPageOne: (query.page ?? page.pagination.currentPage) == 1 ? 1 : 0, seq: held.seq, limit: limit)
            if let current = best, (current.isPageOne, current.seq) >= (candidate.isPageOne, candidate.seq) { continue }
            best = candidate
        }
        let limit = best?.limit ?? defaultLimit
        return (.articArtworks(page: 1, limit: limit), limit)
    }

    /// Rows `n*size ..< (n+1)*size` of the list, `n` from 0.
    public func page(_ n: Int, size: Int) -> [ArtworkRow] { CatalogPaths.slice(artworks, page: n, size: size) }

    public func artwork(id: Int) -> ArtworkRow? { artworks.first { $0.id == id } }

    public func exportMembers() -> [(String, JSONValue)] {
        [("artworks", .array(artworks.map(\.json))), ("count", .number(count))]
    }
}
