import Foundation

/// The manifest's name for a resource's writes (issue 26): the value is the same whichever
/// declared it, a manifest or a plug-in (`ResourceWrites`).
package typealias RestWrites = ResourceWrites

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
extension ResourceWrites {
    init(_ reader: ManifestReader, primaryKey: [String]) throws(ManifestError) {
        let names = Operation.allCases.map(\.rawValue)
        try reader.allow(names + ["idempotency_key"])
        idempotencyKeyHonoured = try Self.honoursIdempotencyKey(reader)
        var routes: [Operation: Route] = [:]
        for operation in Operation.allCases {
            guard let given = try reader.optional(operation.rawValue) else { continue }
            try given.allow(["method", "path", "item_path"])
            let method = try given.string("method").uppercased()
            let path = Self.rooted(try given.string("path"))
            let itemPath = try given.optionalString("item_path").map { $0.split(separator: ".").map(String.init) } ?? []
            let route = Route(method: method, path: path, itemPath: itemPath)
            if let (part, message) = Self.problem(operation, route, key: primaryKey, keyName: "primary_key", giveKey: "give the resource a primary_key") {
                throw ManifestError(path: given.path + (part.isEmpty ? "" : "." + part), message: message)
            }
            routes[operation] = route
        }
        guard !routes.isEmpty else {
            throw ManifestError(path: reader.path, message: "declares no write: give one or more of \(names.joined(separator: ", "))")
        }
        self.routes = routes
        key = primaryKey
    }

    /// `idempotency_key`: `"honoured"` (the upstream applies a repeated `Idempotency-Key`
    /// once, so `sync` may send a write left in doubt again by itself, whatever its method)
    /// or `"ignored"`, the default.
    static func honoursIdempotencyKey(_ reader: ManifestReader) throws(ManifestError) -> Bool {
        switch try reader.optionalString("idempotency_key") {
        case nil, "ignored"?: return false
        case "honoured"?: return true
        case let other?:
            throw ManifestError(path: reader.path + ".idempotency_key",
                                message: "\"\(other)\" is not \"honoured\" or \"ignored\": whether the upstream applies a repeated Idempotency-Key once")
        }
    }

    /// A `writes` holding `idempotency_key` alone (from `resource_defaults`, on a resource
    /// that declares no write): its value checked, no writes.
    static func onlyIdempotencyKey(_ reader: ManifestReader) throws(ManifestError) -> Bool {
        guard case .object(let members) = reader.json, !members.isEmpty, members.allSatisfy({ $0.0 == "idempotency_key" }) else { return false }
        _ = try honoursIdempotencyKey(reader)
        return true
    }
}
