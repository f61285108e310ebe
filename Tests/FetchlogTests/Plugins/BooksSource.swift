import FetchlogCore
import FetchlogShell
import FetchlogSources
import FetchlogSeedShell
import Foundation

// Issue 14: a sixth source, defined entirely in the test target on the engine's public API
// (`import FetchlogCore`, not `@testable`): a small book catalogue with a paged list, an
// item endpoint and ETags, a slice of favourites, and a `books` view.

extension Source {
    static let books = Source("books")
}

extension DocumentKind {
    static let booksList = DocumentKind("books.list")   // GET /list?page=N → {"items":[book], "total_pages":N}
    static let booksItem = DocumentKind("books.item")   // GET /items/{id} → book
}

struct Book: Sendable, Equatable {
    var id: Int
    var title: String
    var year: Int?

    static func decode(_ c: JSONCursor) throws(DecodeError) -> Book {
        Book(id: try c.int("id"), title: try c.string("title"), year: try c.optionalInt("year"))
    }
}

enum BooksDocument: SourceDocument, Equatable {
    case list([Book], totalPages: Int)
    case item(Book)
}

struct BooksSource: SourcePlugin {
    var source: Source { .books }
    var summary: String { "a small book catalogue (the sixth source, defined by a test)" }
    var realBase: String { "https://books.example" }
    var freshness: FreshnessRule { .timeToLive(.seconds(60), renewOnOpen: false) }
    var initialSlice: (any SourceSlice)? { Favourites() }

    func documentKind(ofPath path: String) -> DocumentKind? {
        if path.hasPrefix("/list?") { return .booksList }
        if path.hasPrefix("/items/") { return .booksItem }
        return nil
    }

    func decode(_ kind: DocumentKind, body: [UInt8]) throws(DecodeError) -> any SourceDocument {
        try DocumentDecoder.decodeJSON(body) { (root) throws(DecodeError) -> BooksDocument in
            switch kind {
            case .booksList: return .list(try root.field("items").map(Book.decode), totalPages: try root.int("total_pages"))
            case .booksItem: return .item(try Book.decode(root))
            default: throw DecodeError(path: "$", reason: "books has no kind \(kind)")
            }
        }
    }

    /// The list answers 404 past its last page.
    func isEndOfList(status: UInt16, kind: DocumentKind) -> Bool { status == 404 && kind == .booksList }

    static func page(_ n: Int) -> Resource { Resource(source: .books, path: "/list?page=\(n)", document: .booksList) }
    static func item(_ id: Int) -> Resource { Resource(source: .books, path: "/items/\(id)", document: .booksItem) }
}

/// The favourites: folded from `favourite.add` / `favourite.remove` intents (`{"id":N}`).
struct Favourites: SourceSlice {
    static let version = 1
    var ids: [Int] = []

    mutating func apply(_ event: Event) {
        guard let body = event.body, let json = try? JSONValue.parse(bytes: body), let id = json["id"]?.intValue else { return }
        switch event.label {
        case "favourite.add": if !ids.contains(id) { ids = (ids + [id]).sorted() }
        case "favourite.remove": ids.removeAll { $0 == id }
        default: break
        }
    }
}

/// Every held book (list pages, then single items over them), by id, with whether it is a
/// favourite. Export: `{"view":"books","asOf":N,"books":[{"id","title","year","favourite"}],
/// "count":N,"favourites":[id]}` (Tests/FetchlogTests/SixthSource/books.schema.json).
struct BooksView: ExportableView, Equatable {
    static let viewName = "books"
    var books: [Book]
    var favourites: [Int]

    init(state: LogState) {
        var byID: [Int: Book] = [:]
        let held = state.documents.filter { $0.key.source == Source.books.rawValue }
        // Pages first (in path order), then items: an item fetched alone is the newer detail.
        for (_, document) in held.sorted(by: { $0.key < $1.key }) {
            if case .list(let books, _)? = document.document as? BooksDocument { for book in books { byID[book.id] = book } }
        }
        for (_, document) in held.sorted(by: { $0.key < $1.key }) {
            if case .item(let book)? = document.document as? BooksDocument { byID[book.id] = book }
        }
        books = byID.values.sorted { $0.id < $1.id }
        favourites = state.slice(Favourites.self, of: .books)?.ids ?? []
    }

    func exportMembers() -> [(String, JSONValue)] {
        [("books", .array(books.map { book in
            .object([("id", .number(book.id)), ("title", .string(book.title)), ("year", .optional(book.year)),
                     ("favourite", .bool(favourites.contains(book.id)))])
        })), ("count", .number(books.count)), ("favourites", .array(favourites.map { .number($0) }))]
    }

    static let definition = ViewDefinition(BooksView.self, sources: [Source.books.rawValue], make: BooksView.init)
}

/// `books [--page N]` and `favourite add|remove ID`: the sixth source's shell commands.
enum BooksCommands {
    static let commands: [ShellCommand] = [
        ShellCommand(name: "books", usage: "books", summary: "the held books, favourites marked", example: "books") { session, args in
            try Shell.none(args, "books")
            try await session.open(BooksSource.page(1), "books")
            session.freshnessLine(BooksSource.page(1), "books")
            let view = BooksView(state: session.state)
            let rows = view.books.map { [String($0.id), $0.title, Shell.text($0.year), view.favourites.contains($0.id) ? "★" : ""] }
            guard case .object(let members) = view.export(asOf: session.state.seq),
                  case .array(let records)? = members.first(where: { $0.0 == "books" })?.1 else { return nil }
            return .table(columns: ["id", "title", "year", "favourite"], rows: rows, records: records, footer: "\(view.books.count) books")
        },
        ShellCommand(name: "favourite", usage: "favourite add|remove ID", summary: "mark or unmark a favourite book",
                     example: "favourite add 1", complete: { _, position in position == 1 ? ["add", "remove"] : [] }) { session, args in
            let words = try ShellArguments(args, usage: "favourite add|remove ID").words(2 ... 2)
            guard ["add", "remove"].contains(words[0]) else { throw ShellError.usage("favourite takes add or remove") }
            guard !session.isPinned else { throw ShellError.usage("at SEQ is read-only") }
            let id = try Shell.int(words[1], "a book id")
            try await session.store.sendIntent(source: .books, label: "favourite." + words[0], body: .object([("id", .number(id))]))
            return .message("favourites: \(session.state.slice(Favourites.self, of: .books)?.ids ?? [])", json: .null)
        },
    ]
}

/// The seed sources and the sixth, side by side.
let booksRegistry = SourceRegistry(SeedSources.plugins + [BooksSource()], views: SeedSources.views + [BooksView.definition],
                                   parameterizedViews: SeedSources.parameterizedViews)

/// The shell's half: the seed sources' commands and `fetch` targets, and the sixth's.
let booksShell = ShellRegistry(booksRegistry, commands: SeedSources.commands + BooksCommands.commands,
                               fetchTargets: SeedSources.fetchTargets + [
                                   FetchTarget(source: "books", what: "page", synopsis: "books page N") { try await $0.one(BooksSource.page(try $0.intValue("a page"))) },
                                   FetchTarget(source: "books", what: "item", synopsis: "books item ID") { try await $0.one(BooksSource.item(try $0.intValue("a book id"))) },
                               ])
