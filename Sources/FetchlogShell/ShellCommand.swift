import FetchlogCore

/// What a shell command answers: rows, one record, a sentence, or a JSON document. The
/// shell renders it in the user's output mode (table, json, ndjson, line, csv); a source's
/// commands return it and never print.
public enum ShellOutput: Sendable {
    /// Rows with named columns; `records` carry the same rows as JSON for json/ndjson.
    /// `footer` (page n of m, counts) is printed under a table for people only.
    case table(columns: [String], rows: [[String]], records: [JSONValue], footer: String? = nil)
    /// Rows of JSON values under named columns (an SQL answer): json and ndjson write each
    /// row as an object with the members in column order; csv a header then the cells.
    case rows(columns: [String], values: [[JSONValue]], footer: String? = nil)
    /// One record: label/value pairs for people, JSON for machines.
    case record(pairs: [(String, String)], json: JSONValue)
    /// A sentence for people (`filter reset (1337 items)`), an object for machines.
    case message(String, json: JSONValue)
    /// A JSON document (exports), printed canonically in every mode.
    case json(JSONValue)
}

/// A shell command that failed: one line on stderr, and the exit status a script ends
/// with (64 a malformed command, 1 a failed one, 130 interrupted).
public struct ShellError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public let status: Int32
    /// What the command had to show before it failed (the rows of a `replay --verify`
    /// that found a difference): printed, then the error line.
    public var output: ShellOutput?
    public init(message: String, status: Int32) {
        self.message = message
        self.status = status
    }
    public static func usage(_ message: String) -> ShellError { ShellError(message: message, status: 64) }
    public static func failed(_ message: String) -> ShellError { ShellError(message: message, status: 1) }
    public var description: String { message }
}

/// What a source's shell command sees of the shell it runs in: the state to answer from
/// (the live snapshot, or the past inside `at SEQ`), the store and the offline-first policy
/// to open views through, and where freshness warnings go. The shell implements it; a
/// command holds no state of its own.
public protocol ShellContext: AnyObject, Sendable {
    /// The state to answer from: the store's snapshot, or the state as of SEQ inside `at`.
    var state: LogState { get }
    /// True inside `at SEQ`: read-only, no fetches, no freshness news.
    var isPinned: Bool { get }
    var store: Store { get }
    var policy: OfflineFirst { get }
    /// Opens a view's primary resource (offline-first): never waits when data is held;
    /// with nothing held, waits for the fetch, and `name` says what was asked in the error.
    func open(_ resource: Resource, _ name: String?) async throws
    /// Asks for the freshness line of `resource` (`⚠ … last updated 2h ago`) under the result.
    func freshnessLine(_ resource: Resource, _ name: String)
}

extension ShellContext {
    /// Opens a view's primary resource (see `open(_:_:)`), unnamed in errors.
    public func open(_ resource: Resource) async throws { try await open(resource, nil) }
}

/// One shell command — a source's or the shell's own (one type for both: the shell's
/// table holds its commands and the sources' side by side): its grammar, a one-line
/// summary, an example that works on the demo store (tests run every example), and what it does.
public struct ShellCommand: Sendable {
    public let name: String
    public let usage: String
    public let summary: String
    public let example: String
    public let run: @Sendable (any ShellContext, [String]) async throws -> ShellOutput?
    /// Tab completion of the argument at `position` (1: the first) from the state: ids,
    /// names, sub-commands.
    public let complete: @Sendable (_ state: LogState, _ position: Int) -> [String]
    /// How a one-shot run (`fetchlog query "…"`) answers from the read model's copy of a
    /// view, without folding the log; nil: it runs in a shell over the store.
    package private(set) var cold: ColdAnswer?

    public init(name: String, usage: String, summary: String, example: String,
                complete: @escaping @Sendable (_ state: LogState, _ position: Int) -> [String] = { _, _ in [] },
                run: @escaping @Sendable (any ShellContext, [String]) async throws -> ShellOutput?) {
        self.name = name
        self.usage = usage
        self.summary = summary
        self.example = example
        self.complete = complete
        self.run = run
    }

    /// A command of one shell that reads more of its context than `ShellContext` gives
    /// sources (its output mode, its files): it runs only in a shell whose context is a
    /// `Context`; run in any other, it traps with both type names (a programming error,
    /// found the first time the command runs).
    public init<Context: ShellContext>(name: String, usage: String, summary: String, example: String,
                                       complete: @escaping @Sendable (_ state: LogState, _ position: Int) -> [String] = { _, _ in [] },
                                       run: @escaping @Sendable (Context, [String]) async throws -> ShellOutput?) {
        self.init(name: name, usage: usage, summary: summary, example: example, complete: complete) { context, args in
            guard let own = context as? Context else { preconditionFailure("\(name) runs in a \(Context.self), not a \(type(of: context))") }
            return try await run(own, args)
        }
    }

    /// This command, answering a one-shot run from the read model's copy of `view`.
    package func answering(fromCopyOf view: String, _ answer: @escaping @Sendable (HeldViewCopy, [String]) throws -> ShellOutput?) -> ShellCommand {
        var command = self
        command.cold = ColdAnswer(view: view, answer: answer)
        return command
    }

    public var json: JSONValue {
        .object([("name", .string(name)), ("usage", .string(usage)), ("summary", .string(summary)), ("example", .string(example))])
    }
}

/// A command's one-shot answer from the read model (issue 35, cold start): what the
/// read model kept of `view` (`ViewCopy`, current with the log) and the command's
/// arguments give its output exactly as a shell over the store would print it. `answer`
/// returns nil when the copy cannot answer these arguments (the shell then does); it
/// throws the command's own errors (`ShellError`), and any other error when the copy is
/// damaged (the shell answers, and the read model is written anew).
package struct ColdAnswer: Sendable {
    package let view: String
    package let answer: @Sendable (HeldViewCopy, [String]) throws -> ShellOutput?
}

/// Small helpers every command's arguments and answers need.
public enum Shell {
    /// Rows on one page of a listing.
    public static let pageSize = 20

    public static func int(_ text: String?, _ what: String) throws -> Int {
        guard let text, let n = Int(text), n >= 0 else { throw ShellError.usage("give \(what) as a number") }
        return n
    }

    /// The one positional word of a command that takes exactly one.
    public static func one(_ args: [String], _ usage: String) throws -> String {
        try ShellArguments(args, usage: usage).words(1 ... 1)[0]
    }

    /// Refuses any word or option: for commands that take none.
    public static func none(_ args: [String], _ usage: String) throws {
        _ = try ShellArguments(args, usage: usage).words(0 ... 0)
    }

    /// The slice of `list` on page `page` of `size`; a page past the end is an error
    /// naming how many there are (an empty list has one, empty, page).
    public static func page<C: RandomAccessCollection>(_ list: C, _ page: Int, size: Int, noun: String) throws -> (slice: [C.Element], pages: Int) {
        // Written so that any size and page a user can type (up to Int.max) cannot overflow.
        let pages = list.isEmpty ? 1 : (list.count - 1) / size + 1
        guard page <= pages else {
            throw ShellError.failed("no page \(page): \(list.count) \(noun) make \(pages) page\(pages == 1 ? "" : "s") of \(size)")
        }
        return (Array(list.dropFirst((page - 1) * size).prefix(size)), pages)
    }

    public static func text(_ value: Double?) -> String { value.map { CanonicalNumber.text($0) } ?? "-" }
    public static func text(_ value: Int?) -> String { value.map(String.init) ?? "-" }
    public static func text(_ value: String?) -> String { value ?? "-" }
}
