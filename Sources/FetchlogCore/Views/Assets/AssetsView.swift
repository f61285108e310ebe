/// Every asset the log knows: references (URL, content type, size, SHA-256), never bytes.
package struct AssetsView: ExportableView, Equatable {
    package static let viewName = "assets"

    package struct Row: Sendable, Equatable {
        package let url: String
        package let info: AssetInfo?
        package let seq: UInt64?
        package let failuresSince: Int
        package let lastError: String?
    }

    package let rows: [Row]

    package init(state: LogState) {
        rows = state.status.keys.filter { $0.source == Source.assets.rawValue }.sorted().map { key in
            let status = state.status[key]!
            var info: AssetInfo?
            if let held = state.documents[key]?.document as? AssetInfo { info = held }
            return Row(url: key.path, info: info, seq: info == nil ? nil : state.documents[key]?.seq,
                       failuresSince: status.failuresSince, lastError: status.lastError)
        }
    }

    package func asset(_ url: String) -> Row? { rows.first { $0.url == url } }
    package var heldCount: Int { rows.filter { $0.info != nil }.count }

    package func exportMembers() -> [(String, JSONValue)] {
        [("assets", .array(rows.map { row in
            .object([
                ("url", .string(row.url)),
                ("held", .bool(row.info != nil)),
                ("contentType", .optional(row.info?.format.contentType)),
                ("size", .optional(row.info?.size)),
                ("sha256", .optional(row.info?.sha256)),
                ("seq", row.seq.map { .number($0) } ?? .null),
                ("failuresSince", .number(row.failuresSince)),
                ("lastError", .optional(row.lastError)),
            ])
        })), ("count", .number(rows.count)), ("held", .number(heldCount))]
    }
}
