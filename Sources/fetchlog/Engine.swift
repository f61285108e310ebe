import FetchlogCore
import FetchlogSources

/// The one place the command line chooses its sources: everything else — the shell's
/// commands, `fetch`, `sources`, `export`, completion — iterates this registry.
enum Engine {
    static let sources: SourceRegistry = SeedSources.registry
}
