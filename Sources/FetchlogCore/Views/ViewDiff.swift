/// The differences between two JSON values — typically two exports of one view at two
/// seqs — as a list of `added`, `removed` and `changed` entries, each with a path and the
/// full JSON values on either side (never cut, never turned into strings).
///
/// Arrays of objects that all carry one key field are compared by that key, not by
/// position, so a resource added to the status view is one `added` entry rather than a
/// cascade of positional changes. The key is the first of `keyFields` present in every
/// element of both arrays with a scalar value (string or number) unique within each array.
/// Elements that carry both `source` and `path` (the status view's resources) are keyed
/// by the two together, spelled as a resource key (`books/list?page=0`), before `path`
/// alone is tried: a path is unique only within its source. Other arrays compare by
/// position. A member named `asOf` at the top level is ignored (it is the seq the export
/// was made at, different by construction).
///
/// Paths: an object member is `/name`; an array element by position is `/3`; a keyed
/// element is `[key]` after its array, e.g. `/resources[books/list?page=0]/lastSuccess`.
package struct ViewDiff: Sendable, Equatable {
    /// The fields tried, in order, as the key of an array's elements.
    package static let keyFields = ["resource", "key", "id", "url", "path", "name", "view", "query"]

    /// One difference.
    package struct Change: Sendable, Equatable {
        package enum Kind: String, Sendable {
            /// Present only after: `after` is the whole new value.
            case added
            /// Present only before: `before` is the whole old value.
            case removed
            /// Present on both sides with different values (or types).
            case changed
        }

        package let kind: Kind
        /// Where the value lives (see the type's description for the syntax).
        package let path: String
        /// The value before; nil for `added`.
        package let before: JSONValue?
        /// The value after; nil for `removed`.
        package let after: JSONValue?

        package init(kind: Kind, path: String, before: JSONValue?, after: JSONValue?) {
            self.kind = kind
            self.path = path
            self.before = before
            self.after = after
        }

        /// `{"change":"added","path":…,"after":…}`; `before` and `after` appear when they exist.
        package var json: JSONValue {
            var members: [(String, JSONValue)] = [("change", .string(kind.rawValue)), ("path", .string(path))]
            if let before { members.append(("before", before)) }
            if let after { members.append(("after", after)) }
            return .object(members)
        }
    }

    /// Removed and changed entries in the order of the first value, each followed in its
    /// container by the entries added there, in the order of the second value.
    package let changes: [Change]

    /// Compares `before` with `after`.
    package init(from before: JSONValue, to after: JSONValue) {
        var changes: [Change] = []
        Self.compare(before, after, path: "", topLevel: true, into: &changes)
        self.changes = changes
    }

    /// True when the two values are equal (apart from a top-level `asOf`).
    package var isEmpty: Bool { changes.isEmpty }

    /// `{"changes":[…],"count":N}`.
    package var json: JSONValue {
        .object([("changes", .array(changes.map(\.json))), ("count", .number(changes.count))])
    }

    // MARK: Comparing

    private static func compare(_ a: JSONValue, _ b: JSONValue, path: String, topLevel: Bool = false, into changes: inout [Change]) {
        switch (a, b) {
        case (.object(let left), .object(let right)):
            let rightByName = Dictionary(right.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
            let leftNames = Set(left.map(\.0))
            for (name, value) in left where !(topLevel && name == "asOf") {
                let memberPath = path + "/" + name
                if let other = rightByName[name] {
                    compare(value, other, path: memberPath, into: &changes)
                } else {
                    changes.append(Change(kind: .removed, path: memberPath, before: value, after: nil))
                }
            }
            for (name, value) in right where !leftNames.contains(name) && !(topLevel && name == "asOf") {
                changes.append(Change(kind: .added, path: path + "/" + name, before: nil, after: value))
            }
        case (.array(let left), .array(let right)):
            if let key = keyField(left, right) {
                compareKeyed(left, right, key: key, path: path, into: &changes)
            } else {
                for i in 0 ..< max(left.count, right.count) {
                    let elementPath = path + "/" + String(i)
                    if i < left.count, i < right.count {
                        compare(left[i], right[i], path: elementPath, into: &changes)
                    } else if i < left.count {
                        changes.append(Change(kind: .removed, path: elementPath, before: left[i], after: nil))
                    } else {
                        changes.append(Change(kind: .added, path: elementPath, before: nil, after: right[i]))
                    }
                }
            }
        default:
            if a != b { changes.append(Change(kind: .changed, path: path, before: a, after: b)) }
        }
    }

    private static func compareKeyed(_ left: [JSONValue], _ right: [JSONValue], key: Key, path: String, into changes: inout [Change]) {
        var rightByKey: [String: JSONValue] = [:]
        for element in right { if let k = key.value(of: element) { rightByKey[k] = element } }
        var leftKeys = Set<String>()
        for element in left {
            guard let k = key.value(of: element) else { continue }
            leftKeys.insert(k)
            let elementPath = path + "[" + k + "]"
            if let other = rightByKey[k] {
                compare(element, other, path: elementPath, into: &changes)
            } else {
                changes.append(Change(kind: .removed, path: elementPath, before: element, after: nil))
            }
        }
        for element in right {
            guard let k = key.value(of: element), !leftKeys.contains(k) else { continue }
            changes.append(Change(kind: .added, path: path + "[" + k + "]", before: nil, after: element))
        }
    }

    // MARK: Choosing the key

    private enum Key {
        case field(String)
        /// `source` + `path`, as a resource key is spelled.
        case sourceAndPath

        func value(of element: JSONValue) -> String? {
            switch self {
            case .field(let name): return element[name].flatMap(ViewDiff.scalarText)
            case .sourceAndPath:
                guard let source = element["source"]?.stringValue, let path = element["path"]?.stringValue else { return nil }
                return source + path
            }
        }
    }

    /// The key both arrays' elements share, or nil (compare by position). Needs at least one
    /// element, every element an object.
    private static func keyField(_ left: [JSONValue], _ right: [JSONValue]) -> Key? {
        let all = left + right
        guard !all.isEmpty, all.allSatisfy({ if case .object = $0 { true } else { false } }) else { return nil }
        var candidates: [Key] = []
        for name in keyFields {
            if name == "path" { candidates.append(.sourceAndPath) }
            candidates.append(.field(name))
        }
        for key in candidates where isUniqueKey(key, left) && isUniqueKey(key, right) { return key }
        return nil
    }

    private static func isUniqueKey(_ key: Key, _ elements: [JSONValue]) -> Bool {
        var seen = Set<String>()
        for element in elements {
            guard let value = key.value(of: element), seen.insert(value).inserted else { return false }
        }
        return true
    }

    /// A key's text: a string as it is, a number as its literal; nil for anything else.
    static func scalarText(_ value: JSONValue) -> String? {
        switch value {
        case .string(let s): s
        case .number(let n): n
        default: nil
        }
    }
}
