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
    /// The manifest's resources (`resources`), in the order given.
    public var resources: [RestResource]
    /// `client.headers`: sent with every request (values may be `env:NAME` secrets, and
    /// must be for a header whose name says it is a credential: `ManifestSecrets`).
    package var headers: [(String, SecretValue)]
    /// `client.auth`.
    package var auth: RestAuth?
    /// The document as given (its canonical text is what `source.defined` records).
    package let json: JSONValue

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
        try ManifestSecrets.checkBase(base, path: "client.base_url")
        while base.hasSuffix("/") { base.removeLast() }
        baseURL = base
        var headers: [(String, SecretValue)] = []
        if let given = try client.optional("headers") {
            guard case .object(let members) = given.json else { throw ManifestError(path: given.path, message: "expected an object") }
            for (name, value) in members {
                guard case .string(let text) = value else { throw ManifestError(path: given.path + "." + name, message: "expected a string") }
                headers.append((name, try ManifestSecrets.header(name, text, path: given.path + "." + name)))
            }
        }
        self.headers = headers
        let source = name
        auth = try client.optional("auth").map { value throws(ManifestError) in try RestAuth(value, source: source) }
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
            var resource: RestResource
            do {
                resource = try RestResourceReader(reader: ManifestReader(json, path: item.path), clientPaginator: clientPaginator).read()
                resource.credentials = try EndpointCredentials(endpoint: json["endpoint"], path: item.path + ".endpoint", source: name)
            } catch {
                throw Self.whereWritten(error, item: item, defaults: defaults)
            }
            if resources.contains(where: { $0.name == resource.name }) {
                throw ManifestError(path: item.path + ".name", message: "\"\(resource.name)\" names two resources")
            }
            resources.append(resource)
        }
        // Parents and link targets name resources of this manifest; a child's parents never
        // lead back to it.
        for (index, resource) in resources.enumerated() {
            if let parent = resource.parent {
                guard resources.contains(where: { $0.name == parent }) else {
                    let names = resources.map(\.name)
                    throw ManifestError(path: "resources[\(index)].endpoint.path", message: "the parent \"\(parent)\" is not a resource of this manifest\(Suggest.didYouMean(parent, names)): \(names.joined(separator: ", "))")
                }
                var seen: Set<String> = [resource.name]
                var next: String? = parent
                while let name = next {
                    guard seen.insert(name).inserted else {
                        throw ManifestError(path: "resources[\(index)].endpoint.path", message: "\(resource.name)'s parents lead back to \(name): a child cannot be its own ancestor")
                    }
                    next = resources.first { $0.name == name }?.parent
                }
            }
            for link in resource.links where !resources.contains(where: { $0.name == link.to }) {
                throw ManifestError(path: "resources[\(index)].fetchlog.links.\(link.field).to", message: "\"\(link.to)\" is not a resource of this manifest")
            }
        }
        self.resources = resources
    }

    /// An error about a key the resource took from `resource_defaults` names it there
    /// (`resource_defaults.endpoint.paginator.type`), where the user wrote it.
    static func whereWritten(_ error: ManifestError, item: ManifestReader, defaults: ManifestReader?) -> ManifestError {
        guard let defaults, error.path.hasPrefix(item.path + ".") else { return error }
        let rest = String(error.path.dropFirst(item.path.count + 1))
        var own = item.json
        if case .string(let name) = own { own = .object([("name", .string(name))]) }
        guard value(at: rest, in: own) == nil, value(at: rest, in: defaults.json) != nil else { return error }
        return ManifestError(path: defaults.path + "." + rest, message: error.message + " (in \(item.path), from resource_defaults)")
    }

    /// The value at a key path such as `endpoint.params[0].x` (no member holds a dot).
    private static func value(at path: String, in json: JSONValue) -> JSONValue? {
        var current: JSONValue? = json
        for part in path.split(separator: ".") {
            var name = Substring(part)
            var indexes: [Int] = []
            while name.hasSuffix("]"), let open = name.lastIndex(of: "["), let n = Int(name[name.index(after: open) ..< name.index(before: name.endIndex)]) {
                indexes.insert(n, at: 0)
                name = name[..<open]
            }
            if !name.isEmpty { current = current?[String(name)] }
            for n in indexes {
                guard case .array(let list)? = current, list.indices.contains(n) else { return nil }
                current = list[n]
            }
        }
        return current
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

    /// The resource named `name`, or whose `table_name` it is.
    public func resource(_ name: String) -> RestResource? {
        resources.first { $0.name == name } ?? resources.first { $0.tableName == name }
    }

    /// dlt's keys this manifest gives that Fetchlog accepts with no effect (key paths).
    package var acceptedWithoutEffect: [String] { resources.flatMap(\.acceptedWithoutEffect) }

    /// Equal when the manifests' JSON is: the text defined is what the log records.
    public static func == (a: RestManifest, b: RestManifest) -> Bool { a.json == b.json }
}
