import FetchlogCore

/// The active gnome filter, set by `GnomeFilterIntent.set` (`filter.set`) and cleared by
/// `.reset` (`filter.reset`).
/// Its JSON (the intent body): `{"hair_color":"Pink","profession":"Tinker","name":"…",
/// "age_min":…,"age_max":…,"weight_min":…,"weight_max":…,"height_min":…,"height_max":…,
/// "friends_min":…,"friends_max":…}`, every member optional.
public struct GnomeFilter: Sendable, Equatable, Codable {
    public var name: String?
    public var hairColor: String?
    public var profession: String?
    public var ageMin: Int?, ageMax: Int?
    public var weightMin: Double?, weightMax: Double?
    public var heightMin: Double?, heightMax: Double?
    public var friendsMin: Int?, friendsMax: Int?

    enum CodingKeys: String, CodingKey {
        case name, hairColor = "hair_color", profession, ageMin = "age_min", ageMax = "age_max"
        case weightMin = "weight_min", weightMax = "weight_max", heightMin = "height_min", heightMax = "height_max"
        case friendsMin = "friends_min", friendsMax = "friends_max"
    }

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


/// Brastlewark's intents: what its slice folds. The labels and bodies are those logs
/// have always held (`filter.set` with the filter's JSON, `filter.reset` with `{}`).
public enum GnomeFilterIntent: SourceIntent {
    /// Makes `filter` the active gnome filter.
    case set(filter: GnomeFilter)
    /// Clears the active filter.
    case reset

    public static let source = Source.brastlewark

    public var label: String {
        switch self {
        case .set: "filter.set"
        case .reset: "filter.reset"
        }
    }

    public var body: JSONValue {
        switch self {
        case .set(let filter): filter.json
        case .reset: .object([])
        }
    }

    /// A `filter.set` whose body is not a filter object is no intent (it was always ignored);
    /// a `filter.reset` needs no body.
    public init?(label: String, body: JSONValue) {
        switch label {
        case "filter.set":
            guard let filter = GnomeFilter(json: body) else { return nil }
            self = .set(filter: filter)
        case "filter.reset":
            self = .reset
        default:
            return nil
        }
    }
}

/// Brastlewark's slice of the state: the active gnome filter and the seq of the intent
/// that set it (0: never set), folded from `GnomeFilterIntent`s.
public struct GnomeFilterSlice: SourceSlice {
    public static let version = 1
    public var filter = GnomeFilter()
    public var seq: UInt64 = 0

    public init() {}

    public mutating func apply(_ event: Event) {
        switch GnomeFilterIntent(event) {
        case .set(let filter)?:
            self.filter = filter
            seq = event.seq
        case .reset?:
            filter = GnomeFilter()
            seq = event.seq
        case nil:
            break
        }
    }
}

extension LogState {
    /// The active gnome filter (Brastlewark's slice).
    public var gnomeFilter: GnomeFilter { slice(GnomeFilterSlice.self, of: .brastlewark)?.filter ?? GnomeFilter() }
    /// Seq of the intent that set the active filter (0: never set).
    public var gnomeFilterSeq: UInt64 { slice(GnomeFilterSlice.self, of: .brastlewark)?.seq ?? 0 }
}
