import Foundation

/// The store's side of `Vary` (RFC 9111 §4.1): the request a fetch would make now, for
/// judging whether a held response answers it.
extension Store {
    /// The request lines (as the log records them) a fetch of `key` would present now,
    /// when its held response names any in `Vary`; nil when none is held that varies, when
    /// the store has no fetcher, or when the resource's credentials cannot be made.
    package func presentedHeaders(of key: ResourceKey) -> [Header]? {
        let state = durableState
        guard let fetcher, state.status[key]?.cacheHeaders.containsField("Vary") == true,
              let resource = state.resource(source: key.source, label: key.path) else { return nil }
        // A source defined by a manifest lives in the state, not the registry.
        let plugin = sources.plugin(resource.source) ?? state.plugin(key.source)
        return fetcher.presentedHeaders(for: resource, plugin: plugin)
    }
}
