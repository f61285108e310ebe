/// A JSONPath as dlt reads one (it hands them to `jsonpath-ng`): every path a manifest
/// takes — `data_selector`, `total_path`, `next_url_path`, `cursor_path` — goes through this
/// one reader, so `$.paging.next`, `paging.next` and `$['paging']['next']` mean the same.
///
/// Accepted: an optional leading `$`; members as `.name` (or a bare first `name`), or
/// bracketed and quoted (`['@odata.nextLink']`, `["a b"]`), several at once (`['a','b']`);
/// `*` and `[*]` (every element or member value); indexes `[0]`, `[-1]` and slices `[1:3]`;
/// `..` (the step after it at any depth). Values come back in document order.
package struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    enum Step: Sendable, Hashable {
        case members([String])
        case wildcard
        case index(Int)
        case slice(Int?, Int?)
        /// `..`: the next step applied to the value and every value below it.
        case descendants
    }

    /// As written in the manifest.
    package let text: String
    let steps: [Step]

    package var description: String { text }

    /// True for `$` (or an empty path): the whole document.
    package var isRoot: Bool { steps.isEmpty }

    /// The plain member names of a path made only of them (`$.a.b` → `["a", "b"]`), else nil.
    package var memberNames: [String]? {
        var names: [String] = []
        for step in steps {
            guard case .members(let one) = step, one.count == 1 else { return nil }
            names.append(one[0])
        }
        return names
    }

    package init(_ text: String) throws(JSONPathError) {
        self.text = text
        var parser = Parser(text)
        steps = try parser.parse()
    }

    /// Every value the path selects in `json`, in document order.
    package func values(in json: JSONValue) -> [JSONValue] {
        var current = [json]
        var index = 0
        while index < steps.count {
            let step = steps[index]
            if case .descendants = step {
                // `..x`: `x` applied to every value at any depth (the value itself included).
                var all: [JSONValue] = []
                for value in current { Self.collect(value, into: &all) }
                current = all
                index += 1
                continue
            }
            current = current.flatMap { Self.apply(step, to: $0) }
            index += 1
        }
        return current
    }

    /// The first value selected, as dlt's paginators take one (`find_values(...)[0]`).
    package func first(in json: JSONValue) -> JSONValue? { values(in: json).first }

    private static func collect(_ value: JSONValue, into all: inout [JSONValue]) {
        all.append(value)
        switch value {
        case .array(let items): for item in items { collect(item, into: &all) }
        case .object(let members): for (_, member) in members { collect(member, into: &all) }
        default: break
        }
    }

    private static func apply(_ step: Step, to value: JSONValue) -> [JSONValue] {
        switch step {
        case .members(let names):
            guard case .object = value else { return [] }
            return names.compactMap { value[$0] }
        case .wildcard:
            switch value {
            case .array(let items): return items
            case .object(let members): return members.map(\.1)
            default: return []
            }
        case .index(let i):
            guard case .array(let items) = value else { return [] }
            let at = i < 0 ? items.count + i : i
            return items.indices.contains(at) ? [items[at]] : []
        case .slice(let start, let end):
            guard case .array(let items) = value else { return [] }
            func clamp(_ bound: Int?, _ fallback: Int) -> Int {
                guard let bound else { return fallback }
                return min(max(bound < 0 ? items.count + bound : bound, 0), items.count)
            }
            let from = clamp(start, 0), to = clamp(end, items.count)
            return from < to ? Array(items[from ..< to]) : []
        case .descendants:
            return [value]
        }
    }

    /// A hand-written reader: the grammar is small, and its errors should say where.
    private struct Parser {
        let scalars: [Character]
        let text: String
        var at = 0

        init(_ text: String) {
            self.text = text
            scalars = Array(text)
        }

        func fail(_ reason: String) -> JSONPathError { JSONPathError(path: text, offset: at, reason: reason) }

        mutating func parse() throws(JSONPathError) -> [Step] {
            var steps: [Step] = []
            skipSpaces()
            if peek == "$" { at += 1 }
            // A bare first name (`data.items`) is a member of the root, as in dlt.
            if at == 0, let c = peek, c != "." && c != "[" {
                steps.append(.members([try name()]))
            }
            while true {
                skipSpaces()
                guard let c = peek else { break }
                switch c {
                case ".":
                    at += 1
                    // `.[…]`: jsonpath-ng's spelling of a bracket step (`data.[*].total`).
                    if peek == "[" { continue }
                    if peek == "." {
                        at += 1
                        steps.append(.descendants)
                        if peek == "[" { continue }
                    }
                    if peek == "*" {
                        at += 1
                        steps.append(.wildcard)
                    } else {
                        steps.append(.members([try name()]))
                    }
                case "[":
                    at += 1
                    steps.append(try bracket())
                default:
                    throw fail("expected . or [ here")
                }
            }
            return steps
        }

        var peek: Character? { at < scalars.count ? scalars[at] : nil }

        mutating func skipSpaces() { while peek == " " { at += 1 } }

        /// An unquoted member name: up to the next `.`, `[` or space.
        mutating func name() throws(JSONPathError) -> String {
            let start = at
            while let c = peek, c != ".", c != "[", c != "]", c != " ", c != "*" { at += 1 }
            guard at > start else { throw fail("expected a member name") }
            return String(scalars[start ..< at])
        }

        mutating func bracket() throws(JSONPathError) -> Step {
            skipSpaces()
            if peek == "*" {
                at += 1
                try close()
                return .wildcard
            }
            if peek == "'" || peek == "\"" {
                var names = [try quoted()]
                skipSpaces()
                while peek == "," {
                    at += 1
                    skipSpaces()
                    names.append(try quoted())
                    skipSpaces()
                }
                try close()
                return .members(names)
            }
            let first = integer()
            skipSpaces()
            if peek == ":" {
                at += 1
                skipSpaces()
                let second = integer()
                try close()
                return .slice(first, second)
            }
            guard let first else { throw fail("expected *, a quoted name, an index or a slice inside [ ]") }
            try close()
            return .index(first)
        }

        mutating func close() throws(JSONPathError) {
            skipSpaces()
            guard peek == "]" else { throw fail("expected ]") }
            at += 1
        }

        mutating func integer() -> Int? {
            let start = at
            if peek == "-" { at += 1 }
            while let c = peek, c.isASCII, c.isNumber { at += 1 }
            guard let n = Int(String(scalars[start ..< at])) else {
                at = start
                return nil
            }
            return n
        }

        mutating func quoted() throws(JSONPathError) -> String {
            guard let quote = peek else { throw fail("expected a quoted name") }
            at += 1
            var name = ""
            while let c = peek, c != quote {
                if c == "\\" {
                    at += 1
                    guard let escaped = peek else { break }
                    name.append(escaped)
                } else {
                    name.append(c)
                }
                at += 1
            }
            guard peek == quote else { throw fail("the quoted name is not closed") }
            at += 1
            return name
        }
    }
}

/// A path a manifest gave that is not a JSONPath this reader takes.
package struct JSONPathError: Error, Sendable, Equatable, CustomStringConvertible {
    package let path: String
    /// Characters from the start where reading stopped.
    package let offset: Int
    package let reason: String
    package var description: String { "\"\(path)\" is not a JSONPath Fetchlog reads (at character \(offset + 1): \(reason))" }
}
