import Foundation

/// How a resource's items are changed upstream (issue 26): the routes of its writes —
/// create, update, replace, delete — and how an item is named. A manifest resource declares
/// them as data (`fetchlog.writes`); a plug-in returns one from `SourcePlugin.writes(for:)`.
/// The store records a change as an event at once and sends it exactly once, whichever
/// declared it (<doc:WritingOffline>).
///
/// Each route is a method and a path relative to the source's base; an item's route names
/// every field of the key as a `{FIELD}` placeholder, so the key alone addresses the item.
/// The body is the change's fields as one JSON object; the item in the server's answer is
/// the body itself, or the member `itemPath` names; a created item's key is read from that
/// item's key fields, else from the last segment of the answer's `Location`.
public struct ResourceWrites: Sendable {
    /// What a mutation does to an item.
    public enum Operation: String, Sendable, CaseIterable, Equatable {
        /// Make a new item (the server names its key).
        case create
        /// Change the fields given.
        case update
        /// Replace the item: fields not given go back to the server's defaults.
        case replace
        /// Remove the item.
        case delete
    }

    /// One operation's request.
    package struct Route: Sendable, Equatable {
        /// The HTTP method.
        package var method: String
        /// With a leading `/`, placeholders and all.
        package var path: String
        /// Member names leading to the item in the server's answer; empty: the body itself.
        package var itemPath: [String]

        /// A route as declared (`path` with its leading `/`).
        package init(method: String, path: String, itemPath: [String] = []) {
            self.method = method
            self.path = path
            self.itemPath = itemPath
        }
    }

    /// The operations declared and their requests.
    package var routes: [Operation: Route]
    /// The fields that name an item (a manifest resource's `primary_key`), in order; an
    /// item's key is their values joined by `/`.
    package var key: [String]
    /// A plug-in's: the items a held document of its source holds (nil: none of this
    /// resource's). A manifest's items are its `ItemsView`.
    package var items: (@Sendable (any SourceDocument) -> [JSONValue]?)?
    /// What is wrong with a plug-in's declaration (a write refuses to record while there is).
    package var problem: String?
    /// `fetchlog.writes.idempotency_key: "honoured"`: the upstream applies a repeated
    /// `Idempotency-Key` once, so a write left in doubt (sent, no answer recorded) may be sent
    /// again by unattended pushes (`sync`, the shell's) whatever its method. False (the
    /// default, and a plug-in's): only an idempotent request (PUT, DELETE, a PATCH with
    /// `If-Match`) is; the others wait for a person (`push`, `pending retry`).
    package var idempotencyKeyHonoured = false

    /// A plug-in's writes. Each route is `"METHOD PATH"`, the path relative to the source's
    /// base (`"POST /notes"`, `"PATCH /notes/{id}"`); leave out the operations the API does
    /// not offer. `key`: the fields that name an item (what `{FIELD}` placeholders name).
    /// `itemPath`: dotted member names leading to the item in the server's answers (nil: the
    /// body is the item). `items`: the items a held document of the source holds — nil for
    /// a document of another resource — which a change's fields are checked against and
    /// an item's existence is read from. A declaration that does not hold together (a
    /// method the operation cannot have, a path missing a key field) makes each write to
    /// the resource fail with what is wrong, recording nothing.
    public init(key: [String], create: String? = nil, update: String? = nil, replace: String? = nil, delete: String? = nil,
                itemPath: String? = nil, items: @escaping @Sendable (any SourceDocument) -> [JSONValue]?) {
        self.key = key
        self.items = items
        routes = [:]
        let path = itemPath.map { $0.split(separator: ".").map(String.init) } ?? []
        for (operation, given) in zip(Operation.allCases, [create, update, replace, delete]) {
            guard let given else { continue }
            let parts = given.split(separator: " ", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[1].isEmpty else {
                problem = problem ?? "\(operation.rawValue) \"\(given)\" is not \"METHOD PATH\" (\"PATCH /notes/{id}\")"
                continue
            }
            let route = Route(method: parts[0].uppercased(), path: Self.rooted(parts[1]), itemPath: path)
            if problem == nil, let (_, message) = Self.problem(operation, route, key: key, keyName: "key", giveKey: "give the ResourceWrites a key") {
                problem = "\(operation.rawValue) \"\(given)\": \(message)"
            }
            routes[operation] = route
        }
        if routes.isEmpty, problem == nil { problem = "declares no write: give one or more of create, update, replace, delete" }
    }

    /// The operations declared, in the order of `Operation`.
    package var operations: [Operation] { Operation.allCases.filter { routes[$0] != nil } }

    /// Both none, or the same routes and key (a plug-in's `items` is code, not compared).
    package static func same(_ a: ResourceWrites?, _ b: ResourceWrites?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.routes == b.routes && a.key == b.key && a.idempotencyKeyHonoured == b.idempotencyKeyHonoured
    }

    /// The methods each operation may be declared with.
    static let methods: [Operation: [String]] = [
        .create: ["POST", "PUT"], .update: ["PATCH", "PUT", "POST"], .replace: ["PUT", "POST"], .delete: ["DELETE", "POST"],
    ]

    /// `path` with one leading `/`.
    static func rooted(_ path: String) -> String {
        var path = path
        while path.hasPrefix("/") { path.removeFirst() }
        return "/" + path
    }

    /// What is wrong with one route, and which part of it (`method`, `path`, or the
    /// operation itself: empty): the checks a manifest's and a plug-in's writes share.
    /// `keyName`: what the key is called where it is declared; `giveKey`: how to give one.
    static func problem(_ operation: Operation, _ route: Route, key: [String], keyName: String, giveKey: String) -> (String, String)? {
        let allowed = methods[operation]!
        guard allowed.contains(route.method) else {
            return ("method", "\"\(route.method)\" is not a method for \(operation.rawValue): use \(allowed.joined(separator: " or "))")
        }
        let placeholders = RestResource.placeholders(in: route.path)
        if operation == .create {
            if let first = placeholders.first { return ("path", "{\(first)}: a create's path names no item (the server names the new one)") }
            return nil
        }
        guard !key.isEmpty else { return ("", "\(operation.rawValue) addresses an item by its key: \(giveKey)") }
        for name in placeholders where !key.contains(name) {
            return ("path", "{\(name)} is not a field of the \(keyName) (\(key.joined(separator: ", ")))")
        }
        for field in key where !placeholders.contains(field) {
            return ("path", "names no {\(field)}: the path must name the item by every \(keyName) field")
        }
        return nil
    }

    /// `route`'s path with the key's fields filled in (each value escaped as a path segment).
    static func path(_ route: Route, key: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        var path = route.path
        for (field, value) in key {
            path = path.replacingOccurrences(of: "{\(field)}", with: value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)
        }
        return path
    }

    /// The item in a server's answer (`item_path`), nil when the answer holds none.
    static func item(in body: JSONValue, _ route: Route) -> JSONValue? {
        var value: JSONValue? = body
        for name in route.itemPath { value = value?[name] }
        guard case .object? = value else { return nil }
        return value
    }
}
