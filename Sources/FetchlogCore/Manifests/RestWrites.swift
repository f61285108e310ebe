import Foundation

/// `fetchlog.writes`: how a resource's items are changed upstream, declared as data (issue 26).
///
///     "writes": {"create":  {"method": "POST",   "path": "notes"},
///                "update":  {"method": "PATCH",  "path": "notes/{id}"},
///                "replace": {"method": "PUT",    "path": "notes/{id}"},
///                "delete":  {"method": "DELETE", "path": "notes/{id}", "item_path": "data"}}
///
/// A route's path is relative to the base URL, as `endpoint.path` is; an item's route names
/// every field of the resource's `primary_key` as a `{FIELD}` placeholder, so the key alone
/// addresses the item. The body is the mutation's fields as one JSON object; `item_path`
/// (dotted member names) says where the server's answer puts the item (the body itself
/// when absent), and a created item's key is read from that item's primary-key fields
/// (else the last segment of the answer's `Location`).
package struct RestWrites: Sendable, Equatable {
    /// What a mutation does to an item.
    package enum Operation: String, Sendable, CaseIterable, Equatable {
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

    /// The methods each operation may be declared with.
    static let methods: [Operation: [String]] = [
        .create: ["POST", "PUT"], .update: ["PATCH", "PUT", "POST"], .replace: ["PUT", "POST"], .delete: ["DELETE", "POST"],
    ]

    init(_ reader: ManifestReader, primaryKey: [String]) throws(ManifestError) {
        let names = Operation.allCases.map(\.rawValue)
        try reader.allow(names)
        var routes: [Operation: Route] = [:]
        for operation in Operation.allCases {
            guard let given = try reader.optional(operation.rawValue) else { continue }
            try given.allow(["method", "path", "item_path"])
            let method = try given.string("method").uppercased()
            let allowed = Self.methods[operation]!
            guard allowed.contains(method) else {
                throw ManifestError(path: given.path + ".method", message: "\"\(method)\" is not a method for \(operation.rawValue): use \(allowed.joined(separator: " or "))")
            }
            var path = try given.string("path")
            while path.hasPrefix("/") { path.removeFirst() }
            path = "/" + path
            let placeholders = RestResource.placeholders(in: path)
            if operation == .create {
                if let first = placeholders.first {
                    throw ManifestError(path: given.path + ".path", message: "{\(first)}: a create's path names no item (the server names the new one)")
                }
            } else {
                guard !primaryKey.isEmpty else {
                    throw ManifestError(path: given.path, message: "\(operation.rawValue) addresses an item by its key: give the resource a primary_key")
                }
                for name in placeholders where !primaryKey.contains(name) {
                    throw ManifestError(path: given.path + ".path", message: "{\(name)} is not a field of the primary_key (\(primaryKey.joined(separator: ", ")))")
                }
                for field in primaryKey where !placeholders.contains(field) {
                    throw ManifestError(path: given.path + ".path", message: "names no {\(field)}: the path must name the item by every primary_key field")
                }
            }
            let itemPath = try given.optionalString("item_path").map { $0.split(separator: ".").map(String.init) } ?? []
            routes[operation] = Route(method: method, path: path, itemPath: itemPath)
        }
        guard !routes.isEmpty else {
            throw ManifestError(path: reader.path, message: "declares no write: give one or more of \(names.joined(separator: ", "))")
        }
        self.routes = routes
    }

    /// The operations declared, in the order of `Operation`.
    package var operations: [Operation] { Operation.allCases.filter { routes[$0] != nil } }

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
