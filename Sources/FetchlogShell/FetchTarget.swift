import FetchlogCore

/// One `fetch SOURCE WHAT …` a source offers, on the command line and in the shell alike:
/// the engine parses the common options, finds the target by source and WHAT in the
/// shell's registry (`ShellRegistry`), and hands it a `FetchRequest`.
public struct FetchTarget: Sendable {
    /// The SOURCE word: a source's name, or `assets` for downloads of the images its
    /// views name.
    public let source: String
    /// The WHAT word.
    public let what: String
    /// How `fetch --help` shows it (`books item ID [--with reviews]`); nil keeps
    /// an alias out of the list.
    public let synopsis: String?
    /// Fetches through `request.store` (or its offline-first `policy`); usage errors are
    /// `ShellError.usage`, a fetch that must wait for another is `ShellError.failed`.
    public let perform: @Sendable (FetchRequest) async throws -> [FetchReport]

    public init(source: String, what: String, synopsis: String?, perform: @escaping @Sendable (FetchRequest) async throws -> [FetchReport]) {
        self.source = source
        self.what = what
        self.synopsis = synopsis
        self.perform = perform
    }
}

/// What a fetch target is asked: the words after WHAT and the common options, the store to
/// fetch through, and where progress goes (a count expected, then each report).
public struct FetchRequest: Sendable {
    public let values: [String]
    /// `--pages` as given (nil: the target's default).
    public let pages: String?
    /// `--limit` (items per page, for lists that take a page size).
    public let limit: Int
    /// `--with` as given (extras of an item, comma-separated).
    public let with: String?
    /// `--first` (how many items' images).
    public let first: Int
    /// `--concurrency` (downloads at once).
    public let concurrency: Int
    public let store: Store
    public let policy: OfflineFirst
    /// How many fetches to expect (for a progress display), called before they run.
    public let expect: @Sendable (Int) -> Void
    /// Each fetch's report as it ends.
    public let report: @Sendable (FetchReport) -> Void

    public init(values: [String], pages: String?, limit: Int, with: String?, first: Int, concurrency: Int, store: Store,
                policy: OfflineFirst, expect: @escaping @Sendable (Int) -> Void, report: @escaping @Sendable (FetchReport) -> Void) {
        self.values = values
        self.pages = pages
        self.limit = limit
        self.with = with
        self.first = first
        self.concurrency = concurrency
        self.store = store
        self.policy = policy
        self.expect = expect
        self.report = report
    }

    /// The first word as a non-negative number (`give a show id` when it is not one).
    public func intValue(_ name: String) throws -> Int {
        guard let first = values.first, let n = Int(first), n >= 0 else { throw ShellError.usage("give \(name)") }
        return n
    }

    /// The words joined (`give a text` when there are none).
    public func text() throws -> String {
        let joined = values.joined(separator: " ")
        guard !joined.isEmpty else { throw ShellError.usage("give a text") }
        return joined
    }

    /// `--pages`, or `fallback`; a range's page count is announced to the progress display.
    public func pageSelection(default fallback: String) throws -> PageSelection {
        let text = pages ?? fallback
        guard let selection = PageSelection(text) else { throw ShellError.usage("--pages takes N, A-B or all, not '\(text)'") }
        if case .range(let r) = selection {
            guard r.upperBound <= PageSelection.limit else {
                throw ShellError.usage("--pages goes up to \(PageSelection.limit), not \(r.upperBound) (all fetches until the list ends)")
            }
            expect(r.count)
        }
        return selection
    }

    /// Fetches one resource through the store, announcing and reporting it.
    public func one(_ resource: Resource) async throws -> [FetchReport] {
        expect(1)
        let fetched = try await store.fetch(resource)
        report(fetched)
        return [fetched]
    }

    /// Fetches resources one after another (all announced first).
    public func each(_ resources: [Resource]) async throws -> [FetchReport] {
        expect(resources.count)
        return try await Self.each(resources, store: store, report: report)
    }

    /// Fetches `resources` through `store` one after another, reporting each as it ends: a
    /// request's `each`, and what a tour step runs (it has a store and a report, no request).
    public static func each(_ resources: [Resource], store: Store, report: @Sendable (FetchReport) -> Void) async throws -> [FetchReport] {
        var reports: [FetchReport] = []
        for resource in resources {
            let fetched = try await store.fetch(resource)
            report(fetched)
            reports.append(fetched)
        }
        return reports
    }
}
