import FetchlogCore
/// The gnome filters: what the census makes available, the active filter from the
/// log's intents, and the gnomes it lets through.
/// Export: `{"available":{age,weight,height,friends:{min,max},hairColors,professions},
/// "active":{name,hairColor,profession,ageMin,…,friendsMax,setAtSeq},"matching":[ids],"matchingCount":N}`.
public struct FiltersView: ExportableView, Equatable {
    public static let viewName = "filters"

    /// An inclusive range seen in the census; nil bounds when the census is empty.
    public struct Bounds<T: Comparable & Sendable>: Sendable, Equatable {
        public var min: T?
        public var max: T?
        init(min: T?, max: T?) {
            self.min = min
            self.max = max
        }
    }

    /// What a user can choose from, derived from the census.
    public struct Available: Sendable, Equatable {
        public var age: Bounds<Int>
        public var weight: Bounds<Double>
        public var height: Bounds<Double>
        public var friends: Bounds<Int>
        /// Trimmed, deduplicated, sorted.
        public var hairColors: [String]
        public var professions: [String]
    }

    public var available: Available { census.available }
    public let active: GnomeFilter
    /// Seq of the intent that set `active` (0: never set).
    public let activeSetAtSeq: UInt64
    /// The held census with its indexes (what is available was derived when it was decoded).
    private let census: GnomeCensusData

    public init(state: LogState) {
        census = GnomeCensus.data(in: state)
        active = state.gnomeFilter
        activeSetAtSeq = state.gnomeFilterSeq
    }

    /// Gnomes matching the active filter and, when given, the search text (same
    /// rules as `GnomesView.search`), in id order.
    public func filtered(search: String? = nil) -> [GnomeRow] { Array(selection(search: search)) }

    /// As `filtered`, without copying rows: the filter's facet, range and name sets
    /// intersected (and the search's), as positions into the census.
    public func selection(search: String? = nil) -> GnomeSelection { census.selection(filter: active, search: search) }

    /// Ids of the gnomes matching the active filter, in id order.
    public var matching: [Int] { selection().map(\.id) }

    public func exportMembers() -> [(String, JSONValue)] {
        func range<T>(_ r: Bounds<T>, _ number: (T) -> JSONValue) -> JSONValue {
            .object([("min", r.min.map(number) ?? .null), ("max", r.max.map(number) ?? .null)])
        }
        let availableJSON: JSONValue = .object([
            ("age", range(available.age) { .number($0) }),
            ("weight", range(available.weight) { .number($0) }),
            ("height", range(available.height) { .number($0) }),
            ("friends", range(available.friends) { .number($0) }),
            ("hairColors", .array(available.hairColors.map(JSONValue.string))),
            ("professions", .array(available.professions.map(JSONValue.string))),
        ])
        // The filter's own values, untrimmed: this is what the user set.
        let activeJSON: JSONValue = .object([
            ("name", .optional(active.name)), ("hairColor", .optional(active.hairColor)),
            ("profession", .optional(active.profession)),
            ("ageMin", .optional(active.ageMin)), ("ageMax", .optional(active.ageMax)),
            ("weightMin", .optional(active.weightMin)), ("weightMax", .optional(active.weightMax)),
            ("heightMin", .optional(active.heightMin)), ("heightMax", .optional(active.heightMax)),
            ("friendsMin", .optional(active.friendsMin)), ("friendsMax", .optional(active.friendsMax)),
            ("setAtSeq", .number(activeSetAtSeq)),
        ])
        let ids = matching
        return [("available", availableJSON), ("active", activeJSON),
                ("matching", .array(ids.map { .number($0) })), ("matchingCount", .number(ids.count))]
    }
}
