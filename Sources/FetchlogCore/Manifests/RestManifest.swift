/// A REST API described declaratively, in the JSON form of dlt's `rest_api` config (a user
/// can paste theirs): a client (`base_url`, `paginator`), `resource_defaults` merged into
/// every resource as dlt merges them, and `resources` (names, or objects with an `endpoint`,
/// a `primary_key`).
///
/// Parsing refuses anything it does not understand, naming the key path and what is
/// allowed (`resources[2].endpoint.paginator.type: "pages" is not one of page_number, …`);
/// dlt keys Fetchlog does not implement yet are refused as such, never silently ignored.
public struct RestManifest: Sendable, Equatable {
    /// The source's name: events' `source`, the `--upstream BASE/<name>` prefix.
    public var name: String
    /// `client.base_url`, without a trailing slash.
    public var baseURL: String
    public var resources: [RestResource]
    /// `client.headers`: sent with every request (values may be `env:NAME` secrets).
    public var headers: [(String, SecretValue)]
    /// `client.auth`.
    public var auth: RestAuth?
    /// The document as given (its canonical text is what `source.defined` records).
    public let json: JSONValue

    /// Parses and validates a manifest document. `name` is the top-level `name` member, a
    /// Fetchlog addition (dlt names a source in Python).
    public init(json: JSONValue) throws(ManifestError) {
        self.json = json
        let root = try ManifestReader(json, path: "")
        try root.allow(["name", "client", "resource_defaults", "resources"],
                       unsupported: ["sources", "dependencies"])
        name = try root.string("name")
        guard name.range(of: #"^[a-z][a-z0-9_-]{0,39}$"#, options: .regularExpression) != nil else {
            throw ManifestError(path: "name", message: "\"\(name)\" is not a source name: lowercase letters, digits, - and _, starting with a letter, at most 40")
        }
        let client = try root.object("client")
        try client.allow(["base_url", "paginator", "headers", "auth"], unsupported: ["session"])
        var base = try client.string("base_url")
        guard base.hasPrefix("http://") || base.hasPrefix("https://") else {
            throw ManifestError(path: "client.base_url", message: "\"\(base)\" is not an http(s) URL")
        }
        while base.hasSuffix("/") { base.removeLast() }
        baseURL = base
        var headers: [(String, SecretValue)] = []
        if let given = try client.optional("headers") {
            guard case .object(let members) = given.json else { throw ManifestError(path: given.path, message: "expected an object") }
            for (name, value) in members {
                guard case .string(let text) = value else { throw ManifestError(path: given.path + "." + name, message: "expected a string") }
                headers.append((name, SecretValue(text)))
            }
        }
        self.headers = headers
        auth = try client.optional("auth").map { value throws(ManifestError) in try RestAuth(value) }
        let clientPaginator = try client.optional("paginator").map { value throws(ManifestError) in try RestPaginator(value, path: "client.paginator") }
        let defaults = try root.optional("resource_defaults")
        if let defaults, case .object = defaults.json {} else if let defaults {
            throw ManifestError(path: defaults.path, message: "expected an object")
        }
        let list = try root.array("resources")
        guard !list.isEmpty else { throw ManifestError(path: "resources", message: "lists no resource") }
        var resources: [RestResource] = []
        for item in list {
            var json = item.json
            if case .string(let name) = json { json = .object([("name", .string(name))]) }
            if let defaults { json = Self.merge(defaults.json, json) }
            let resource = try RestResource(ManifestReader(json, path: item.path), clientPaginator: clientPaginator)
            if resources.contains(where: { $0.name == resource.name }) {
                throw ManifestError(path: item.path + ".name", message: "\"\(resource.name)\" names two resources")
            }
            resources.append(resource)
        }
        self.resources = resources
    }

    /// `defaults` with `value` over it, objects merged member by member (dlt's merge).
    static func merge(_ defaults: JSONValue, _ value: JSONValue) -> JSONValue {
        guard case .object(let base) = defaults, case .object(let over) = value else { return value }
        var members = base
        for (key, member) in over {
            if let index = members.firstIndex(where: { $0.0 == key }) {
                members[index].1 = merge(members[index].1, member)
            } else {
                members.append((key, member))
            }
        }
        return .object(members)
    }

    public func resource(_ name: String) -> RestResource? { resources.first { $0.name == name } }

    public static func == (a: RestManifest, b: RestManifest) -> Bool { a.json == b.json }
}

/// A value in a manifest that may be a secret: `env:NAME` is read from the environment at
/// fetch time and never written anywhere; anything else is the value itself.
public enum SecretValue: Sendable, Equatable {
    case literal(String)
    case environment(String)

    init(_ text: String) { self = text.hasPrefix("env:") ? .environment(String(text.dropFirst(4))) : .literal(text) }

    var isSecret: Bool { if case .environment = self { true } else { false } }

    func resolve(_ environment: [String: String], at path: String) throws(CredentialsError) -> String {
        switch self {
        case .literal(let value): return value
        case .environment(let name):
            guard let value = environment[name], !value.isEmpty else {
                throw CredentialsError("\(path) reads the environment variable \(name), which is not set: set it and fetch again")
            }
            return value
        }
    }
}

/// `client.auth`, as dlt spells it. Every secret must be `env:NAME`: a literal one would be
/// stored in the log with the manifest.
public enum RestAuth: Sendable, Equatable {
    case bearer(token: SecretValue)
    case apiKey(name: String, key: SecretValue, inQuery: Bool)
    case httpBasic(username: String, password: SecretValue)

    init(_ reader: ManifestReader) throws(ManifestError) {
        let type = try reader.string("type")
        func secret(_ key: String) throws(ManifestError) -> SecretValue {
            let value = SecretValue(try reader.string(key))
            guard value.isSecret else {
                throw ManifestError(path: reader.path + "." + key, message: "write \"env:NAME\" and set NAME in the environment: a literal secret would be stored in the log with the manifest")
            }
            return value
        }
        switch type {
        case "bearer":
            try reader.allow(["type", "token"])
            self = .bearer(token: try secret("token"))
        case "api_key":
            try reader.allow(["type", "name", "api_key", "location"])
            let location = try reader.optionalString("location") ?? "header"
            guard ["header", "query"].contains(location) else {
                throw ManifestError(path: reader.path + ".location", message: "\"\(location)\" is not one of header, query")
            }
            self = .apiKey(name: try reader.optionalString("name") ?? "Authorization", key: try secret("api_key"), inQuery: location == "query")
        case "http_basic":
            try reader.allow(["type", "username", "password"])
            self = .httpBasic(username: try reader.string("username"), password: try secret("password"))
        default:
            throw ManifestError(path: reader.path + ".type", message: "\"\(type)\" is not one of bearer, api_key, http_basic")
        }
    }
}

/// One resource of a manifest: where it is, how its items are found in a body, how its
/// pages follow one another, what identifies an item.
public struct RestResource: Sendable, Equatable {
    public var name: String
    /// `endpoint.path` relative to the base URL, with a leading `/`.
    public var path: String
    /// `endpoint.params`, in the order given (values as query text).
    public var params: [(String, String)]
    /// `endpoint.data_selector`: dotted path to the items; nil for the body itself (`$`).
    public var dataSelector: [String]?
    public var paginator: RestPaginator
    /// `primary_key`: the fields identifying an item (deduplication keeps the first seen).
    public var primaryKey: [String]
    /// `endpoint.response_actions` statuses that end the list (`"action": "ignore"`).
    public var ignoredStatuses: Set<Int>
    /// `fetchlog.search`: the fields `items … TEXT` searches (empty: every field).
    public var searchFields: [String] = []
    /// `fetchlog.facets`: fields whose values (or numeric ranges) are derived from the data.
    public var facetFields: [String] = []
    /// `fetchlog.ttl`: how long a held page counts as current (`15m`, `2h`, `1d`, `30s`).
    public var timeToLive: Duration?

    public static func == (a: RestResource, b: RestResource) -> Bool {
        a.name == b.name && a.path == b.path && a.params.elementsEqual(b.params, by: ==) && a.dataSelector == b.dataSelector
            && a.paginator == b.paginator && a.primaryKey == b.primaryKey && a.ignoredStatuses == b.ignoredStatuses
            && a.searchFields == b.searchFields && a.facetFields == b.facetFields && a.timeToLive == b.timeToLive
    }

    init(_ reader: ManifestReader, clientPaginator: RestPaginator?) throws(ManifestError) {
        try reader.allow(["name", "endpoint", "primary_key", "fetchlog"],
                         unsupported: ["include_from_parent", "write_disposition", "selected", "table_name", "max_table_nesting",
                                       "processing_steps", "columns", "merge_key", "schema_contract", "table_format"])
        name = try reader.string("name")
        guard name.range(of: #"^[A-Za-z0-9_-]{1,64}$"#, options: .regularExpression) != nil else {
            throw ManifestError(path: reader.path + ".name", message: "\"\(name)\" is not a resource name: letters, digits, - and _")
        }
        var endpointJSON = reader.json["endpoint"] ?? .object([])
        if case .string(let path) = endpointJSON { endpointJSON = .object([("path", .string(path))]) }
        let endpoint = try ManifestReader(endpointJSON, path: reader.path + ".endpoint")
        guard case .object = endpoint.json else { throw ManifestError(path: endpoint.path, message: "expected an object or a path") }
        try endpoint.allow(["path", "params", "data_selector", "paginator", "response_actions"],
                           unsupported: ["method", "json", "incremental", "auth", "headers"])
        var path = try endpoint.optional("path").map { value throws(ManifestError) in try value.stringValue() } ?? name
        if path.contains("{") {
            throw ManifestError(path: endpoint.path + ".path", message: "placeholders (child resources) are not supported yet")
        }
        if !path.hasPrefix("/") { path = "/" + path }
        self.path = path
        var params: [(String, String)] = []
        if let given = try endpoint.optional("params") {
            guard case .object(let members) = given.json else { throw ManifestError(path: given.path, message: "expected an object") }
            for (key, value) in members {
                switch value {
                case .string(let text): params.append((key, text))
                case .number(let text): params.append((key, text))
                case .bool(let flag): params.append((key, flag ? "true" : "false"))
                default: throw ManifestError(path: given.path + "." + key, message: "expected a string, a number or a boolean")
                }
            }
        }
        self.params = params
        if let selector = try endpoint.optional("data_selector") {
            let text = try selector.stringValue()
            let trimmed = text.hasPrefix("$.") ? String(text.dropFirst(2)) : text
            if trimmed == "$" || trimmed.isEmpty {
                dataSelector = nil
            } else {
                let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                guard parts.allSatisfy({ !$0.isEmpty && !$0.contains("[") && !$0.contains("*") }) else {
                    throw ManifestError(path: selector.path, message: "\"\(text)\" is not a dotted path (data, results.items or $)")
                }
                dataSelector = parts
            }
        } else {
            dataSelector = nil
        }
        paginator = try endpoint.optional("paginator").map { value throws(ManifestError) in try RestPaginator(value, path: value.path) }
            ?? clientPaginator ?? .auto
        switch reader.json["primary_key"] {
        case nil: primaryKey = []
        case .string(let key)?: primaryKey = [key]
        case .array(let keys)?:
            primaryKey = try keys.enumerated().map { (index, key) throws(ManifestError) in
                guard let text = key.stringValue else { throw ManifestError(path: reader.path + ".primary_key[\(index)]", message: "expected a field name") }
                return text
            }
        default: throw ManifestError(path: reader.path + ".primary_key", message: "expected a field name or a list of them")
        }
        var ignored = Set<Int>()
        if let actions = try endpoint.optional("response_actions") {
            for action in try actions.arrayValue() {
                try action.allow(["status_code", "action"], unsupported: ["content"])
                let status = try action.int("status_code")
                let what = try action.string("action")
                guard what == "ignore" else {
                    throw ManifestError(path: action.path + ".action", message: "\"\(what)\" is not supported: only ignore")
                }
                ignored.insert(status)
            }
        }
        ignoredStatuses = ignored
        // What dlt has no word for (Fetchlog's own block).
        if let extra = try reader.optional("fetchlog") {
            try extra.allow(["search", "facets", "ttl"], unsupported: ["links", "images", "durable_items"], unsupportedNote: "is not supported yet")
            func names(_ key: String) throws(ManifestError) -> [String] {
                guard let list = try extra.optional(key) else { return [] }
                return try list.arrayValue().map { item throws(ManifestError) in try item.stringValue() }
            }
            searchFields = try names("search")
            facetFields = try names("facets")
            if let ttl = try extra.optionalString("ttl") {
                guard let duration = Self.duration(ttl) else {
                    throw ManifestError(path: extra.path + ".ttl", message: "\"\(ttl)\" is not a duration: a number and s, m, h or d (15m)")
                }
                timeToLive = duration
            }
        }
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

    /// The resource path (with `params` and paging query) as events label it.
    public func label(extra: [(String, String)] = []) -> String {
        let query = (params + extra).map { "\($0.0)=\(Resource.queryEscape($0.1))" }.joined(separator: "&")
        return query.isEmpty ? path : path + "?" + query
    }
}

/// How the pages of a resource follow one another — dlt's paginators, with dlt's
/// parameters and defaults.
public enum RestPaginator: Sendable, Equatable {
    case singlePage
    /// dlt's default when none is given: follow a `Link: <…>; rel="next"` header or a
    /// `next` URL in the body, else a single page.
    case auto
    case pageNumber(basePage: Int, page: Int?, pageParam: String, totalPath: [String]?, maximumPage: Int?, stopAfterEmptyPage: Bool)
    case offset(limit: Int, offset: Int, offsetParam: String, limitParam: String, totalPath: [String]?, maximumOffset: Int?, stopAfterEmptyPage: Bool)
    case jsonLink(nextURLPath: [String])
    case headerLink
    case cursor(cursorPath: [String], cursorParam: String)

    static let types = ["single_page", "page_number", "offset", "json_link", "header_link", "cursor", "auto"]

    init(_ reader: ManifestReader, path: String) throws(ManifestError) {
        var json = reader.json
        if case .string(let type) = json { json = .object([("type", .string(type))]) }
        let reader = try ManifestReader(json, path: path)
        guard case .object = json else { throw ManifestError(path: path, message: "expected an object or a paginator type") }
        let type = try reader.string("type")
        func dotted(_ text: String?) -> [String]? { text.map { $0.split(separator: ".").map(String.init) } }
        switch type {
        case "single_page":
            try reader.allow(["type"])
            self = .singlePage
        case "auto":
            try reader.allow(["type"])
            self = .auto
        case "page_number":
            try reader.allow(["type", "base_page", "page", "page_param", "total_path", "maximum_page", "stop_after_empty_page"])
            let totalPath = reader.json["total_path"].map { $0.isNull ? nil : $0.stringValue } ?? "total"
            self = .pageNumber(basePage: try reader.optionalInt("base_page") ?? 0, page: try reader.optionalInt("page"),
                               pageParam: try reader.optionalString("page_param") ?? "page", totalPath: dotted(totalPath),
                               maximumPage: try reader.optionalInt("maximum_page"),
                               stopAfterEmptyPage: try reader.optionalBool("stop_after_empty_page") ?? true)
        case "offset":
            try reader.allow(["type", "limit", "offset", "offset_param", "limit_param", "total_path", "maximum_offset", "stop_after_empty_page"])
            let totalPath = reader.json["total_path"].map { $0.isNull ? nil : $0.stringValue } ?? "total"
            let limit = try reader.int("limit")
            guard limit > 0 else { throw ManifestError(path: path + ".limit", message: "must be at least 1") }
            self = .offset(limit: limit, offset: try reader.optionalInt("offset") ?? 0,
                           offsetParam: try reader.optionalString("offset_param") ?? "offset",
                           limitParam: try reader.optionalString("limit_param") ?? "limit", totalPath: dotted(totalPath),
                           maximumOffset: try reader.optionalInt("maximum_offset"),
                           stopAfterEmptyPage: try reader.optionalBool("stop_after_empty_page") ?? true)
        case "json_link":
            try reader.allow(["type", "next_url_path"])
            self = .jsonLink(nextURLPath: dotted(try reader.optionalString("next_url_path") ?? "next")!)
        case "header_link":
            try reader.allow(["type", "links_next_key"])
            if let key = try reader.optionalString("links_next_key"), key != "next" {
                throw ManifestError(path: path + ".links_next_key", message: "only next is supported")
            }
            self = .headerLink
        case "cursor":
            try reader.allow(["type", "cursor_path", "cursor_param"])
            self = .cursor(cursorPath: dotted(try reader.optionalString("cursor_path") ?? "cursors.next")!,
                           cursorParam: try reader.optionalString("cursor_param") ?? "cursor")
        default:
            throw ManifestError(path: path + ".type", message: "\"\(type)\" is not one of \(Self.types.joined(separator: ", "))")
        }
    }
}

/// A manifest that cannot be used: where (`resources[2].endpoint.paginator.type`) and why.
public struct ManifestError: Error, Equatable, Sendable, CustomStringConvertible {
    public let path: String
    public let message: String
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// Reads one object of a manifest, naming the key path in every error.
struct ManifestReader {
    let json: JSONValue
    let path: String

    init(_ json: JSONValue, path: String) throws(ManifestError) {
        self.json = json
        self.path = path
    }

    private func child(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// Refuses members outside `allowed`; `unsupported` ones (dlt's, not implemented yet)
    /// say so.
    func allow(_ allowed: [String], unsupported: [String] = [], unsupportedNote: String = "is dlt's, but not supported by Fetchlog yet") throws(ManifestError) {
        guard case .object(let members) = json else { throw ManifestError(path: path, message: "expected an object") }
        for (key, _) in members where !allowed.contains(key) {
            if unsupported.contains(key) {
                throw ManifestError(path: child(key), message: unsupportedNote)
            }
            throw ManifestError(path: child(key), message: "unknown key\(Suggest.didYouMean(key, allowed)); allowed: \(allowed.joined(separator: ", "))")
        }
    }

    func optional(_ key: String) throws(ManifestError) -> ManifestReader? {
        guard let value = json[key], !value.isNull else { return nil }
        return try ManifestReader(value, path: child(key))
    }

    func object(_ key: String) throws(ManifestError) -> ManifestReader {
        guard let value = json[key] else { throw ManifestError(path: child(key), message: "is required") }
        guard case .object = value else { throw ManifestError(path: child(key), message: "expected an object") }
        return try ManifestReader(value, path: child(key))
    }

    func array(_ key: String) throws(ManifestError) -> [ManifestReader] {
        guard let value = json[key] else { throw ManifestError(path: child(key), message: "is required") }
        return try ManifestReader(value, path: child(key)).arrayValue()
    }

    func arrayValue() throws(ManifestError) -> [ManifestReader] {
        guard case .array(let items) = json else { throw ManifestError(path: path, message: "expected a list") }
        var readers: [ManifestReader] = []
        for (index, item) in items.enumerated() { readers.append(try ManifestReader(item, path: path + "[\(index)]")) }
        return readers
    }

    func stringValue() throws(ManifestError) -> String {
        guard case .string(let text) = json else { throw ManifestError(path: path, message: "expected a string") }
        return text
    }

    func string(_ key: String) throws(ManifestError) -> String {
        guard let value = json[key] else { throw ManifestError(path: child(key), message: "is required") }
        guard case .string(let text) = value else { throw ManifestError(path: child(key), message: "expected a string") }
        return text
    }

    func optionalString(_ key: String) throws(ManifestError) -> String? {
        guard let value = json[key], !value.isNull else { return nil }
        guard case .string(let text) = value else { throw ManifestError(path: child(key), message: "expected a string") }
        return text
    }

    func int(_ key: String) throws(ManifestError) -> Int {
        guard let value = json[key] else { throw ManifestError(path: child(key), message: "is required") }
        guard case .number = value, let n = value.intValue else { throw ManifestError(path: child(key), message: "expected a whole number") }
        return n
    }

    func optionalInt(_ key: String) throws(ManifestError) -> Int? {
        guard let value = json[key], !value.isNull else { return nil }
        guard case .number = value, let n = value.intValue else { throw ManifestError(path: child(key), message: "expected a whole number") }
        return n
    }

    func optionalBool(_ key: String) throws(ManifestError) -> Bool? {
        guard let value = json[key], !value.isNull else { return nil }
        guard case .bool(let flag) = value else { throw ManifestError(path: child(key), message: "expected true or false") }
        return flag
    }
}
