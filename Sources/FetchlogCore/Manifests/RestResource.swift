import Foundation

/// One resource of a manifest: where it is, how its items are found in a body, how its
/// pages follow one another, what identifies an item.
public struct RestResource: Sendable, Equatable {
    /// The resource's name: `items/SOURCE/NAME` exports its items.
    public var name: String
    /// `endpoint.path` relative to the base URL, with a leading `/`.
    public var path: String
    /// `endpoint.params`, in the order given (values as query text).
    public var params: [(String, String)]
    /// `endpoint.params` given as `env:NAME`: read at fetch time and sent after `params`,
    /// never part of the label (which every event of the resource records).
    package var secretParams: [(String, SecretValue)] = []
    /// `endpoint.data_selector`: the JSONPath to the items; nil for the body itself (`$`).
    package var dataSelector: JSONPath?
    package var paginator: RestPaginator
    /// `primary_key`: the fields identifying an item (deduplication keeps the first seen).
    public var primaryKey: [String]
    /// `endpoint.response_actions` statuses that end the list (`"action": "ignore"`).
    package var ignoredStatuses: Set<Int>
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
    package var placeholders: [(text: String, field: [String])] = []
    /// `include_from_parent`: parent fields added to each child item as `_PARENT_FIELD`.
    package var includeFromParent: [String] = []
    /// `fetchlog.links`: fields whose values name items of a resource (`by` one of its fields).
    package var links: [RestLink] = []
    /// `fetchlog.images`: fields holding image URLs (dotted paths), in fallback order.
    public var imageFields: [[String]] = []
    /// `fetchlog.durable_items`: items past this many (in list order) are fetched for this
    /// session only — the durable window; nil keeps every page.
    public var durableItems: Int?
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
    package var columnTypes: [(String, String)] = []
    /// `response_actions` with `content`: a body holding this text is ignored (the list
    /// ends there, as dlt's `ignore`), for the given status or any.
    package var ignoredContent: [(content: String, status: Int?)] = []
    /// dlt's keys accepted with no effect in Fetchlog (key paths, for `source add` to say).
    package var acceptedWithoutEffect: [String] = []
    /// `endpoint.incremental` or a `{"type": "incremental"}` param.
    package var incremental: RestIncremental?
    /// `endpoint.headers` whose values hold `{resources.…}` or `{incremental.…}`
    /// placeholders: filled per request (per parent item, from the items held), sent, and
    /// part of the label, since they may be all that tells two requests apart.
    package var headerTemplates: [(String, String)] = []
    /// `endpoint.method`: GET (dlt's default) or POST.
    package var method = "GET"
    /// `endpoint.json` or `endpoint.data`: the request body, placeholders and all until a
    /// child resource is resolved for one parent item.
    package var body: RestBody?
    /// `fetchlog.writes`: how items are created, changed and deleted upstream (issue 26).
    package var writes: RestWrites?

    /// Equal when every field read from the manifest is equal.
    public static func == (a: RestResource, b: RestResource) -> Bool {
        ResourceWrites.same(a.writes, b.writes) && a.writeDisposition == b.writeDisposition && a.selected == b.selected && a.tableName == b.tableName
            && a.parallelized == b.parallelized && a.columnTypes.elementsEqual(b.columnTypes, by: ==)
            && a.ignoredContent.elementsEqual(b.ignoredContent, by: { $0.content == $1.content && $0.status == $1.status })
            && a.acceptedWithoutEffect == b.acceptedWithoutEffect && a.incremental == b.incremental
            && a.headerTemplates.elementsEqual(b.headerTemplates, by: ==) && a.sameRequestsAndReading(b)
    }

    private func sameRequestsAndReading(_ b: RestResource) -> Bool {
        let a = self
        return a.name == b.name && a.path == b.path && a.params.elementsEqual(b.params, by: ==)
            && a.secretParams.elementsEqual(b.secretParams, by: ==) && a.dataSelector == b.dataSelector
            && a.paginator == b.paginator && a.primaryKey == b.primaryKey && a.ignoredStatuses == b.ignoredStatuses
            && a.searchFields == b.searchFields && a.facetFields == b.facetFields && a.timeToLive == b.timeToLive
            && a.parent == b.parent && a.placeholders.elementsEqual(b.placeholders, by: { $0.text == $1.text && $0.field == $1.field })
            && a.includeFromParent == b.includeFromParent && a.links == b.links && a.imageFields == b.imageFields
            && a.durableItems == b.durableItems && a.credentials == b.credentials && a.method == b.method && a.body == b.body
    }

    init(_ reader: ManifestReader, clientPaginator: RestPaginator?) throws(ManifestError) {
        try reader.allow(["name", "endpoint", "primary_key", "include_from_parent", "fetchlog"] + Self.hints + Self.hintsWithoutEffect,
                         unsupported: ["processing_steps"],
                         unsupportedNote: "is dlt's (Python callables), which a JSON manifest cannot hold: Fetchlog does not support it")
        let given = try reader.string("name")
        // An empty name is what dlt names the resource's generator: `paginate_resource`.
        name = given.isEmpty ? Self.dltUnnamed : given
        try Self.checkName(name, path: reader.path + ".name", what: "a resource name")
        var endpointJSON = reader.json["endpoint"] ?? .object([])
        if case .string(let path) = endpointJSON { endpointJSON = .object([("path", .string(path))]) }
        let endpoint = try ManifestReader(endpointJSON, path: reader.path + ".endpoint")
        guard case .object = endpoint.json else { throw ManifestError(path: endpoint.path, message: "expected an object or a path") }
        try endpoint.allow(["path", "params", "data_selector", "paginator", "response_actions", "incremental", "headers", "auth",
                            "method", "json", "data"])
        if let given = try endpoint.optionalString("method") {
            // dlt's HTTPMethodBasic: GET and POST, in either case.
            guard ["GET", "POST"].contains(given.uppercased()) else {
                throw ManifestError(path: endpoint.path + ".method", message: "\"\(given)\" is not supported: GET or POST (dlt's methods for a resource)")
            }
            method = given.uppercased()
        }
        body = try RestBody(json: endpoint.optional("json"), data: endpoint.optional("data"), at: endpoint.path)
        var path = try endpoint.optional("path").map { value throws(ManifestError) in try value.stringValue() } ?? name
        if !path.hasPrefix("/") { path = "/" + path }
        self.path = path
        if let given = try endpoint.optional("incremental") {
            incremental = try RestIncremental(given)
            acceptedWithoutEffect += incremental?.acceptedWithoutEffect ?? []
        }
        var params: [(String, String)] = []
        // dlt's older spelling of a child resource: `"id": {"type":"resolve","resource":"posts","field":"id"}`,
        // `{id}` in the path (or, absent there, a query parameter).
        var resolved: [String: (resource: String, field: String)] = [:]
        if let given = try endpoint.optional("params") {
            guard case .object(let members) = given.json else { throw ManifestError(path: given.path, message: "expected an object") }
            for (key, value) in members {
                // A secret by its name must be `env:NAME` (`ManifestSecrets`).
                switch value {
                case .string(let text):
                    let parsed = try ManifestSecrets.parameter(key, text, path: given.path + "." + key, fillsPath: path.contains("{\(key)}"))
                    if case .environment = parsed { secretParams.append((key, parsed)) } else { params.append((key, text)) }
                case .number(let text):
                    _ = try ManifestSecrets.parameter(key, text, path: given.path + "." + key, fillsPath: path.contains("{\(key)}"))
                    params.append((key, text))
                case .bool(let flag):
                    _ = try ManifestSecrets.parameter(key, flag ? "true" : "false", path: given.path + "." + key)
                    params.append((key, flag ? "true" : "false"))
                case .object where value["type"]?.stringValue == "incremental":
                    guard incremental == nil else {
                        throw ManifestError(path: given.path + "." + key, message: "a second incremental: a resource takes one")
                    }
                    incremental = try RestIncremental(param: ManifestReader(value, path: given.path + "." + key), name: key)
                case .object:
                    let resolve = try ManifestReader(value, path: given.path + "." + key)
                    try resolve.allow(["type", "resource", "field"])
                    let type = try resolve.string("type")
                    guard type == "resolve" else {
                        throw ManifestError(path: resolve.path + ".type", message: "\"\(type)\" is not supported: only resolve or incremental (or write {resources.PARENT.FIELD})")
                    }
                    resolved[key] = (try resolve.string("resource"), try resolve.string("field"))
                    // As dlt: the older spelling binds a path placeholder only.
                    guard path.contains("{\(key)}") else {
                        throw ManifestError(path: resolve.path, message: "a resolve param must be bound in the path (\(path) has no {\(key)}); "
                            + "in a query param write \"{resources.\(resolved[key]!.resource).\(resolved[key]!.field)}\"")
                    }
                default: throw ManifestError(path: given.path + "." + key, message: "expected a string, a number, a boolean or a resolve object")
                }
            }
        }
        // dlt fills a path's `{name}` from the fixed param of that name, which then leaves
        // the query (`{org}/{repo}/issues` with `params: {org, repo}`).
        for placeholder in Self.placeholders(in: path) where resolved[placeholder] == nil && !placeholder.contains(".") {
            guard let index = params.firstIndex(where: { $0.0 == placeholder && Self.placeholders(in: $0.1).isEmpty }) else { continue }
            path = path.replacingOccurrences(of: "{\(placeholder)}", with: Self.pathEscape(Self.unescapeBraces(params[index].1)))
            params.remove(at: index)
        }
        self.path = path
        self.params = params
        let bodyTexts = body.map { given in given.strings.map { ($0, endpoint.path + "." + given.key) } } ?? []
        if case .object(let headers)? = endpoint.json["headers"] {
            for (name, value) in headers {
                guard case .string(let text) = value, EndpointCredentials.isTemplate(text) else { continue }
                headerTemplates.append((name, text))
            }
        }
        // A `data` string is sent as it is, and a JSON text in it has braces of its own:
        // only `{resources.…}` there is a placeholder.
        let textBody: Bool = if case .text? = body { true } else { false }
        // Child resources: every placeholder names one field of one parent resource.
        var found: [(String, String)] = Self.placeholders(in: path).map { ($0, endpoint.path + ".path") }
        found += params.flatMap { param in Self.placeholders(in: param.1).map { ($0, endpoint.path + ".params." + param.0) } }
        found += bodyTexts.flatMap { given in
            Self.placeholders(in: given.0).filter { !textBody || $0.hasPrefix("resources.") }.map { ($0, given.1) }
        }
        found += headerTemplates.flatMap { header in Self.placeholders(in: header.1).map { ($0, endpoint.path + ".headers." + header.0) } }
        for (text, at) in found {
            // `{incremental.start_value}` and the like: filled from the items held at fetch time.
            if text.hasPrefix("incremental.") {
                guard RestIncremental.placeholders.contains(text) else {
                    throw ManifestError(path: at, message: "{\(text)} is not one of \(RestIncremental.placeholders.map { "{\($0)}" }.joined(separator: ", "))")
                }
                guard incremental != nil else { throw ManifestError(path: at, message: "{\(text)} needs an incremental (endpoint.incremental)") }
                continue
            }
            let parentName: String, field: String
            if let legacy = resolved[text] {
                (parentName, field) = legacy
            } else {
                let parts = text.split(separator: ".", maxSplits: 2).map(String.init)
                guard parts.count == 3, parts[0] == "resources", !parts[1].isEmpty, !parts[2].isEmpty else {
                    throw ManifestError(path: at, message: "{\(text)} is not a placeholder Fetchlog knows: write {resources.PARENT.FIELD}")
                }
                (parentName, field) = (parts[1], parts[2])
            }
            if let parent, parent != parentName {
                throw ManifestError(path: at, message: "{\(text)} names the parent \(parentName), but this resource already takes \(parent): one parent per resource")
            }
            parent = parentName
            if !placeholders.contains(where: { $0.text == text }) {
                placeholders.append((text, field.split(separator: ".").map(String.init)))
            }
        }
        if let include = try reader.optional("include_from_parent") {
            includeFromParent = try include.arrayValue().map { item throws(ManifestError) in try item.stringValue() }
            if parent == nil, !includeFromParent.isEmpty {
                throw ManifestError(path: include.path, message: "only a child resource (a {resources.PARENT.FIELD} placeholder in its path or params) has a parent to include from")
            }
        }
        if let selector = try endpoint.optional("data_selector") {
            let text = try selector.stringValue()
            do {
                let parsed = try JSONPath(text)
                // `$` is the whole document, as dlt reads it (not its guess without a selector).
                dataSelector = parsed
            } catch {
                throw ManifestError(path: selector.path, message: error.description)
            }
        } else {
            dataSelector = nil
        }
        paginator = try endpoint.optional("paginator").map { value throws(ManifestError) in try RestPaginator(value, path: value.path) }
            ?? clientPaginator ?? .auto
        if case .cursor(_, .body, _, _) = paginator, let body, body.key == "data" {
            // dlt writes the cursor into `json` and then refuses a request with both.
            throw ManifestError(path: endpoint.path + ".data", message: "a cursor_body_path writes the cursor into a JSON body: use json, not data")
        }
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
                try action.allow(["status_code", "action", "content"])
                let status = try action.optionalInt("status_code")
                let content = try action.optionalString("content")
                guard status != nil || content != nil else {
                    throw ManifestError(path: action.path, message: "give status_code, content or both: what the action is for")
                }
                guard case .string(let what)? = action.json["action"] else {
                    throw ManifestError(path: action.path + ".action", message: "expected \"ignore\" (dlt's actions that are Python callables have no JSON form)")
                }
                guard what == "ignore" else {
                    throw ManifestError(path: action.path + ".action", message: "\"\(what)\" is not supported: only ignore")
                }
                if let content {
                    ignoredContent.append((content, status))
                } else if let status {
                    ignored.insert(status)
                }
            }
        }
        ignoredStatuses = ignored
        try readHints(reader)
        // What dlt has no word for (Fetchlog's own block).
        if let extra = try reader.optional("fetchlog") {
            try extra.allow(["search", "facets", "ttl", "links", "images", "durable_items", "writes"])
            writes = try extra.optional("writes").map { value throws(ManifestError) in try RestWrites(value, primaryKey: primaryKey) } // issue 26
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
            if let given = try extra.optional("links") {
                guard case .object(let members) = given.json else { throw ManifestError(path: given.path, message: "expected an object: {\"FIELD\": {\"to\": RESOURCE, \"by\": FIELD}}") }
                for (field, _) in members {
                    let link = try given.object(field)
                    try link.allow(["to", "by"])
                    links.append(RestLink(field: field, to: try link.optionalString("to") ?? name, by: try link.string("by")))
                }
            }
            imageFields = try names("images").map { $0.split(separator: ".").map(String.init) }
            if let count = try extra.optionalInt("durable_items") {
                guard count >= 1 else { throw ManifestError(path: extra.path + ".durable_items", message: "must be at least 1") }
                durableItems = count
            }
        }
        try ManifestLabelLimit.check(self, endpointPath: endpoint.path)
    }

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
        guard text.contains("{{") || text.contains("}}") else { return text }
        return text.replacingOccurrences(of: "{{", with: "{").replacingOccurrences(of: "}}", with: "}")
    }

    /// This child resource for one parent item: its placeholders replaced by the item's
    /// values (as dlt formats them); nil, with the missing field, when the item lacks one.
    package func resolved(for parentItem: JSONValue) -> Result<RestResource, MissingParentField> {
        var copy = self
        copy.parent = nil
        copy.placeholders = []
        for (text, field) in placeholders {
            var value: JSONValue? = parentItem
            for key in field { value = value?[key] }
            guard let value, !value.isNull else { return .failure(MissingParentField(field: field.joined(separator: "."))) }
            let raw: String = switch value {
            case .string(let s): s
            case .bool(let b): b ? "True" : "False" // Python's str(), as dlt formats
            default: value.canonicalText()
            }
            copy.path = copy.path.replacingOccurrences(of: "{\(text)}", with: Self.pathEscape(raw))
            copy.params = copy.params.map { ($0.0, $0.1.replacingOccurrences(of: "{\(text)}", with: raw)) }
            copy.body = copy.body?.filling("{\(text)}", with: value, text: raw)
            copy.headerTemplates = copy.headerTemplates.map { ($0.0, $0.1.replacingOccurrences(of: "{\(text)}", with: raw)) }
        }
        return .success(copy)
    }

    /// The parent members a child item gains (`include_from_parent`), as dlt names them.
    package func parentMembers(of parentItem: JSONValue) -> [(String, JSONValue)] {
        guard let parent else { return [] }
        return includeFromParent.map { ("_\(parent)_\($0)", parentItem[$0] ?? .null) }
    }

    /// True when `path` (no query) is this resource's path, placeholders matching any one
    /// non-empty segment text.
    func matches(path candidate: String) -> Bool {
        guard parent != nil else { return candidate == path }
        let want = path.split(separator: "/", omittingEmptySubsequences: false)
        let have = candidate.split(separator: "/", omittingEmptySubsequences: false)
        guard want.count == have.count else { return false }
        for (w, h) in zip(want, have) {
            guard let open = w.firstIndex(of: "{"), let close = w.lastIndex(of: "}") else {
                if w != h { return false }
                continue
            }
            let prefix = w[..<open], suffix = w[w.index(after: close)...]
            guard h.count > prefix.count + suffix.count, h.hasPrefix(prefix), h.hasSuffix(suffix) else { return false }
        }
        return true
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

    /// The label of a list's first page, as `fetch` asks it.
    var firstPageLabel: String {
        switch paginator {
        case .pageNumber(let range), .offset(let range): label(range.request(at: range.first))
        default: label()
        }
    }

    /// The resource path (with `params` and paging query) as events label it; a request
    /// with a body (or another method than GET) also carries `requestSuffix`, the cursor
    /// `bodyCursor` written into its JSON body.
    package func label(extra: [(String, String)] = [], bodyCursor: JSONValue? = nil) -> String {
        var written: [([String], JSONValue)] = []
        if case .cursor(_, .body(let path), _, _) = paginator, let bodyCursor { written = [(path, bodyCursor)] }
        return label(extra: extra, body: written)
    }

    /// The label of a `page_number` or `offset` request: its query parameters, and the
    /// members it writes into the JSON body (`page_body_path`, `offset_body_path`, …).
    func label(_ request: (query: [(String, String)], body: [([String], JSONValue)])) -> String {
        label(extra: request.query, body: request.body)
    }

    private func label(extra: [(String, String)], body written: [([String], JSONValue)]) -> String {
        let query = (params + extra).map { "\($0.0)=\(Resource.queryEscape(Self.unescapeBraces($0.1)))" }.joined(separator: "&")
        let path = requestPath
        return (query.isEmpty ? path : path + "?" + query) + requestSuffix(writing: written)
    }

    /// What a label holds beyond its URL for a request that is not a plain GET:
    /// `#NAME METHOD BODY`. A label is a request's identity (the resource key its page is
    /// held under), and two pages of a POST cursor list share one URL: only the body tells
    /// them apart, so the body as sent is part of the label, canonical (a JSON body with its
    /// keys sorted) so one request always has one label. It is a fragment: never sent (the
    /// URL ends at `#`), and the resource's name first, so the label names its resource
    /// however many resources share the path (`ManifestSource.resource(ofLabel:)`).
    /// Empty for a GET without a body: such labels stay as they always were.
    package func requestSuffix(bodyCursor: JSONValue? = nil) -> String {
        var written: [([String], JSONValue)] = []
        if case .cursor(_, .body(let path), _, _) = paginator, let bodyCursor { written = [(path, bodyCursor)] }
        return requestSuffix(writing: written)
    }

    /// The suffix with `written` (a paginator's values at their body paths) set in the body.
    private func requestSuffix(writing written: [([String], JSONValue)]) -> String {
        let text = RestBody.text(body, writing: written)
        guard method != "GET" || text != nil || !headerTemplates.isEmpty else { return "" }
        return "#" + name + " " + method + (headerTemplates.isEmpty ? "" : " " + Self.headersToken(headerTemplates)) + (text.map { " " + $0 } ?? "")
    }

    /// Filled header templates in a label: `H` and their canonical JSON object,
    /// percent-encoded (no space, which ends the token).
    static func headersToken(_ headers: [(String, String)]) -> String {
        "H" + Resource.queryEscape(JSONValue.object(headers.map { ($0.0, .string(unescapeBraces($0.1))) }).canonicalText())
    }

    /// The headers a label's `H…` token holds.
    static func headers(fromToken token: Substring) -> [Header]? {
        guard token.hasPrefix("H"), let text = String(token.dropFirst()).removingPercentEncoding,
              case .object(let members)? = try? JSONValue.parse(text) else { return nil }
        return members.map { Header($0.0, $0.1.stringValue ?? $0.1.canonicalText()) }
    }

    /// `path` as asked (escaped braces as braces).
    var requestPath: String { Self.unescapeBraces(path) }
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

extension RestResource {
    /// dlt's resource hints Fetchlog acts on.
    static let hints = ["write_disposition", "selected", "table_name", "parallelized", "columns"]
    /// dlt's hints for its destination tables: accepted, said to have no effect.
    static let hintsWithoutEffect = ["max_table_nesting", "merge_key", "schema_contract", "table_format", "file_format",
                                     "references", "nested_hints"]
    /// dlt's `columns` data types and the JSON Schema types their values take.
    static let columnSchemaTypes: [String: [String]] = [
        "text": ["string"], "bigint": ["integer"], "double": ["number"], "decimal": ["number", "string"], "bool": ["boolean"],
        "timestamp": ["string"], "date": ["string"], "time": ["string"], "json": ["object", "array"], "binary": ["string"],
        "wei": ["number", "string"],
    ]

    mutating func readHints(_ reader: ManifestReader) throws(ManifestError) {
        switch reader.json["write_disposition"] {
        case nil, .null?: break
        case .string(let text)?:
            guard let disposition = WriteDisposition(rawValue: text) else {
                throw ManifestError(path: reader.path + ".write_disposition", message: "\"\(text)\" is not one of append, replace, merge")
            }
            writeDisposition = disposition
        case .object?:
            let given = try reader.object("write_disposition")
            try given.allow(["disposition", "strategy"])
            let text = try given.string("disposition")
            guard let disposition = WriteDisposition(rawValue: text) else {
                throw ManifestError(path: given.path + ".disposition", message: "\"\(text)\" is not one of append, replace, merge")
            }
            writeDisposition = disposition
            if given.json["strategy"] != nil { acceptedWithoutEffect.append(given.path + ".strategy") }
        default:
            throw ManifestError(path: reader.path + ".write_disposition", message: "expected append, replace, merge or {\"disposition\": …}")
        }
        selected = try reader.optionalBool("selected") ?? true
        parallelized = try reader.optionalBool("parallelized") ?? false
        // An empty `table_name` is none, as in dlt (the table is the resource's name).
        if let table = try reader.optionalString("table_name"), !table.isEmpty {
            try RestResource.checkName(table, path: reader.path + ".table_name", what: "a view name Fetchlog takes")
            tableName = table
        }
        if let columns = try reader.optional("columns") {
            guard case .object(let members) = columns.json else {
                throw ManifestError(path: columns.path, message: "expected an object: {\"COLUMN\": {\"data_type\": …}}")
            }
            for (name, value) in members {
                guard case .object = value else { throw ManifestError(path: columns.path + "." + name, message: "expected an object with data_type") }
                guard let type = value["data_type"]?.stringValue else { continue } // other column hints: nullable, …
                guard Self.columnSchemaTypes[type] != nil else {
                    throw ManifestError(path: columns.path + "." + name + ".data_type",
                                        message: "\"\(type)\" is not one of dlt's data types: \(Self.columnSchemaTypes.keys.sorted().joined(separator: ", "))")
                }
                columnTypes.append((name, type))
            }
        }
        for key in Self.hintsWithoutEffect where reader.json[key] != nil { acceptedWithoutEffect.append(reader.path + "." + key) }
    }
}
