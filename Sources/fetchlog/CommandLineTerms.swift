import FetchlogCore

/// The command line's wording for what the engine's messages tell the user to change or run:
/// the flags and commands that do it here. The engine speaks of settings
/// (`FrontEndTerm`); the command line installs these at start, so every message reads as
/// it always has (`raise --deadline if the upstream is only slow`).
enum CommandLineTerms {
    static let wording: [FrontEndTerm: String] = [
        .offline: "--offline",
        .allowPrivateHosts: "--allow-private-hosts (FetchConfiguration.allowPrivateHosts)",
        .deadline: "--deadline",
        .minimumRate: "--min-rate",
        .maxBody: "--max-body",
        .upstream: "--upstream",
        .pageCeiling: "--max-pages",
        .storeLocation: "--store",
        .storeLocationOrEnvironment: "--store (or FETCHLOG_STORE)",
        .storeLocationCode: "`--store`",
        .rewriteCompaction: "`log compact --rewrite`",
        .salvage: "`fetchlog log salvage --out FILE`",
        .replayDiff: "replay --diff",
    ]

    /// Installs the wording (before the command runs).
    static func install() { FrontEndTerm.install(wording) }
}
