/// The store's door for a source's own choices (`SourceIntent`): recorded as intent
/// events, folded by the source's slice when they come back from the log.
extension Store {
    /// Records a user's choice, stamped by the store's clock; the state follows from the log
    /// through the intent's slice. An intent of a source that keeps no slice in this store
    /// (not registered, or a manifest source) would change nothing: `StoreUsageError.noSlice`,
    /// and nothing is appended.
    public func sendIntent(_ intent: some SourceIntent) async throws {
        let source = type(of: intent).source
        guard sources.plugin(source)?.initialSlice != nil else { throw StoreUsageError.noSlice(source.rawValue) }
        try await sendIntent(source: source, label: intent.label, body: intent.body)
    }
}
