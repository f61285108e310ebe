import FetchlogCore

/// What the command line's `demo` and `tour` run, and the examples `help` gives for the
/// engine's own commands — data the registered sources provide, since the engine and the
/// command line name none.
public struct DemoPlan: Sendable {
    /// What `demo` fetches into a fresh store before it opens the shell.
    public var firstFetches: [Resource]
    /// The steps of `tour`, in order.
    public var tour: [TourStep]
    /// Examples for the engine's commands that need a source to show anything (`fetch`,
    /// `asset`, `help`), by command name; each must work on the demo store.
    public var examples: [String: String]

    public init(firstFetches: [Resource] = [], tour: [TourStep] = [], examples: [String: String] = [:]) {
        self.firstFetches = firstFetches
        self.tour = tour
        self.examples = examples
    }
}

/// One step of the tour: a `fetch` as the user would type it, run through the store.
public struct TourStep: Sendable {
    /// What follows `fetchlog fetch` in the transcript (with a note, if any).
    public let title: String
    /// When set, the sample upstream fails this many times on requests under this path
    /// prefix during the step (to show retries, and held data kept).
    public let failures: (prefix: String, count: Int)?
    /// The fetches; each report goes to `report` as it ends.
    public let run: @Sendable (_ store: Store, _ report: @escaping @Sendable (FetchReport) -> Void) async throws -> [FetchReport]

    public init(_ title: String, failures: (prefix: String, count: Int)? = nil,
                run: @escaping @Sendable (_ store: Store, _ report: @escaping @Sendable (FetchReport) -> Void) async throws -> [FetchReport]) {
        self.title = title
        self.failures = failures
        self.run = run
    }
}
