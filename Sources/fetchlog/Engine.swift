import FetchlogCore
import FetchlogShell
import FetchlogSources
import FetchlogSeedShell

/// The one place the command line chooses its sources: everything else — the shell's
/// commands, `fetch`, `sources`, `export`, completion — iterates this registry.
enum Engine {
    /// The sources and what the shell brings with them (commands, `fetch` grammar, demo).
    static let shell: ShellRegistry = SeedSources.shell
    /// The sources the store is opened with.
    static var sources: SourceRegistry { shell.sources }
}
