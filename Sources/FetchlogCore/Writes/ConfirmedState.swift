/// `--confirmed` for every view at once (issue 26): the state with no mutation waiting, so
/// items, facets, links, search and exports read the server's truth alone — its answers to
/// writes stay folded in, as `ItemsView(…, confirmedOnly: true)` keeps them.
extension LogState {
    /// This state without its pending mutations (their answers already recorded stay).
    package var confirmedOnly: LogState {
        guard !writes.mutations.isEmpty else { return self }
        var state = self
        state.writes.mutations = [:]
        return state
    }
}
