/// Reads one resource of a manifest (dlt's `resources[i]`, `resource_defaults` merged in)
/// into a `RestResource`: dlt's keys with dlt's meaning, Fetchlog's own under `fetchlog`,
/// each error naming the key path. The steps run in the order the keys depend on one
/// another (a param may fill the path; a placeholder needs the params, the body and the
/// incremental; writes need the primary key), which is also the order errors are found in.
struct RestResourceReader {
    let reader: ManifestReader
    /// `client.paginator`: the resource's when its endpoint names none.
    let clientPaginator: RestPaginator?

    /// dlt's resource hints Fetchlog acts on.
    static let hints = ["write_disposition", "selected", "table_name", "parallelized", "columns"]
    /// dlt's hints for its destination tables: accepted, said to have no effect.
    static let hintsWithoutEffect = ["max_table_nesting", "merge_key", "schema_contract", "table_format", "file_format",
                                     "references", "nested_hints"]

    /// dlt's older spelling of a child resource, by param name: `"id": {"type": "resolve",
    /// "resource": "posts", "field": "id"}` with `{id}` in the path.
    private typealias Resolves = [String: (resource: String, field: String)]

    /// The resource `reader` holds.
    func read() throws(ManifestError) -> RestResource {
        try reader.allow(["name", "endpoint", "primary_key", "include_from_parent", "fetchlog"] + Self.hints + Self.hintsWithoutEffect,
                         unsupported: ["processing_steps"],
                         unsupportedNote: "is dlt's (Python callables), which a JSON manifest cannot hold: Fetchlog does not support it")
        let given = try reader.string("name")
        // An empty name is what dlt names the resource's generator: `paginate_resource`.
        var resource = RestResource(name: given.isEmpty ? RestResource.dltUnnamed : given)
        try RestResource.checkName(resource.name, path: reader.path + ".name", what: "a resource name")
        var endpointJSON = reader.json["endpoint"] ?? .object([])
        if case .string(let path) = endpointJSON { endpointJSON = .object([("path", .string(path))]) }
        let endpoint = try ManifestReader(endpointJSON, path: reader.path + ".endpoint")
        guard case .object = endpoint.json else { throw ManifestError(path: endpoint.path, message: "expected an object or a path") }
        try endpoint.allow(["path", "params", "data_selector", "paginator", "response_actions", "incremental", "headers", "auth",
                            "method", "json", "data"])
        let resolves = try readRequest(endpoint, into: &resource)
        try readParent(endpoint, resolves: resolves, into: &resource)
        try readAnswers(endpoint, into: &resource)
        try readHints(into: &resource)
        try readFetchlog(into: &resource)
        try ManifestLabelLimit.check(resource, endpointPath: endpoint.path)
        return resource
    }

    /// What a request is made of: method, body, path, incremental, params (a path's
    /// `{name}` filled from the fixed param of that name), header templates.
    private func readRequest(_ endpoint: ManifestReader, into resource: inout RestResource) throws(ManifestError) -> Resolves {
        if let given = try endpoint.optionalString("method") {
            // dlt's HTTPMethodBasic: GET and POST, in either case.
            guard ["GET", "POST"].contains(given.uppercased()) else {
                throw ManifestError(path: endpoint.path + ".method", message: "\"\(given)\" is not supported: GET or POST (dlt's methods for a resource)")
            }
            resource.method = given.uppercased()
        }
        resource.body = try RestBody(json: endpoint.optional("json"), data: endpoint.optional("data"), at: endpoint.path)
        var path = try endpoint.optional("path").map { value throws(ManifestError) in try value.stringValue() } ?? resource.name
        if !path.hasPrefix("/") { path = "/" + path }
        resource.path = path
        if let given = try endpoint.optional("incremental") {
            resource.incremental = try RestIncremental(given)
            resource.acceptedWithoutEffect += resource.incremental?.acceptedWithoutEffect ?? []
        }
        let resolves = try readParams(endpoint, into: &resource)
        // dlt fills a path's `{name}` from the fixed param of that name, which then leaves
        // the query (`{org}/{repo}/issues` with `params: {org, repo}`).
        for placeholder in RestResource.placeholders(in: path) where resolves[placeholder] == nil && !placeholder.contains(".") {
            guard let index = resource.params.firstIndex(where: { $0.0 == placeholder && RestResource.placeholders(in: $0.1).isEmpty }) else { continue }
            path = path.replacingOccurrences(of: "{\(placeholder)}", with: RestResource.pathEscape(RestResource.unescapeBraces(resource.params[index].1)))
            resource.params.remove(at: index)
        }
        resource.path = path
        if case .object(let headers)? = endpoint.json["headers"] {
            for (name, value) in headers {
                guard case .string(let text) = value, EndpointCredentials.isTemplate(text) else { continue }
                resource.headerTemplates.append((name, text))
            }
        }
        return resolves
    }

    /// `endpoint.params`: fixed values, secrets by name (`env:NAME`, `ManifestSecrets`), an
    /// incremental, and dlt's older resolve objects (returned).
    private func readParams(_ endpoint: ManifestReader, into resource: inout RestResource) throws(ManifestError) -> Resolves {
        var resolves: Resolves = [:]
        guard let given = try endpoint.optional("params") else { return resolves }
        guard case .object(let members) = given.json else { throw ManifestError(path: given.path, message: "expected an object") }
        let path = resource.path
        for (key, value) in members {
            let at = given.path + "." + key
            switch value {
            case .string(let text):
                let parsed = try ManifestSecrets.parameter(key, text, path: at, fillsPath: path.contains("{\(key)}"))
                if case .environment = parsed { resource.secretParams.append((key, parsed)) } else { resource.params.append((key, text)) }
            case .number(let text):
                _ = try ManifestSecrets.parameter(key, text, path: at, fillsPath: path.contains("{\(key)}"))
                resource.params.append((key, text))
            case .bool(let flag):
                _ = try ManifestSecrets.parameter(key, flag ? "true" : "false", path: at)
                resource.params.append((key, flag ? "true" : "false"))
            case .object where value["type"]?.stringValue == "incremental":
                guard resource.incremental == nil else { throw ManifestError(path: at, message: "a second incremental: a resource takes one") }
                resource.incremental = try RestIncremental(param: ManifestReader(value, path: at), name: key)
            case .object:
                let resolve = try ManifestReader(value, path: at)
                try resolve.allow(["type", "resource", "field"])
                let type = try resolve.string("type")
                guard type == "resolve" else {
                    throw ManifestError(path: resolve.path + ".type", message: "\"\(type)\" is not supported: only resolve or incremental (or write {resources.PARENT.FIELD})")
                }
                let parent = (resource: try resolve.string("resource"), field: try resolve.string("field"))
                resolves[key] = parent
                // As dlt: the older spelling binds a path placeholder only.
                guard path.contains("{\(key)}") else {
                    throw ManifestError(path: resolve.path, message: "a resolve param must be bound in the path (\(path) has no {\(key)}); "
                        + "in a query param write \"{resources.\(parent.resource).\(parent.field)}\"")
                }
            default: throw ManifestError(path: at, message: "expected a string, a number, a boolean or a resolve object")
            }
        }
        return resolves
    }

    /// A child resource's parent: every `{resources.PARENT.FIELD}` placeholder (or older
    /// resolve param) in the path, params, body and header templates names one field of
    /// one parent; `{incremental.…}` ones are filled at fetch time. Then
    /// `include_from_parent`.
    private func readParent(_ endpoint: ManifestReader, resolves: Resolves, into resource: inout RestResource) throws(ManifestError) {
        let bodyTexts = resource.body.map { given in given.strings.map { ($0, endpoint.path + "." + given.key) } } ?? []
        // A `data` string is sent as it is, and a JSON text in it has braces of its own:
        // only `{resources.…}` there is a placeholder.
        let textBody: Bool = if case .text? = resource.body { true } else { false }
        var found: [(String, String)] = RestResource.placeholders(in: resource.path).map { ($0, endpoint.path + ".path") }
        found += resource.params.flatMap { param in RestResource.placeholders(in: param.1).map { ($0, endpoint.path + ".params." + param.0) } }
        found += bodyTexts.flatMap { given in
            RestResource.placeholders(in: given.0).filter { !textBody || $0.hasPrefix("resources.") }.map { ($0, given.1) }
        }
        found += resource.headerTemplates.flatMap { header in
            RestResource.placeholders(in: header.1).map { ($0, endpoint.path + ".headers." + header.0) }
        }
        for (text, at) in found {
            // `{incremental.start_value}` and the like: filled from the items held at fetch time.
            if text.hasPrefix("incremental.") {
                guard RestIncremental.placeholders.contains(text) else {
                    throw ManifestError(path: at, message: "{\(text)} is not one of \(RestIncremental.placeholders.map { "{\($0)}" }.joined(separator: ", "))")
                }
                guard resource.incremental != nil else { throw ManifestError(path: at, message: "{\(text)} needs an incremental (endpoint.incremental)") }
                continue
            }
            let parentName: String, field: String
            if let legacy = resolves[text] {
                (parentName, field) = legacy
            } else {
                let parts = text.split(separator: ".", maxSplits: 2).map(String.init)
                guard parts.count == 3, parts[0] == "resources", !parts[1].isEmpty, !parts[2].isEmpty else {
                    throw ManifestError(path: at, message: "{\(text)} is not a placeholder Fetchlog knows: write {resources.PARENT.FIELD}")
                }
                (parentName, field) = (parts[1], parts[2])
            }
            if let parent = resource.parent, parent != parentName {
                throw ManifestError(path: at, message: "{\(text)} names the parent \(parentName), but this resource already takes \(parent): one parent per resource")
            }
            resource.parent = parentName
            if !resource.placeholders.contains(where: { $0.text == text }) {
                resource.placeholders.append(ParentPlaceholder(text: text, field: field.split(separator: ".").map(String.init)))
            }
        }
        if let include = try reader.optional("include_from_parent") {
            resource.includeFromParent = try include.arrayValue().map { item throws(ManifestError) in try item.stringValue() }
            if resource.parent == nil, !resource.includeFromParent.isEmpty {
                throw ManifestError(path: include.path, message: "only a child resource (a {resources.PARENT.FIELD} placeholder in its path or params) has a parent to include from")
            }
        }
    }

    /// How answers are read: `data_selector`, the paginator, `primary_key`, and the
    /// `response_actions` that end a list.
    private func readAnswers(_ endpoint: ManifestReader, into resource: inout RestResource) throws(ManifestError) {
        if let selector = try endpoint.optional("data_selector") {
            let text = try selector.stringValue()
            // `$` is the whole document, as dlt reads it (not its guess without a selector).
            do { resource.dataSelector = try JSONPath(text) } catch { throw ManifestError(path: selector.path, message: error.description) }
        }
        resource.paginator = try endpoint.optional("paginator").map { value throws(ManifestError) in try RestPaginator(value, path: value.path) }
            ?? clientPaginator ?? .auto
        if case .cursor(let cursor) = resource.paginator, cursor.writesBody, resource.body?.key == "data" {
            // dlt writes the cursor into `json` and then refuses a request with both.
            throw ManifestError(path: endpoint.path + ".data", message: "a cursor_body_path writes the cursor into a JSON body: use json, not data")
        }
        switch reader.json["primary_key"] {
        case nil: break
        case .string(let key)?: resource.primaryKey = [key]
        case .array(let keys)?:
            resource.primaryKey = try keys.enumerated().map { (index, key) throws(ManifestError) in
                guard let text = key.stringValue else { throw ManifestError(path: reader.path + ".primary_key[\(index)]", message: "expected a field name") }
                return text
            }
        default: throw ManifestError(path: reader.path + ".primary_key", message: "expected a field name or a list of them")
        }
        guard let actions = try endpoint.optional("response_actions") else { return }
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
                resource.ignoredContent.append(IgnoredContent(content: content, status: status))
            } else if let status {
                resource.ignoredStatuses.insert(status)
            }
        }
    }

    /// What dlt has no word for (Fetchlog's own block, `fetchlog`).
    private func readFetchlog(into resource: inout RestResource) throws(ManifestError) {
        guard let extra = try reader.optional("fetchlog") else { return }
        try extra.allow(["search", "facets", "ttl", "links", "images", "durable_items", "keep_no_store", "writes"])
        let primaryKey = resource.primaryKey
        resource.writes = try extra.optional("writes").flatMap { value throws(ManifestError) in // issue 26
            try RestWrites.onlyIdempotencyKey(value) ? nil : try RestWrites(value, primaryKey: primaryKey)
        }
        func names(_ key: String) throws(ManifestError) -> [String] {
            guard let list = try extra.optional(key) else { return [] }
            return try list.arrayValue().map { item throws(ManifestError) in try item.stringValue() }
        }
        resource.searchFields = try names("search")
        resource.facetFields = try names("facets")
        if let ttl = try extra.optionalString("ttl") {
            guard let duration = RestResource.duration(ttl) else {
                throw ManifestError(path: extra.path + ".ttl", message: "\"\(ttl)\" is not a duration: a number and s, m, h or d (15m)")
            }
            resource.timeToLive = duration
        }
        if let given = try extra.optional("links") {
            guard case .object(let members) = given.json else { throw ManifestError(path: given.path, message: "expected an object: {\"FIELD\": {\"to\": RESOURCE, \"by\": FIELD}}") }
            for (field, _) in members {
                let link = try given.object(field)
                try link.allow(["to", "by"])
                resource.links.append(RestLink(field: field, to: try link.optionalString("to") ?? resource.name, by: try link.string("by")))
            }
        }
        resource.imageFields = try names("images").map { $0.split(separator: ".").map(String.init) }
        if let count = try extra.optionalInt("durable_items") {
            guard count >= 1 else { throw ManifestError(path: extra.path + ".durable_items", message: "must be at least 1") }
            resource.durableItems = count
        }
        resource.keepNoStore = try extra.optionalBool("keep_no_store") ?? false
    }

    /// dlt's resource hints: those Fetchlog acts on, and those said to have no effect.
    private func readHints(into resource: inout RestResource) throws(ManifestError) {
        switch reader.json["write_disposition"] {
        case nil, .null?: break
        case .string(let text)?:
            guard let disposition = WriteDisposition(rawValue: text) else {
                throw ManifestError(path: reader.path + ".write_disposition", message: "\"\(text)\" is not one of append, replace, merge")
            }
            resource.writeDisposition = disposition
        case .object?:
            let given = try reader.object("write_disposition")
            try given.allow(["disposition", "strategy"])
            let text = try given.string("disposition")
            guard let disposition = WriteDisposition(rawValue: text) else {
                throw ManifestError(path: given.path + ".disposition", message: "\"\(text)\" is not one of append, replace, merge")
            }
            resource.writeDisposition = disposition
            if given.json["strategy"] != nil { resource.acceptedWithoutEffect.append(given.path + ".strategy") }
        default:
            throw ManifestError(path: reader.path + ".write_disposition", message: "expected append, replace, merge or {\"disposition\": …}")
        }
        resource.selected = try reader.optionalBool("selected") ?? true
        resource.parallelized = try reader.optionalBool("parallelized") ?? false
        // An empty `table_name` is none, as in dlt (the table is the resource's name).
        if let table = try reader.optionalString("table_name"), !table.isEmpty {
            try RestResource.checkName(table, path: reader.path + ".table_name", what: "a view name Fetchlog takes")
            resource.tableName = table
        }
        if let columns = try reader.optional("columns") {
            guard case .object(let members) = columns.json else {
                throw ManifestError(path: columns.path, message: "expected an object: {\"COLUMN\": {\"data_type\": …}}")
            }
            for (name, value) in members {
                guard case .object = value else { throw ManifestError(path: columns.path + "." + name, message: "expected an object with data_type") }
                guard let type = value["data_type"]?.stringValue else { continue } // other column hints: nullable, …
                guard RestResource.columnSchemaTypes[type] != nil else {
                    throw ManifestError(path: columns.path + "." + name + ".data_type",
                                        message: "\"\(type)\" is not one of dlt's data types: \(RestResource.columnSchemaTypes.keys.sorted().joined(separator: ", "))")
                }
                resource.columnTypes.append((name, type))
            }
        }
        for key in Self.hintsWithoutEffect where reader.json[key] != nil { resource.acceptedWithoutEffect.append(reader.path + "." + key) }
    }
}
