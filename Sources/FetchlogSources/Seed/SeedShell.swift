import FetchlogCore

/// Helpers the seed sources' shell commands share.
enum SeedShell {
    /// `, bytes held` when the store holds the asset's bytes.
    static func heldNote(_ session: any ShellContext, _ url: String) -> String {
        AssetsView(state: session.state).asset(url)?.info != nil ? ", bytes held" : ""
    }
}
