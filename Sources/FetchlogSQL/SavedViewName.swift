import FetchlogCore
import Foundation

/// The one rule for a saved view's name (issue 44): a name reads as one thing only.
///
/// A saved view is a TEMP view, and SQLite looks `temp` up before `main` and the attached
/// sources, so a view named as a table would hide it; a name that only looks like another
/// (`ｅｖｅｎｔｓ`, `"events "`, a table's name with a zero-width space, a bidi override) would be
/// read as the other by whoever reads the query. So a name may not:
/// - be empty, or hold a `.` (it would read as `SOURCE.RESOURCE`) or a `/` (a view's path,
///   `items/SOURCE/RESOURCE`, at `GET /api/views/NAME` and `export`);
/// - hold whitespace, a control character, a zero-width character (U+200B–U+200D, U+2060,
///   U+FEFF), a bidirectional control (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F,
///   U+061C) or any other invisible (default-ignorable) character;
/// - equal, or read as after folding (`key(_:)`: NFKC, case and width folded, invisible
///   characters dropped), the name of a view's table, `events`, a schema (`main`, `temp`, a
///   source), a resource (bare or as `SOURCE.RESOURCE`), `all` (every view's export), a name
///   SQLite keeps (`sqlite_…`), or another saved view.
///
/// `CREATE VIEW` is refused by it at every door (the CLI, the shell, `POST /api/sql`,
/// `Store.sql`): all go through `Store.sql`. A log written before the rule (or a manifest
/// defined after the view, or two replicas' logs merged) may hold a view the rule refuses:
/// the log keeps it (replay folds it as before, so nothing about determinism changes), but
/// SQL does not take it as a table (`inForce(_:viewNames:resources:)`): the table wins,
/// and `DROP VIEW` by its exact name removes it.
package enum SavedViewName {
    /// A name a saved view may not take, and what it names.
    package struct Taken: Sendable, Equatable {
        package let name: String
        /// What it is, for a refusal: "the log's table events".
        package let what: String
        package let key: String

        package init(_ name: String, _ what: String) {
            self.name = name
            self.what = what
            key = SavedViewName.key(name)
        }
    }

    /// The names that are always taken: SQLite's schemas, the log, every view's export.
    package static let reserved: [Taken] = [
        Taken("main", "SQLite's schema main"), Taken("temp", "SQLite's schema temp"),
        Taken(SQLTables.eventsName, "the log's table events"), Taken("all", "the export of every view (export all)"),
    ]

    /// Every name taken by the tables of a store whose fixed views are `viewNames` and whose
    /// manifests define `resources`; saved views are added by the caller.
    package static func taken(viewNames: [String], resources: [(source: String, resources: [String])]) -> [Taken] {
        var taken = reserved
        for name in viewNames { taken.append(Taken(name, "the table of view \(name)")) }
        for (source, names) in resources {
            taken.append(Taken(source, "the schema of source \(source) (its tables are \(source).RESOURCE)"))
            for resource in names {
                taken.append(Taken(resource, "resource \(resource) of source \(source) (the table \(source).\(resource))"))
                taken.append(Taken(source + "." + resource, "the table of resource \(resource) of source \(source)"))
            }
        }
        return taken
    }

    /// The names taken in `state`, its saved views included — but those named `except` as
    /// SQLite compares names: a `CREATE VIEW` of a view that exists says so, not "taken".
    package static func taken(in state: LogState, except: String? = nil) -> [Taken] {
        taken(viewNames: SQLTables.viewNames(in: state), resources: SQLTables.resources(in: state))
            + state.savedViews.values.filter { view in except.map { !sameToSQLite(view.name, $0) } ?? true }
                .sorted { ($0.seq, $0.name) < ($1.seq, $1.name) }.map(savedTaken)
    }

    static func savedTaken(_ view: SavedView) -> Taken { Taken(view.name, "the saved view \(view.name) (seq \(view.seq))") }

    /// `name` folded for comparison: NFKC, case and width folded, NFKC again, and every
    /// whitespace, control or invisible character dropped. Two names with one key read alike.
    package static func key(_ name: String) -> String {
        let folded = name.precomposedStringWithCompatibilityMapping
            .folding(options: [.caseInsensitive, .widthInsensitive], locale: nil)
            .precomposedStringWithCompatibilityMapping
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: folded.unicodeScalars.filter { invisible($0) == nil })
        return String(scalars)
    }

    /// Whether two names are one name to SQLite (ASCII letters in either case).
    package static func sameToSQLite(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { x, y in
            x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A)
        }
    }

    /// Why `scalar` may not stand in a name (nil: it may).
    static func invisible(_ scalar: Unicode.Scalar) -> String? {
        let v = scalar.value
        let hex = "U+" + String(format: "%04X", v)
        if (0x200B ... 0x200D).contains(v) || v == 0x2060 || v == 0xFEFF { return "a zero-width character (\(hex))" }
        if (0x202A ... 0x202E).contains(v) || (0x2066 ... 0x2069).contains(v) || v == 0x200E || v == 0x200F || v == 0x061C {
            return "a bidirectional control (\(hex))"
        }
        let properties = scalar.properties
        if properties.generalCategory == .control { return "a control character (\(hex))" }
        if properties.isWhitespace || properties.generalCategory == .spaceSeparator || properties.generalCategory == .lineSeparator
            || properties.generalCategory == .paragraphSeparator { return "whitespace (\(hex))" }
        if properties.generalCategory == .format || properties.isDefaultIgnorableCodePoint { return "an invisible character (\(hex))" }
        return nil
    }

    /// `name` as a refusal shows it: quoted, each character that does not show as `\u{…}`.
    package static func shown(_ name: String) -> String {
        var text = "\""
        for scalar in name.unicodeScalars {
            if invisible(scalar) != nil && scalar != " " || scalar == "\"" || scalar == "\\" {
                text += scalar == "\"" ? "\\\"" : scalar == "\\" ? "\\\\" : "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }

    /// Why `name` may not name a saved view among the names `taken` (nil: it may): the rule
    /// it breaks and the name it would be read as.
    package static func problem(_ name: String, against taken: [Taken]) -> String? {
        var rule: String?
        if name.isEmpty {
            rule = "a name cannot be empty"
        } else if let why = name.unicodeScalars.lazy.compactMap(invisible).first {
            rule = "it holds \(why), so it does not read as it is: a saved view's name holds no whitespace, control, zero-width, bidirectional or other invisible character"
        } else if name.contains(".") {
            rule = "a '.' reads as SOURCE.RESOURCE: a saved view's name holds none"
        } else if name.contains("/") {
            rule = "a '/' reads as a view's path (items/SOURCE/RESOURCE): a saved view's name holds none"
        }
        let key = key(name)
        var collision: String?
        if let same = taken.first(where: { sameToSQLite($0.name, name) }) {
            collision = "it is the name of \(same.what)"
        } else if let alike = taken.first(where: { $0.key == key }) {
            collision = "it reads as \(alike.name) (compared with Unicode NFKC and case folded, invisible characters dropped), the name of \(alike.what)"
        } else if key.hasPrefix("sqlite_") {
            collision = "names that start with sqlite_ are SQLite's own"
        }
        switch (rule, collision) {
        case (nil, nil): return nil
        case (let rule?, nil): return rule
        case (nil, let collision?): return collision
        case (let rule?, let collision?): return rule + "; " + collision
        }
    }

    /// Refuses `name` for a new saved view among `taken`: ``SQLError/Kind-swift.enum/refused``
    /// naming the rule it breaks and what it collides with.
    package static func validate(_ name: String, against taken: [Taken]) throws(SQLError) {
        guard let problem = problem(name, against: taken) else { return }
        throw SQLError(.refused, "refused: \(shown(name)) cannot name a saved view: \(problem)")
    }

    /// Of the saved views `views`, those SQL takes as tables, by lowercased name, and why
    /// each other is not: a view is taken in the order they were saved (seq) when its name
    /// passes the rule against the tables, schemas and resources and the views taken before
    /// it. A view saved before the rule, or before a manifest defined a source or resource of
    /// its name, is left out: the table wins. Deterministic in the views and names alone.
    package static func inForce(_ views: some Sequence<SavedView>, viewNames: [String],
                                resources: [(source: String, resources: [String])]) -> (views: [String: SavedView], refused: [String: String]) {
        var taken = taken(viewNames: viewNames, resources: resources)
        var kept: [String: SavedView] = [:]
        var refused: [String: String] = [:]
        for view in views.sorted(by: { ($0.seq, $0.name) < ($1.seq, $1.name) }) {
            if let problem = problem(view.name, against: taken) {
                refused[view.name] = problem
            } else {
                // Distinct keys fold case, so distinct lowercased names; the first kept regardless.
                if kept[view.name.lowercased()] == nil { kept[view.name.lowercased()] = view }
                taken.append(savedTaken(view))
            }
        }
        return (kept, refused)
    }

    /// Why SQL does not take saved view `name` of `state` as a table (nil: it does, or there is
    /// no such view): `inForce`'s answer for it.
    package static func refusal(of name: String, in state: LogState) -> String? {
        guard state.savedViews[name] != nil else { return nil }
        let refused = inForce(state.savedViews.values, viewNames: SQLTables.viewNames(in: state), resources: SQLTables.resources(in: state)).refused
        return refused[name].map { "the saved view \(shown(name)) is not a table: \($0) (it was saved before this rule or the name it collides with; DROP VIEW \(SQLEngine.quote(name)) and save it under another name)" }
    }
}
