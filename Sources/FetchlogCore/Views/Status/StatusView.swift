/// Per resource: last success, last attempt, validators, failures since the last success.
package struct StatusView: ExportableView, Equatable {
    package static let viewName = "status"

    package struct Row: Sendable, Equatable {
        package let key: ResourceKey
        package let status: ResourceStatus
        /// A decoded body is held for it.
        package let held: Bool
    }

    package let rows: [Row]

    package init(state: LogState) {
        rows = state.status.keys.sorted().map { key in
            Row(key: key, status: state.status[key]!, held: state.documents[key] != nil)
        }
    }

    package func row(_ resource: Resource) -> Row? { rows.first { $0.key == ResourceKey(resource) } }

    package func exportMembers() -> [(String, JSONValue)] {
        [("resources", .array(rows.map { row in
            let s = row.status
            return .object([
                ("source", .string(row.key.source)),
                ("path", .string(row.key.path)),
                ("held", .bool(row.held)),
                ("lastSuccess", .optional(s.lastSuccess?.iso8601)),
                ("lastSuccessSeq", s.lastSuccessSeq.map { .number($0) } ?? .null),
                ("lastRevalidated", .optional(s.lastRevalidated?.iso8601)),
                ("lastRenewed", .optional(s.lastRenewed?.iso8601)),
                ("lastAttempt", .optional(s.lastAttempt?.iso8601)),
                ("lastAttemptSeq", .number(s.lastAttemptSeq)),
                ("etag", .optional(s.etag)),
                ("lastModified", .optional(s.lastModified)),
                ("cacheControl", .optional(s.cacheControl)),
                ("failuresSince", .number(s.failuresSince)),
                ("lastError", .optional(s.lastError)),
                ("lastErrorClass", .optional(s.lastErrorClass?.name)),
                ("endOfList", .bool(s.endOfList)),
            ])
        })), ("count", .number(rows.count))]
    }
}
