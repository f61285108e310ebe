import FetchlogCore

/// The census filter as store calls: intents through the store's door.
extension Store {
    /// Sets the active gnome filter (an intent event; the state follows from the log).
    public func setGnomeFilter(_ filter: GnomeFilter) async throws {
        try await sendIntent(GnomeFilterIntent.set(filter: filter))
    }
    /// Clears the active gnome filter (an intent event).
    public func resetGnomeFilter() async throws {
        try await sendIntent(GnomeFilterIntent.reset)
    }
}
