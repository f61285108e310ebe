import Foundation

/// Where the store lives when `--store` is not given.
package enum StoreLocation {
    /// `--store DIR`, else `$FETCHLOG_STORE`, else `$XDG_DATA_HOME/fetchlog`, else
    /// `~/.local/share/fetchlog`.
    package static func resolve(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit, !explicit.isEmpty { return expandTilde(explicit, environment) }
        if let store = environment["FETCHLOG_STORE"], !store.isEmpty { return expandTilde(store, environment) }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/fetchlog" }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/share/fetchlog"
    }

    private static func expandTilde(_ path: String, _ environment: [String: String]) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return (environment["HOME"] ?? NSHomeDirectory()) + path.dropFirst()
    }
}
