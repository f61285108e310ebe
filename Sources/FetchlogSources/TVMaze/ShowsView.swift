import FetchlogCore
import Synchronization
/// The TVmaze show list: every show of every held `/shows?page=N` document, once each,
/// in id order (the API's own order), with the list image already chosen.
public struct ShowsView: ExportableView, Equatable {
    public static let viewName = "shows"

    /// The list image rule's outcome: `image.medium`, else `image.original`, else the placeholder.
    public struct ListImage: Sendable, Equatable {
        public enum Kind: String, Sendable { case medium, original, placeholder }
        public let url: String?
        public let kind: Kind

        /// From the links alone. An empty URL counts as missing: it could not be displayed either.
        public init(_ links: TVMazeImageLinks?) {
            if let medium = links?.medium, !medium.isEmpty { (url, kind) = (medium, .medium) }
            else if let original = links?.original, !original.isEmpty { (url, kind) = (original, .original) }
            else { (url, kind) = (nil, .placeholder) }
        }

        /// From what the downloads so far chose (`ImageChoice.showListImage`).
        init(_ choice: ImageChoice) {
            url = choice.url
            kind = Kind(rawValue: choice.kind) ?? .placeholder
        }

        var json: JSONValue { .object([("url", .optional(url)), ("kind", .string(kind.rawValue))]) }
    }

    public struct ShowRow: Sendable, Equatable {
        public let id: Int
        public let name: String
        public let premiereYear: Int?
        public let genres: [String]
        public let status: String?
        public let rating: Double?
        /// `HTMLText.clean` of the summary; nil when the API sent none.
        public let summary: String?
        /// Medium, else original, else the placeholder — passing over an image whose
        /// download failed after its retries (see `ImageChoice`).
        public private(set) var image: ListImage
        /// 0-based position in id order: durability (the first 1,000 items) is by item, not page.
        public internal(set) var itemIndex: Int
        /// The links as sent, for the fallback.
        let links: TVMazeImageLinks?

        init(_ show: TVMazeShow, itemIndex: Int) {
            id = show.id
            name = show.name
            premiereYear = show.premiereYear
            genres = show.genres
            status = show.status
            rating = show.rating
            summary = show.summaryHTML.map(HTMLText.clean)
            image = ListImage(show.image)
            links = show.image
            self.itemIndex = itemIndex
        }

        /// This row with its image re-chosen when the download of the one its links name
        /// is failing.
        func applyingDownloads(in state: LogState) -> ShowRow {
            guard let url = image.url, state.failingAssets.contains(url) else { return self }
            var row = self
            row.image = ListImage(ImageChoice.showListImage(links, in: state))
            return row
        }

        var json: JSONValue {
            .object([
                ("id", .number(id)), ("name", .string(name)), ("premiereYear", .optional(premiereYear)),
                ("genres", .array(genres.map(JSONValue.string))), ("status", .optional(status)),
                ("rating", .optional(rating)), ("summary", .optional(summary)), ("image", image.json),
                ("itemIndex", .number(itemIndex)),
            ])
        }
    }

    public let shows: [ShowRow]
    /// Page numbers with a held document, ascending.
    public let pagesHeld: [Int]
    /// The page whose fetch said end-of-list (TVmaze's 404); the lowest if several did.
    public let endOfListPage: Int?

    public init(state: LogState) {
        let pages = state.documents.compactMap { key, held -> (Int, HeldDocument, [TVMazeShow])? in
            guard let n = CatalogPaths.tvmazeShowsPage(key), case .tvmazeShowsPage(let shows)? = held.tvmaze else { return nil }
            return (n, held, shows)
        }
        pagesHeld = pages.map(\.0).sorted()
        endOfListPage = state.status.compactMap { key, status in
            status.endOfList ? CatalogPaths.tvmazeShowsPage(key) : nil
        }.min()
        let ordered = pages.sorted { $0.0 < $1.0 }
        let documents = ordered.map { (page: $0.0, seq: $0.1.seq, shows: $0.2) }
        // Rows depend only on the held pages; snapshots share their storage, so the key
        // compares as pointers until a page changes.
        let key = MemoKey(seqs: ordered.map(\.1.seq), pages: ordered.map(\.2))
        // Rows depend on the pages; which image a row shows also depends on downloads.
        let rows = ShowsView.memo.value(for: key) { ShowsView.rows(documents) }
        shows = state.failingAssets.isEmpty ? rows : rows.map { $0.applyingDownloads(in: state) }
    }

    private struct MemoKey: Equatable {
        let seqs: [UInt64]
        let pages: [[TVMazeShow]]
    }

    private static let memo = LastValueMemo<MemoKey, [ShowRow]>()

    /// The rows of the held pages (`heldShows`' choice of show per id, in id order), each
    /// page's rows made once (`PageRows`): a fetch that adds a page makes that page's rows,
    /// not every page's again (cleaning summaries' HTML is most of a row's cost).
    private static func rows(_ pages: [(page: Int, seq: UInt64, shows: [TVMazeShow])]) -> [ShowRow] {
        var byID: [Int: (seq: UInt64, row: ShowRow)] = [:]
        for (page, seq, shows) in pages {
            for row in pageRows.rows(page: page, shows: shows) where byID[row.id].map({ $0.seq < seq }) ?? true {
                byID[row.id] = (seq, row)
            }
        }
        var rows = byID.values.map(\.row).sorted { $0.id < $1.id }
        for index in rows.indices { rows[index].itemIndex = index }
        return rows
    }

    /// Each page number's rows, kept with the shows they were made from (a page fetched
    /// again, or another state's page, is made anew when its shows differ).
    final class PageRows: Sendable {
        /// Per page: the shows, their rows in the page's order, and the rows in id order when
        /// no id repeats in the page (nil when one does).
        private let kept = Mutex<[Int: (shows: [TVMazeShow], rows: [ShowRow], byID: [ShowRow]?)]>([:])

        func rows(page: Int, shows: [TVMazeShow]) -> [ShowRow] { entry(page: page, shows: shows).rows }

        /// The page's rows in id order, each id once; nil when an id repeats in the page.
        func rowsByID(page: Int, shows: [TVMazeShow]) -> [ShowRow]? { entry(page: page, shows: shows).byID }

        private func entry(page: Int, shows: [TVMazeShow]) -> (shows: [TVMazeShow], rows: [ShowRow], byID: [ShowRow]?) {
            if let hit = kept.withLock({ $0[page] }), hit.shows == shows { return hit }
            let rows = shows.map { ShowRow($0, itemIndex: 0) }
            let sorted = rows.sorted { $0.id < $1.id }
            let unique = zip(sorted, sorted.dropFirst()).allSatisfy { $0.id < $1.id }
            let made = (shows, rows, unique ? sorted : nil)
            kept.withLock { $0[page] = made }
            return made
        }
    }

    /// The list as one segment per held page (`ViewSegment`), so SQL's `shows` table in a
    /// long-lived process takes a fetch that adds a page by inserting that page's rows: when
    /// no download is failing (a failing image re-chooses rows on any page), and the pages,
    /// in page order, hold ascending runs of ids that do not overlap (TVmaze's pages do). Then
    /// the id-ordered list is the pages' rows one after the other, and a row's `itemIndex` is
    /// where its page starts plus its place there. A page's token: its number, the seq that
    /// holds it, where it starts. Nil otherwise: the table is built from the export.
    static func segments(_ state: LogState) -> [ViewSegment]? {
        guard state.failingAssets.isEmpty else { return nil }
        let pages = state.documents.compactMap { key, held -> (page: Int, seq: UInt64, shows: [TVMazeShow])? in
            guard let n = CatalogPaths.tvmazeShowsPage(key), case .tvmazeShowsPage(let shows)? = held.tvmaze else { return nil }
            return (n, held.seq, shows)
        }.sorted { $0.page < $1.page }
        var segments: [ViewSegment] = []
        var start = 0
        var lastID = Int.min
        for (page, seq, shows) in pages {
            guard let rows = pageRows.rowsByID(page: page, shows: shows) else { return nil }
            guard let first = rows.first, let last = rows.last else { continue }
            guard first.id > lastID else { return nil }
            lastID = last.id
            let offset = start
            segments.append(ViewSegment(token: [UInt64(page), seq, UInt64(offset)], count: rows.count) {
                rows.enumerated().map { index, row in
                    var row = row
                    row.itemIndex = offset + index
                    return row.json
                }
            })
            start += rows.count
        }
        return segments
    }

    private static let pageRows = PageRows()

    /// The held shows, once per id, sorted by id. When two documents hold the same id (pages
    /// shift as shows are added upstream), the one fetched last — the larger seq — wins,
    /// because it is the newest word on that show whatever its page number.
    static func heldShows(_ documents: [(seq: UInt64, shows: [TVMazeShow])]) -> [TVMazeShow] {
        var byID: [Int: (seq: UInt64, show: TVMazeShow)] = [:]
        for (seq, shows) in documents {
            for show in shows where byID[show.id].map({ $0.seq < seq }) ?? true {
                byID[show.id] = (seq, show)
            }
        }
        return byID.values.map(\.show).sorted { $0.id < $1.id }
    }

    static func heldShows(in state: LogState) -> [TVMazeShow] {
        heldShows(state.documents.compactMap { key, held in
            guard CatalogPaths.tvmazeShowsPage(key) != nil, case .tvmazeShowsPage(let shows)? = held.tvmaze else { return nil }
            return (held.seq, shows)
        })
    }

    public var count: Int { shows.count }

    /// Rows `n*size ..< (n+1)*size` of the id-ordered list, `n` from 0 (the view's paging,
    /// independent of the upstream's page size).
    public func page(_ n: Int, size: Int) -> [ShowRow] { CatalogPaths.slice(shows, page: n, size: size) }

    public func show(id: Int) -> ShowRow? {
        // Rows are sorted by id: binary search.
        var low = 0, high = shows.count
        while low < high {
            let mid = (low + high) / 2
            if shows[mid].id < id { low = mid + 1 } else { high = mid }
        }
        return low < shows.count && shows[low].id == id ? shows[low] : nil
    }

    /// Shows having genre `g`, compared whole and case-insensitively, in id order.
    public func withGenre(_ g: String) -> [ShowRow] {
        let wanted = g.lowercased()
        return shows.filter { $0.genres.contains { $0.lowercased() == wanted } }
    }

    public func exportMembers() -> [(String, JSONValue)] {
        [("shows", .array(shows.map(\.json))), ("count", .number(count)),
         ("pagesHeld", .array(pagesHeld.map { .number($0) })), ("endOfListPage", .optional(endOfListPage))]
    }
}
