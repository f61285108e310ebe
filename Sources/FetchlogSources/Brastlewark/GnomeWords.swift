import FetchlogCore

/// The census's words as every door shows them: a gnome's record (`gnomes --format json`,
/// the read model's copy) and a filter as typed (`hair_color=Pink age=100-`). One text for
/// the shell's commands and the copy the store keeps, which answers a one-shot as they do.
package enum GnomeWords {
    /// A gnome as `gnomes --format json` shows it.
    package static func record(_ g: GnomeRow) -> JSONValue {
        .object([("id", .number(g.id)), ("name", .string(g.name)), ("age", .number(g.age)), ("weight", .number(g.weight)),
                 ("height", .number(g.height)), ("hairColor", .string(g.hairColor)),
                 ("professions", .array(g.professions.map(JSONValue.string))), ("friends", .array(g.friends.map(JSONValue.string)))])
    }

    /// Each set field of `f` as typed (`age=100-`), with its field's name.
    package static func filterParts(_ f: GnomeFilter) -> [(field: String, text: String)] {
        var parts: [(field: String, text: String)] = []
        if let v = f.name { parts.append(("name", "name=\(v)")) }
        if let v = f.hairColor { parts.append(("hair_color", "hair_color=\(v)")) }
        if let v = f.profession { parts.append(("profession", "profession=\(v)")) }
        func range<T>(_ name: String, _ a: T?, _ b: T?) {
            if a != nil || b != nil { parts.append((name, "\(name)=\(a.map { "\($0)" } ?? "")-\(b.map { "\($0)" } ?? "")")) }
        }
        range("age", f.ageMin, f.ageMax)
        range("weight", f.weightMin.map(CanonicalNumber.text), f.weightMax.map(CanonicalNumber.text))
        range("height", f.heightMin.map(CanonicalNumber.text), f.heightMax.map(CanonicalNumber.text))
        range("friends", f.friendsMin, f.friendsMax)
        return parts
    }

    /// `f` as typed, or `none`.
    package static func filterText(_ f: GnomeFilter) -> String {
        let parts = filterParts(f).map(\.text)
        return parts.isEmpty ? "none" : parts.joined(separator: " ")
    }
}
