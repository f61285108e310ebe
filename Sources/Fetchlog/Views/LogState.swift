/// A resource as the log names it: the event's source and label.
public struct ResourceKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let source: String
    public let path: String
    public init(source: String, path: String) {
        self.source = source
        self.path = path
    }
    public init(_ resource: Resource) { self.init(source: resource.source.rawValue, path: resource.path) }
    public static func < (a: ResourceKey, b: ResourceKey) -> Bool { (a.source, a.path) < (b.source, b.path) }
    public var description: String { source + path }
}

/// The last body of a resource that decoded, with where it came from.
public struct HeldDocument: Sendable, Equatable {
    public let seq: UInt64
    public let fetchedAt: Timestamp
    public let document: DecodedDocument
}

/// What is known about fetching one resource.
public struct ResourceStatus: Sendable, Equatable {
    /// The last `fetched` event that decoded (the held body).
    public var lastSuccess: Timestamp?
    public var lastSuccessSeq: UInt64?
    /// The last 304 that confirmed the held body.
    public var lastRevalidated: Timestamp?
    /// The last time a view opened within its time to live renewed it (a `renew` intent).
    public var lastRenewed: Timestamp?
    /// The `Age` header of the held body's response, in seconds.
    public var ageSeconds: Int?
    /// Any attempt at all.
    public var lastAttempt: Timestamp?
    public var lastAttemptSeq: UInt64 = 0
    public var etag: String?
    public var lastModified: String?
    public var cacheControl: String?
    /// Failed attempts since the last success or 304.
    public var failuresSince = 0
    public var lastError: String?
    public var lastErrorClass: FailureClass?
    /// True when the source said the list ends here (TVmaze's 404).
    public var endOfList = false
}

/// The active gnome filter, set by `filter.set` intents and cleared by `filter.reset`.
/// Its JSON (the intent body): `{"hair_color":"Pink","profession":"Tinker","name":"…",
/// "age_min":…,"age_max":…,"weight_min":…,"weight_max":…,"height_min":…,"height_max":…,
/// "friends_min":…,"friends_max":…}`, every member optional.
public struct GnomeFilter: Sendable, Equatable {
    public var name: String?
    public var hairColor: String?
    public var profession: String?
    public var ageMin: Int?, ageMax: Int?
    public var weightMin: Double?, weightMax: Double?
    public var heightMin: Double?, heightMax: Double?
    public var friendsMin: Int?, friendsMax: Int?

    public init() {}

    public var isEmpty: Bool { self == GnomeFilter() }

    public init?(json: JSONValue) {
        guard case .object = json else { return nil }
        name = json["name"]?.stringValue
        hairColor = json["hair_color"]?.stringValue
        profession = json["profession"]?.stringValue
        ageMin = json["age_min"]?.intValue
        ageMax = json["age_max"]?.intValue
        weightMin = json["weight_min"]?.doubleValue
        weightMax = json["weight_max"]?.doubleValue
        heightMin = json["height_min"]?.doubleValue
        heightMax = json["height_max"]?.doubleValue
        friendsMin = json["friends_min"]?.intValue
        friendsMax = json["friends_max"]?.intValue
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = []
        func add(_ key: String, _ value: JSONValue?) { if let value { members.append((key, value)) } }
        add("name", name.map(JSONValue.string))
        add("hair_color", hairColor.map(JSONValue.string))
        add("profession", profession.map(JSONValue.string))
        add("age_min", ageMin.map { .number($0) })
        add("age_max", ageMax.map { .number($0) })
        add("weight_min", weightMin.map { .number(CanonicalNumber.text($0)) })
        add("weight_max", weightMax.map { .number(CanonicalNumber.text($0)) })
        add("height_min", heightMin.map { .number(CanonicalNumber.text($0)) })
        add("height_max", heightMax.map { .number(CanonicalNumber.text($0)) })
        add("friends_min", friendsMin.map { .number($0) })
        add("friends_max", friendsMax.map { .number($0) })
        return .object(members)
    }
}

/// Everything the log has established, folded event by event. Views are pure
/// functions of it; it is a pure function of the events up to `seq`.
public struct LogState: Sendable, Equatable {
    /// Bump when `apply` changes meaning: checkpoints of another version are rebuilt.
    public static let reducerVersion = 2

    public internal(set) var seq: UInt64 = 0
    public internal(set) var documents: [ResourceKey: HeldDocument] = [:]
    /// Written through `setStatus(_:for:)`, which keeps `failingAssets` in step.
    public private(set) var status: [ResourceKey: ResourceStatus] = [:]
    /// The URLs of images whose download is failing now (`failuresSince > 0`): derived
    /// from `status`, so a view can tell at once whether any image fallback applies.
    public private(set) var failingAssets: Set<String> = []
    public internal(set) var gnomeFilter = GnomeFilter()
    /// Seq of the intent that set the active filter (0: never set).
    public internal(set) var gnomeFilterSeq: UInt64 = 0

    public init() {}

    public func document(_ resource: Resource) -> HeldDocument? { documents[ResourceKey(resource)] }

    mutating func setStatus(_ newStatus: ResourceStatus, for key: ResourceKey) {
        status[key] = newStatus
        guard key.source == Source.assets.rawValue else { return }
        if newStatus.failuresSince > 0 { failingAssets.insert(key.path) } else { failingAssets.remove(key.path) }
    }
}

/// Stable text for a Double in exports: integral values without a fraction
/// (`37` not `37.0`), others in Swift's shortest round-trip form.
public enum CanonicalNumber {
    public static func text(_ value: Double) -> String {
        if value.isNaN || value.isInfinite { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}

extension JSONValue {
    public static func number(_ value: Double) -> JSONValue { .number(CanonicalNumber.text(value)) }
}
