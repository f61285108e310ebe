/// A view as the engine knows it: a name, the sources whose events feed it (replay's
/// "events applied"), and a pure export of the state (`Schemas/<name>.schema.json`).
public struct ViewDefinition: Sendable {
    /// The name `export` and `observe(view:)` take.
    public let name: String
    /// The sources whose events can change it; events of others leave it as it is.
    public let sources: Set<String>
    /// The view's canonical JSON at a state.
    public let export: @Sendable (LogState) -> JSONValue
    /// The members of the records of its list, in export order: the columns of its SQL table
    /// (issue 35) even while the list is empty.
    package let columns: [String]
    /// What the read model keeps of the view for one-shot commands (`ViewCopy`); nil: none.
    package private(set) var copy: (@Sendable (LogState) -> ViewCopy?)?
    /// The records of the view's list as consecutive segments (`ViewSegment`), so a table
    /// kept in a long-lived process is brought up to date by the segments that changed; nil: none.
    package private(set) var segments: (@Sendable (LogState) -> [ViewSegment]?)?

    /// A view named `name`, fed by `sources`, exported by `export`; `columns`: the members of
    /// its list's records (its SQL table's columns when the list is empty).
    public init(name: String, sources: Set<String>, columns: [String] = [], export: @escaping @Sendable (LogState) -> JSONValue) {
        self.name = name
        self.sources = sources
        self.columns = columns
        self.export = export
    }

    /// The definition of an `ExportableView` whose initialiser takes the state.
    public init<V: ExportableView>(_ type: V.Type, sources: Set<String>, columns: [String] = [], make: @escaping @Sendable (LogState) -> V) {
        self.init(name: V.viewName, sources: sources, columns: columns) { state in make(state).export(asOf: state.seq) }
    }

    /// This view, with `copy` kept by the read model for its one-shot commands.
    package func copied(by copy: @escaping @Sendable (LogState) -> ViewCopy?) -> ViewDefinition {
        var view = self
        view.copy = copy
        return view
    }

    /// This view, with its list's records also given as `segments`.
    package func segmented(by segments: @escaping @Sendable (LogState) -> [ViewSegment]?) -> ViewDefinition {
        var view = self
        view.segments = segments
        return view
    }

    static let assets = ViewDefinition(AssetsView.self, sources: [Source.assets.rawValue],
                                       columns: ["url", "held", "contentType", "size", "sha256", "seq", "failuresSince", "lastError"], make: AssetsView.init)
    static func status(sources: [String]) -> ViewDefinition {
        ViewDefinition(StatusView.self, sources: Set(sources),
                       columns: ["source", "path", "held", "lastSuccess", "lastSuccessSeq", "lastRevalidated", "lastRenewed", "lastAttempt",
                                 "lastAttemptSeq", "etag", "lastModified", "cacheControl", "failuresSince", "lastError", "lastErrorClass", "endOfList"],
                       make: StatusView.init)
    }
}

/// A view that takes one parameter after its prefix: `show/ID`.
public struct ParameterizedView: Sendable {
    /// `show/`
    public let prefix: String
    /// `show/ID`, as help shows it.
    public let pattern: String
    /// The export for `parameter` (what follows the prefix); nil when the parameter is not
    /// one this view takes (then the name is unknown).
    public let export: @Sendable (LogState, String) -> JSONValue?

    /// Views named `prefix` plus a parameter, shown as `pattern`, exported by `export`.
    public init(prefix: String, pattern: String, export: @escaping @Sendable (LogState, String) -> JSONValue?) {
        self.prefix = prefix
        self.pattern = pattern
        self.export = export
    }
}

/// A run of consecutive records of a view's list (issue 35: the shell's next query after a
/// fetch that adds a page costs the page): the segments of a state, in order, hold exactly
/// the records of the list its export holds, and a segment's `token` is equal in two states
/// only when its records (and where they start) are. A reader that kept the records of
/// earlier tokens keeps those whose tokens still lead, and asks only the rest for records.
package struct ViewSegment: Sendable {
    package let token: [UInt64]
    /// How many records `records` gives (known without making them).
    package let count: Int
    package let records: @Sendable () -> [JSONValue]

    package init(token: [UInt64], count: Int, records: @escaping @Sendable () -> [JSONValue]) {
        self.token = token
        self.count = count
        self.records = records
    }
}
