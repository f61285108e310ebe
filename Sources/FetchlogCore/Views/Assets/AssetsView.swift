/// Every asset the log knows: references (URL, content type, size, SHA-256), never bytes.
public struct AssetsView: ExportableView, Equatable {
    public static let viewName = "assets"

    public struct Row: Sendable, Equatable {
        public let url: String
        public let info: AssetInfo?
        public let seq: UInt64?
        public let failuresSince: Int
        public let lastError: String?
    }

    public let rows: [Row]

    public init(state: LogState) {
        rows = state.status.keys.filter { $0.source == Source.assets.rawValue }.sorted().map { key in
            let status = state.status[key]!
            var info: AssetInfo?
            if let held = state.documents[key]?.document as? AssetInfo { info = held }
            return Row(url: key.path, info: info, seq: info == nil ? nil : state.documents[key]?.seq,
                       failuresSince: status.failuresSince, lastError: status.lastError)
        }
    }

    public func asset(_ url: String) -> Row? { rows.first { $0.url == url } }
    public var heldCount: Int { rows.filter { $0.info != nil }.count }

    public func exportMembers() -> [(String, JSONValue)] {
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
