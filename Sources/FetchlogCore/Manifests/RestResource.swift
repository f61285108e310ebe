import Foundation

/// One resource of a manifest: where it is, how its items are found in a body, how its
/// pages follow one another, what identifies an item. Read by `RestResourceReader`; equal
/// when every field read from the manifest is equal (`==` synthesized: a field added is
/// compared without a word).
public struct RestResource: Sendable, Equatable {
    /// The resource's name: `items/SOURCE/NAME` exports its items.
    public var name: String
    /// `endpoint.path` relative to the base URL, with a leading `/`.
    public var path: String
    /// `endpoint.params`, in the order given (values as query text).
    public var params: [(String, String)] {
        get { fixedParams }
        set { fixedParams = newValue }
    }
    /// `params`' storage, compared pair by pair (a public property cannot take the
    /// package's wrapper itself).
    @ComparedPairs private var fixedParams: [(String, String)] = []
    /// `endpoint.params` given as `env:NAME`: read at fetch time and sent after `params`,
    /// never part of the label (which every event of the resource records).
    @ComparedPairs package var secretParams: [(String, SecretValue)] = []
    /// `endpoint.data_selector`: the JSONPath to the items; nil for the body itself (`$`).
    package var dataSelector: JSONPath?
    package var paginator: RestPaginator = .auto
    /// `primary_key`: the fields identifying an item (deduplication keeps the first seen).
    public var primaryKey: [String] = []
    /// `endpoint.response_actions` statuses that end the list (`"action": "ignore"`).
    package var ignoredStatuses: Set<Int> = []
    /// `fetchlog.search`: the fields `items … TEXT` searches (empty: every field).
    public var searchFields: [String] = []
    /// `fetchlog.facets`: fields whose values (or numeric ranges) are derived from the data.
    public var facetFields: [String] = []
    /// `fetchlog.ttl`: how long a held page counts as current (`15m`, `2h`, `1d`, `30s`).
    public var timeToLive: Duration?
    /// The parent resource of a child resource: `{resources.PARENT.FIELD}` in `path` or
    /// `params` (or dlt's older `{"type":"resolve"}` params) makes one list per parent item.
    public var parent: String?
    /// Each placeholder as written (`resources.posts.id`) and the parent field it takes.
    package var placeholders: [ParentPlaceholder] = []
    /// `include_from_parent`: parent fields added to each child item as `_PARENT_FIELD`.
    package var includeFromParent: [String] = []
    /// `fetchlog.links`: fields whose values name items of a resource (`by` one of its fields).
    package var links: [RestLink] = []
    /// `fetchlog.images`: fields holding image URLs (dotted paths), in fallback order.
    public var imageFields: [[String]] = []
    /// `fetchlog.durable_items`: items past this many (in list order) are fetched for this
    /// session only — the durable window; nil keeps every page.
    public var durableItems: Int?
    /// `fetchlog.keep_no_store`: an answer the upstream marked `Cache-Control: no-store` is
    /// written to the durable log all the same. False (the default) keeps it for this
    /// session only, as RFC 9111 §5.2.2.5 asks of a cache (`NoStore`).
    package var keepNoStore = false
    /// `endpoint.headers` and `endpoint.auth`, over the client's (`ManifestCredentials`).
    package var credentials = EndpointCredentials()

    /// `write_disposition`: how a fetch's items meet the held ones (nil: Fetchlog's rule,
    /// the same as `merge` — by primary key, newest values).
    package var writeDisposition: WriteDisposition?
    /// `selected: false`: a resource dlt would not load unless asked (kept for `source list`).
    package var selected = true
    /// `table_name`: another name the resource's view answers to (`items/SOURCE/TABLE`).
    package var tableName: String?
    /// `parallelized`: a child resource's lists are fetched several at once.
    package var parallelized = false
    /// `columns`: dlt data types by column name, for the generated JSON Schema.
    @ComparedPairs package var columnTypes: [(String, String)] = []
    /// `response_actions` with `content`: a body holding this text is ignored (the list
    /// ends there, as dlt's `ignore`), for the given status or any.
    package var ignoredContent: [IgnoredContent] = []
    /// dlt's keys accepted with no effect in Fetchlog (key paths, for `source add` to say).
    package var acceptedWithoutEffect: [String] = []
    /// `endpoint.incremental` or a `{"type": "incremental"}` param.
    package var incremental: RestIncremental?
    /// `endpoint.headers` whose values hold `{resources.…}` or `{incremental.…}`
    /// placeholders: filled per request (per parent item, from the items held), sent, and
    /// part of the label, since they may be all that tells two requests apart.
    @ComparedPairs package var headerTemplates: [(String, String)] = []
    /// `endpoint.method`: GET (dlt's default) or POST.
    package var method = "GET"
    /// `endpoint.json` or `endpoint.data`: the request body, placeholders and all until a
    /// child resource is resolved for one parent item.
    package var body: RestBody?
    /// `fetchlog.writes`: how items are created, changed and deleted upstream (issue 26).
    @ComparedByRoutes package var writes: RestWrites? = nil

    /// A resource named `name` at `/NAME`, every other field as a manifest that gives none
    /// has it (the reader sets what is given).
    init(name: String) {
        self.name = name
        path = "/" + name
    }

    /// dlt's `columns` data types and the JSON Schema types their values take.
    static let columnSchemaTypes: [String: [String]] = [
        "text": ["string"], "bigint": ["integer"], "double": ["number"], "decimal": ["number", "string"], "bool": ["boolean"],
        "timestamp": ["string"], "date": ["string"], "time": ["string"], "json": ["object", "array"], "binary": ["string"],
        "wei": ["number", "string"],
    ]

    /// What dlt names a resource whose `name` is empty (its generator function's name).
    static let dltUnnamed = "paginate_resource"

    /// The longest resource or table name: dlt sets none (a destination shortens its
    /// identifiers); names generated from OpenAPI operation ids run past 100 characters.
    /// A name is part of a view's name (`items/SOURCE/NAME`) and of command lines.
    static let maxNameLength = 255

    /// A resource's `name` or `table_name`: letters, digits, - and _, at most `maxNameLength`.
    static func checkName(_ name: String, path: String, what: String) throws(ManifestError) {
        guard name.range(of: #"^[A-Za-z0-9_-]+$"#, options: .regularExpression) != nil else {
            throw ManifestError(path: path, message: "\"\(name)\" is not \(what): letters, digits, - and _")
        }
        guard name.count <= maxNameLength else {
            throw ManifestError(path: path, message: "is not \(what): \(name.count) characters, and at most \(maxNameLength) are taken")
        }
    }

    /// The `{…}` placeholders of a path or parameter value, as written inside the braces.
    /// `{{` and `}}` are braces as text (dlt's escape, as Python's `str.format`), not one.
    static func placeholders(in text: String) -> [String] {
        var found: [String] = []
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            if chars[i] == "{" {
                if i + 1 < chars.count, chars[i + 1] == "{" { i += 2; continue }
                guard let close = chars[(i + 1)...].firstIndex(of: "}") else { break }
                found.append(String(chars[(i + 1) ..< close]))
                i = close + 1
                continue
            }
            i += chars[i] == "}" && i + 1 < chars.count && chars[i + 1] == "}" ? 2 : 1
        }
        return found
    }

    /// A path or value as sent: `{{` and `}}` become the braces they stand for.
    static func unescapeBraces(_ text: String) -> String {
        // Most paths hold no brace at all: a byte scan says so without Foundation's string
        // search, which the sync plan's label lookups (every resource, every pass) paid for.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "}") }),
              text.contains("{{") || text.contains("}}") else { return text }
        return text.replacingOccurrences(of: "{{", with: "{").replacingOccurrences(of: "}}", with: "}")
    }

    static func pathEscape(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove("/")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// `30s`, `15m`, `2h`, `1d`.
    static func duration(_ text: String) -> Duration? {
        guard let unit = text.last, let n = Int(text.dropLast()), n > 0 else { return nil }
        switch unit {
        case "s": return .seconds(n)
        case "m": return .seconds(n * 60)
        case "h": return .seconds(n * 3600)
        case "d": return .seconds(n * 86_400)
        default: return nil
        }
    }
}

/// A parent item without the field a child resource's placeholder takes.
package struct MissingParentField: Error, Sendable, Equatable {
    package let field: String
}

/// `fetchlog.links`: the values of `field` (a string or a list of them) name items of the
/// resource `to` by their field `by` — the exact (trimmed) text first, else the one item
/// whose text matches ignoring case.
package struct RestLink: Sendable, Equatable {
    package let field: String
    package let to: String
    package let by: String
}

/// `write_disposition`, as dlt names them.
package enum WriteDisposition: String, Sendable, Equatable {
    /// By primary key, newest values (Fetchlog's rule when none is given).
    case merge
    /// The latest fetch of the list replaces what was held: items of the pages fetched
    /// since its first page was last fetched.
    case replace
    /// Every item of every held page, duplicates included (no deduplication).
    case append
}

/// A `{resources.PARENT.FIELD}` placeholder as written (`resources.posts.id`) and the parent
/// field (member names) it takes.
package struct ParentPlaceholder: Sendable, Equatable {
    package var text: String
    package var field: [String]
}

/// A `response_actions` rule with `content`: a body holding the text is ignored, for the
/// given status or any.
package struct IgnoredContent: Sendable, Equatable {
    package var content: String
    package var status: Int?

    package init(content: String, status: Int?) {
        self.content = content
        self.status = status
    }
}

/// `fetchlog.writes` compared by what a manifest declares, its routes and key
/// (`ResourceWrites.same`): a `ResourceWrites` also has a plug-in's `items`, a closure that
/// has no equality, which a manifest's writes never carry.
@propertyWrapper
package struct ComparedByRoutes: Sendable, Equatable {
    package var wrappedValue: RestWrites?

    package init(wrappedValue: RestWrites?) { self.wrappedValue = wrappedValue }

    package static func == (a: Self, b: Self) -> Bool { ResourceWrites.same(a.wrappedValue, b.wrappedValue) }
}
